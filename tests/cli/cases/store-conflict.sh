# store: different bytes under an existing key are refused (exit 3) and the stored file is
# untouched; store verify finds a file under the wrong key (3) and a corrupt cache (2); keys
# with '..' or the wrong shape are usage errors; a missing key is exit 3.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb"
F=Ilmap.Corpus.Frames.pdb
cp "$FRAMES.pdb" $F
ilmap store add st $F >/dev/null; echo "exit $?"
K=ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF
# Same name and key, other bytes: flip one byte outside the id (the last byte of the file).
mkdir other && cp $F other/$F
printf '\x55' | dd of=other/$F bs=1 seek=$(( $(stat -c %s $F) - 1 )) conv=notrunc 2>/dev/null
cmp -s $F other/$F || echo "other bytes"
ilmap store add st other/$F; echo "exit $?"
cmp "st/$K/ilmap.corpus.frames.pdb" $F && echo "stored file untouched"
ilmap store get st "../$K/x"; echo "exit $?"
ilmap store get st "$K"; echo "exit $?"
ilmap store get st "ilmap.corpus.frames.pdb/00000000000000000000000000000000FFFFFFFF/ilmap.corpus.frames.pdb"; echo "exit $?"
ilmap store verify st; echo "exit $?"
# A PDB under another PDB's key.
cp "$FEATURES.pdb" "st/$K/ilmap.corpus.frames.pdb"
ilmap store verify st; echo "exit $?"
# A corrupt cache.
cp $F "st/$K/ilmap.corpus.frames.pdb"
printf 'XXXX' | dd of="st/$K/ilmap.corpus.frames.ilmap" bs=1 seek=200 conv=notrunc 2>/dev/null
ilmap store verify st; echo "exit $?"
# store add repairs a bad cache (derived data) but never a bad PDB.
ilmap store add st $F; echo "exit $?"
ilmap store verify st; echo "exit $?"
