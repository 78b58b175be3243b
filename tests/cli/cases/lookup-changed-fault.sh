# The SIGBUS guard in `lookup --batch` (issue 9 item 6), without the stat check: the cache is
# removed (stat fails, so the batch keeps its mapping, which stays valid for a deleted file),
# then truncated through a second hard link. The next lookup reads past the new end: the guard
# gives zeros instead of SIGBUS, the answer is dropped, the file cannot be opened again, and the
# query gets an error line; the run exits 2.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ln f.ilmap link.ilmap
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
rm f.ilmap
ask '0x06000014 9'
truncate -s 0 link.ilmap
ask '10 7'
exec 3>&-
wait "$lk"
echo "exit $?"
cat lk.err
