# A cache from a server (or already in the local cache) that records the Frames PDB id but was
# compiled from another PDB (the Features PDB with Frames' id patched in) is refused when the
# PE records a PdbChecksum: the cache does not record the SHA-256 the PE names. fetch then gets
# the PDB itself, checks it against the PdbChecksum and compiles its cache locally, which
# answers for Frames; the forged cache is not kept (docs/symbol-stores.md "What is trusted").
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../faultserver.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb"
forge() { python3 "$(dirname "$0")/../mkforged.py" "$@" || exit 1; }
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" in/
ilmap store add www in/Ilmap.Corpus.Frames.pdb >/dev/null; echo "store add exit $?"
F=ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF
forge setid "$FEATURES.pdb" "$FRAMES.pdb" forged.pdb
ilmap compile -q forged.pdb -o forged.ilmap || exit 1
cp forged.ilmap www/$F/ilmap.corpus.frames.ilmap
start_fault_server "$PWD/www"
tidy() { sed -E 's#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g; s#[0-9a-f]{64}#HASH#g'; }
echo "-- the server's cache is refused; the PDB is fetched and its cache compiled"
ilmap fetch -v --symbol-path "srv*c1*$FAULT_URL/ok" in/Ilmap.Corpus.Frames.dll 2>&1 | tidy; echo "exit ${PIPESTATUS[0]}"
ilmap lookup c1/$F/ilmap.corpus.frames.ilmap 0x06000001 0; echo "exit $?"
cmp -s forged.ilmap c1/$F/ilmap.corpus.frames.ilmap || echo "not the forged cache"
echo "-- lookup through the symbol path"
ilmap lookup --symbol-path "srv*c2*$FAULT_URL/ok" in/Ilmap.Corpus.Frames.dll 0x06000001 0; echo "exit $?"
echo "-- a forged cache already in the local cache is refused and replaced"
mkdir -p c3/$F && cp forged.ilmap c3/$F/ilmap.corpus.frames.ilmap
ilmap fetch --symbol-path "srv*c3*$FAULT_URL/ok" in/Ilmap.Corpus.Frames.dll | tidy; echo "exit ${PIPESTATUS[0]}"
ilmap lookup c3/$F/ilmap.corpus.frames.ilmap 0x06000001 0; echo "exit $?"
ilmap store verify c3; echo "verify exit $?"
