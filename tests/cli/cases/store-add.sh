# store add: PE and PDB under their SSQP keys, the cache beside the PDB (answers lookup); the
# same files again are "already present"; store get by key (any case) and --for; store verify.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$EMBEDDED_DLL"
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" "$EMBEDDED_DLL" in/
ilmap store add st in; echo "exit $?"
ilmap store add st in/Ilmap.Corpus.Frames.pdb; echo "exit $?"
find st -type f | sort
K=ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF
ilmap lookup "st/$K/ilmap.corpus.frames.ilmap" 0x06000001 0; echo "exit $?"
ilmap store get st "$K/ilmap.corpus.frames.pdb"; echo "exit $?"
ilmap store get st "ILMAP.corpus.frames.pdb/6C544A863CCB4FA9810A691444A2B613ffffffff/ilmap.corpus.frames.PDB"; echo "exit $?"
ilmap store get st "$K/ilmap.corpus.frames.pdb" -o got.pdb; echo "exit $?"
cmp got.pdb in/Ilmap.Corpus.Frames.pdb && echo "copy equal"
ilmap store get st --for in/Ilmap.Corpus.Frames.dll; echo "exit $?"
ilmap store get st --for in/Ilmap.Corpus.FeaturesEmbedded.dll; echo "exit $?"
ilmap store verify st; echo "exit $?"
