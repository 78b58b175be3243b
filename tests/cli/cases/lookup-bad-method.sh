# lookup with a METHOD that is not a MethodDef token or row: usage error, exit 1.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ilmap lookup f.ilmap 0x0200000a 7; echo "exit $?"
ilmap lookup f.ilmap 0x06000000 7; echo "exit $?"
ilmap lookup f.ilmap 0 7; echo "exit $?"
ilmap lookup f.ilmap Main 7
