# METHOD as a hex value below 0x01000000 is a row number (Sentry's function_id, RFC 0013:
# the token's low 24 bits as hex), on the command line and in --batch (issue 9 item 19).
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ilmap lookup f.ilmap 0xa 7; echo "exit $?"
ilmap lookup f.ilmap 0x00000A 7; echo "exit $?"
ilmap lookup f.ilmap 0xffffff 0; echo "exit $?"
ilmap lookup f.ilmap 0x0 7; echo "exit $?"
ilmap lookup f.ilmap 0x01000000 7; echo "exit $?"
printf '%s\n' '0xa 7' '0x14 9' | ilmap lookup f.ilmap --batch --json; echo "exit $?"
