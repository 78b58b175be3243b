# A cache overwritten in place by another cache of the same size (dd conv=notrunc: no
# truncation, so no SIGBUS, only changed bytes) under a running `lookup --batch` (issue 9 item
# 6): the batch notices (stat: size, times, inode) and answers from the new cache, not from a
# splice of the old layout and the new bytes. The new cache names the document "Scenarias.cs" (a name whose packed strings keep the cache size: format 2.0 packs them)
# (its lookup sections happen to keep their offsets, so this step alone passed before the fix).
# Then a larger cache of another PDB is written over it in place (rsync --inplace style): its
# sections lie elsewhere, and the old reader answered ??:0:0 from its stale layout.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
mkdir other
perl -0777 -pe 's/Scenarios\.cs/Scenarias.cs/' frames.pdb > other/frames.pdb
ilmap compile -q other/frames.pdb -o g.ilmap || exit 1
need "$FEATURES.pdb"
cp "$FEATURES.pdb" features.pdb
ilmap compile -q features.pdb -o h.ilmap || exit 1
[[ $(stat -c %s f.ilmap) == $(stat -c %s g.ilmap) ]] && echo "same size"
cmp -s f.ilmap g.ilmap || echo "different bytes"
touch -d @1000000000 f.ilmap  # an old mtime: the overwrite surely changes it
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
ask '0x06000014 9'
dd if=g.ilmap of=f.ilmap conv=notrunc status=none
ask '10 7'
ask '0x06000014 9'
dd if=h.ilmap of=f.ilmap conv=notrunc status=none
ask '10 7'
exec 3>&-
wait "$lk"
echo "exit $?"
cat lk.err
