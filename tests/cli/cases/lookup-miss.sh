# lookup with no answer: ??:0:0 and exit 3 (a row beyond the method table).
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ilmap lookup f.ilmap 0x06000fff 0
