# A cache overwritten in place by another cache of the same size (dd conv=notrunc: no
# truncation, so no SIGBUS, only changed bytes) under a running `lookup --batch` (issue 9 item
# 6): the batch notices (stat: size, times, inode) and answers from the new cache, not from a
# splice of the old layout and the new bytes. The new cache names the document "Scenarioz.cs"
# and, compiled from a longer file name, has its sections at other offsets.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
mkdir other
perl -0777 -pe 's/Scenarios\.cs/Scenarioz.cs/' frames.pdb > other/framesa.pdb
ilmap compile -q other/framesa.pdb -o g.ilmap || exit 1
[[ $(stat -c %s f.ilmap) == $(stat -c %s g.ilmap) ]] && echo "same size"
cmp -s f.ilmap g.ilmap || echo "different bytes"
touch -d @1000000000 f.ilmap  # an old mtime: the overwrite surely changes it
coproc LK { ilmap lookup f.ilmap --batch 2>lk.err; echo "exit $?" >lk.rc; }
ask() {
  local ans
  echo "$1" >&"${LK[1]}"
  IFS= read -r -t 30 ans <&"${LK[0]}" || ans="(no answer)"
  echo "$1 -> $ans"
}
ask '10 7'
ask '0x06000014 9'
dd if=g.ilmap of=f.ilmap conv=notrunc status=none
ask '10 7'
ask '0x06000014 9'
eval "exec ${LK[1]}>&-"
wait "$LK_PID"
cat lk.rc
cat lk.err
