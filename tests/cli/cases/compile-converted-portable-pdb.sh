# The other direction of compile-converted-pdb: a Portable PDB converted from a Windows one
# (Pdb2Pdb takes the GUID and stamp of the PE's CodeView entry as the Portable PDB's id) beside a
# PE whose CodeView entry still names a Windows PDB (version 0). compile finds it beside the PE
# and with --pdb, by GUID and stamp; a PDB of another stamp is still a mismatch (exit 3). The PE is
# the corpus Features DLL with its CodeView entry marked Windows (GUID, stamp and age kept), beside
# its own Portable PDB, whose id is that GUID and stamp.
. "$(dirname "$0")/../common.sh"
need "$FEATURES.dll" "$FEATURES.pdb"
cp "$FEATURES.dll" f.dll
cp "$FEATURES.pdb" f.pdb
codeview_mark f.dll 0
ilmap info f.dll | grep -E '^codeview\[0\]\.(portable|age|version):'
ilmap compile -q f.dll -o beside.ilmap; echo "beside: exit $?"
mkdir other && mv f.pdb other/
ilmap compile -q f.dll --pdb other/f.pdb -o with-pdb.ilmap; echo "--pdb: exit $?"
for c in beside with-pdb; do
  if cmp -s <(ilmap dump --sequence-points other/f.pdb) <(ilmap dump --sequence-points $c.ilmap); then
    echo "$c: dump of the cache equals dump of the PDB ($(ilmap dump --sequence-points other/f.pdb | grep -vc '^#') points)"
  else
    echo "$c: dump differs"
  fi
done
ilmap lookup beside.ilmap 0x06000005 6
# A PDB whose stamp differs from the entry's is not this PE's.
cp f.dll stale.dll && codeview_mark stale.dll 0 1
ilmap compile -q stale.dll --pdb other/f.pdb -o stale.ilmap; echo "stale: exit $?"
if [[ -e stale.ilmap ]]; then echo "stale: a cache was written"; else echo "stale: no cache written"; fi
