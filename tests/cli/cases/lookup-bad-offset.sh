# lookup with a malformed IL offset: usage error, exit 1.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ilmap lookup f.ilmap 10 -2; echo "exit $?"
ilmap lookup f.ilmap 10 0x100000000; echo "exit $?"
ilmap lookup f.ilmap 10 7abc
