# verify: a sound cache, several caches at once.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
cp f.ilmap g.ilmap
ilmap verify f.ilmap; echo "exit $?"
ilmap verify f.ilmap g.ilmap; echo "exit $?"
