# lookup, text: path:line:column; a token or a decimal row; decimal or 0x offsets.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ilmap lookup f.ilmap 0x0600000a 7; echo "exit $?"
ilmap lookup f.ilmap 10 7; echo "exit $?"
ilmap lookup f.ilmap 0x0600000A 0x7; echo "exit $?"
ilmap lookup f.ilmap 0x06000014 9; echo "exit $?"
