# A cache truncated in place under a running `lookup --batch` (issue 9 item 6): no SIGBUS death.
# The batch, driven through FIFOs one query at a time (deterministic order), answers the
# queries it cannot answer from the truncated file with an error line saying why, answers
# again once the file is a valid cache again, and exits 2 with a message.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
cp f.ilmap good.ilmap
# The batch reads queries from FIFO q and answers into FIFO a; ask() waits for each answer.
mkfifo q a
ilmap lookup f.ilmap --batch <q >a 2>lk.err &
lk=$!
exec 3>q 4<a
ask() {
  local ans
  echo "$1" >&3
  IFS= read -r -t 30 ans <&4 || ans="(no answer)"
  echo "$1 -> $ans"
}
ask '10 7'
shrink 0 f.ilmap
ask '10 7'
ask '0x06000014 9'
cp good.ilmap f.ilmap  # written in place again: a valid cache again
ask '10 7'
exec 3>&-
wait "$lk"
echo "exit $?"
cat lk.err
