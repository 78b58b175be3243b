# An MSFZ PDB (.pdz, dotnet/diagnostics' HelloWorld.pdz) reads as the MSF PDB it holds: dump
# equals the .pdb's dump and Mono.Cecil.Pdb's listing, compile gives a cache whose dump is the
# same, info names the container and the key with msfz0; a store holds both forms, each under
# its own key, serves each and verifies both; a .pdz cut short is a clear error (exit 2). The
# caches differ only in what names their input (source_*) and hence the payload hash.
. "$(dirname "$0")/../common.sh"
shared=${ILMAP_SHARED_DIR:-$CORPUS/../../shared}/corpus-more/msfz_diagnostics_HelloWorld
need "$shared/HelloWorld.pdz" "$shared/HelloWorld.pdb" "$shared/HelloWorld.exe" "$shared/expected-sequence-points.txt"
cp "$shared/HelloWorld.pdz" "$shared/HelloWorld.pdb" "$shared/HelloWorld.exe" .
grep -v '^#' "$shared/expected-sequence-points.txt" >expected.txt
ilmap dump HelloWorld.pdz >pdz.txt; echo "dump pdz exit $?"
ilmap dump HelloWorld.pdb >pdb.txt; echo "dump pdb exit $?"
cmp -s pdz.txt pdb.txt && echo "dump: .pdz = .pdb"
cmp -s pdz.txt expected.txt && echo "dump: .pdz = Mono.Cecil.Pdb's listing"
ilmap compile -q HelloWorld.pdz -o pdz.ilmap; echo "compile exit $?"
ilmap dump pdz.ilmap >cache.txt; echo "dump cache exit $?"
cmp -s cache.txt pdb.txt && echo "dump: cache of the .pdz = .pdb"
ilmap compile -q HelloWorld.pdb -o pdb.ilmap
ilmap info pdz.ilmap >pdz-info.txt
ilmap info pdb.ilmap >pdb-info.txt
diff <(grep -v -e '^input:' -e '^source_' -e '^payload_xxh3' pdb-info.txt) \
     <(grep -v -e '^input:' -e '^source_' -e '^payload_xxh3' pdz-info.txt) && echo "info: the caches agree"
ilmap info HelloWorld.pdz | grep -E '^(kind|container|msfz_chunk_count|msf_stream_count|debug_id|ssqp_key):'
ilmap info HelloWorld.pdb | grep -E '^(container|ssqp_key):'
ilmap store add st HelloWorld.pdb HelloWorld.pdz HelloWorld.exe; echo "exit $?"
ilmap store get st helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/msfz0/helloworld.pdb -o got.pdz; echo "exit $?"
cmp -s got.pdz HelloWorld.pdz && echo "store: the .pdz comes back"
ilmap store get st helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/helloworld.pdb -o got.pdb; echo "exit $?"
cmp -s got.pdb HelloWorld.pdb && echo "store: the .pdb comes back"
ilmap store verify st; echo "exit $?"
head -c 700 HelloWorld.pdz >short.pdz
ilmap dump short.pdz; echo "exit $?"
