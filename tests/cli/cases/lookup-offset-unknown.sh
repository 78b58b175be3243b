# IL offset -1 (the runtime's OFFSET_UNKNOWN: StackFrame.GetILOffset() is signed 32-bit) is
# accepted and answers nothing, and so does any offset >= 0x80000000 (issue 9 item 18).
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ilmap lookup f.ilmap 10 -1; echo "exit $?"
ilmap lookup f.ilmap 10 0xffffffff; echo "exit $?"
ilmap lookup f.ilmap 10 0x80000000; echo "exit $?"
ilmap lookup f.ilmap 10 0x7fffffff; echo "exit $?"
ilmap lookup f.ilmap 10 -1 --json; echo "exit $?"
printf '%s\n' '10 -1' '0x0600000a -1' '10 7' | ilmap lookup f.ilmap --batch; echo "exit $?"
