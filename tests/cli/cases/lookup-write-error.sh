# A failed write of the answers (ENOSPC: /dev/full) stops lookup with exit 2 and a message,
# in batch mode at the first failed flush instead of reading all of stdin.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ilmap lookup f.ilmap 10 7 >/dev/full; echo "lookup: exit $?"
yes '10 7' | head -n 100000 | ilmap lookup f.ilmap --batch >/dev/full; echo "batch: exit ${PIPESTATUS[2]}"
