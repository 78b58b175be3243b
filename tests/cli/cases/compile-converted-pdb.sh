# A PDB converted from Portable to Windows (what Pdb2Pdb and symbol servers make for older
# debuggers) keeps the GUID and has age 1, while the DLL's CodeView entry still says Portable
# (version 0x0100.0x504d). compile finds it beside the DLL and with --pdb, by GUID and age; its
# cache lists every point of the PDB. The DLL is the symreader-converter Async.dll with its
# CodeView entry marked Portable (the stamp and age kept), beside the real Windows Async.pdb.
. "$(dirname "$0")/../common.sh"
shared=${ILMAP_SHARED_DIR:-$CORPUS/../../shared}/corpus-public/win_symreader_Async
need "$shared/Async.dll" "$shared/Async.pdb"
cp "$shared/Async.dll" "$shared/Async.pdb" .
[[ $(ilmap info Async.dll | grep -c '^codeview\[0\]\.version: *0x0000\.0x0000$') == 1 ]] ||
  { echo "corpus DLL changed: one Windows CodeView entry expected"; exit 1; }
codeview_mark Async.dll 0x504d
ilmap info Async.dll | grep -E '^codeview\[0\]\.(portable|age|version):'
ilmap compile -q Async.dll -o beside.ilmap; echo "beside: exit $?"
mkdir other && mv Async.pdb other/
ilmap compile -q Async.dll --pdb other/Async.pdb -o with-pdb.ilmap; echo "--pdb: exit $?"
# The reference listing of the PDB (Mono.Cecil's reader, ../shared/corpus-public).
grep -v '^#' "$shared/expected-sequence-points.txt" > expected.txt
for c in beside with-pdb; do
  if ilmap dump --sequence-points $c.ilmap | grep -v '^#' | cmp -s - expected.txt; then
    echo "$c: dump of the cache equals the reference listing ($(wc -l < expected.txt) points)"
  else
    echo "$c: dump differs from the reference listing"
  fi
done
ilmap lookup beside.ilmap 0x06000005 45
