# store add: the cache of a PDB takes the method names and PE identity of the PE beside it when
# that PE's CodeView entry names the PDB, and the cache of a PE's embedded PDB those of the PE
# itself (one compile path with `ilmap compile`); a PE beside that names another PDB gives none.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$EMBEDDED_DLL"
show() { ilmap info "$1" | grep -E '^(pe_name|method_names|method_name_count|assembly_name):'; }
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" "$EMBEDDED_DLL" in/
ilmap store add st in >/dev/null; echo "exit $?"
show st/ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF/ilmap.corpus.frames.ilmap
show st/ilmap.corpus.featuresembedded.pdb/02efd7a70cfe4fbfb6a51ab6712bbf60FFFFFFFF/ilmap.corpus.featuresembedded.ilmap
# The PDB alone, beside a PE of its name that is another assembly: no names, no PE identity.
mkdir other && cp "$FRAMES.pdb" other/ && cp "$EMBEDDED_DLL" other/Ilmap.Corpus.Frames.dll
ilmap store add st2 other/Ilmap.Corpus.Frames.pdb >/dev/null; echo "exit $?"
show st2/ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF/ilmap.corpus.frames.ilmap
echo "shown"
