# lookup --batch: one answer line per stdin line, malformed lines get "error: ..." and the run
# goes on; exit 1 when any line was malformed (issue 9 item 24), 0 when none was.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
printf '%s\n' '0x0600000a 7' '10 0x7' 'hello' '0x0600000a' '' '0x0200000a 1' '10 -1' \
  '99999 0' '  0x06000014	9  ' '10 7 8' '0x06000013 5' | ilmap lookup f.ilmap --batch; echo "exit $?"
# The last line may lack its newline.
printf '0x0600000a 7' | ilmap lookup f.ilmap --batch; echo "exit $?"
# METHOD/IL_OFFSET together with --batch is a usage error.
ilmap lookup f.ilmap 10 7 --batch </dev/null; echo "exit $?"
