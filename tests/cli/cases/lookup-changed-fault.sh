# `lookup --batch` and a cache truncated under it without the stat check: the cache is removed
# (stat fails, so the batch keeps the Cache it has, which stays valid for a deleted file), then
# truncated through a second hard link. The truncate waits for the read lease's break handler,
# which copies the mapping: the next lookup answers from the bytes the file had at open (no
# SIGBUS, no zeros), and the run exits 0.
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
shrink 0 link.ilmap
ask '10 7'
exec 3>&-
wait "$lk"
echo "exit $?"
cat lk.err
