# store add of a Windows (MSF) PDB and its PE: the PDB under GUID + age (no cache: caches are
# compiled from Portable PDBs); store get --for the PE finds it through the CodeView entry.
. "$(dirname "$0")/../common.sh"
shared=${ILMAP_SHARED_DIR:-$CORPUS/../../shared}/corpus-public/win_symreader_VB
need "$shared/VB.pdb" "$shared/VB.dll"
cp "$shared/VB.pdb" "$shared/VB.dll" .
ilmap store add st VB.dll VB.pdb; echo "exit $?"
ilmap store get st --for VB.dll; echo "exit $?"
ilmap store verify st; echo "exit $?"
