# A cache truncated in place under a running `lookup --batch` (issue 9 item 6): no SIGBUS death.
# The batch, driven as a coprocess one query at a time (deterministic order), answers the
# queries it cannot answer from the truncated file with an error line saying why, answers
# again once the file is a valid cache again, and exits 2 with a message.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
cp f.ilmap good.ilmap
coproc LK { ilmap lookup f.ilmap --batch 2>lk.err; echo "exit $?" >lk.rc; }
ask() {
  local ans
  echo "$1" >&"${LK[1]}"
  IFS= read -r -t 30 ans <&"${LK[0]}" || ans="(no answer)"
  echo "$1 -> $ans"
}
ask '10 7'
truncate -s 0 f.ilmap
ask '10 7'
ask '0x06000014 9'
cp good.ilmap f.ilmap  # written in place again: a valid cache again
ask '10 7'
eval "exec ${LK[1]}>&-"
wait "$LK_PID"
cat lk.rc
cat lk.err
