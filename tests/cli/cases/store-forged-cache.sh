# A cache is stored only beside the bytes it was compiled from (docs/symbol-stores.md "What is
# trusted"). A package holding a PE that is not Frames, whose embedded PDB (the Features PDB) claims
# the id, GUID, stamp and name of Ilmap.Corpus.Frames.pdb and whose documents get package-source
# URLs, is refused (exit 3) before anything is written: the stored Frames cache keeps answering for
# Frames, and the PE is not stored. A cache that does not derive from the PDB beside it (the forged
# one put there by hand) fails `store verify` (exit 3). Another package repeating the Frames PDB
# with other sources does not replace the URLs of the first.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
forge() { python3 "$(dirname "$0")/../mkforged.py" "$@" || exit 1; }
mk() { python3 "$(dirname "$0")/../mkzip.py" "$@" || exit 1; }
forge setid "$FEATURES.pdb" "$FRAMES.pdb" forged.pdb
forge pe Evil.dll forged.pdb "$FRAMES.pdb" Ilmap.Corpus.Frames.pdb
mk evil.symbols.nupkg Evil.nuspec=nuspec:Evil/1.0.0 "lib/Evil.dll=@Evil.dll" \
  'src/Features/Generics.cs=text:// evil' 'src/Features/ControlFlow.cs=text:// evil'
ilmap store add st "$FRAMES.pdb" >/dev/null; echo "store add exit $?"
C=$(echo st/ilmap.corpus.frames.pdb/*/ilmap.corpus.frames.ilmap)
cp "$C" frames.ilmap
answer() { ilmap lookup "$1" 0x06000001 0 | cut -f1 -d:; }
echo "--- the hostile package"
ilmap store add st evil.symbols.nupkg --sources SRC --source-url-root https://src.example/s/ 2>err.txt; echo "exit $?"
sed -E 's/[0-9a-f]{64}/HASH/g' err.txt
cmp -s frames.ilmap "$C" && echo "cache unchanged"
answer "$C"
ls st
ilmap store verify st; echo "verify exit $?"
echo "--- a cache of another PDB placed beside Frames"
ilmap compile -q Evil.dll -o evil.ilmap || exit 1
cp evil.ilmap "$C"
ilmap store verify st 2>&1 | sed -E 's/[0-9a-f]{64}/HASH/g'; echo "verify exit ${PIPESTATUS[0]}"
echo "--- store add repairs it"
ilmap store add st "$FRAMES.pdb"; echo "exit $?"
cmp -s frames.ilmap "$C" && echo "cache restored"
echo "--- the first package's URLs stay"
mk a.symbols.nupkg A.nuspec=nuspec:A/1.0.0 "lib/Ilmap.Corpus.Frames.pdb=@$FRAMES.pdb" 'src/Frames/Program.cs=text:// a'
mk b.symbols.nupkg B.nuspec=nuspec:B/6.6.6 "lib/Ilmap.Corpus.Frames.pdb=@$FRAMES.pdb" 'src/Frames/Program.cs=text:// b'
ilmap store add st2 a.symbols.nupkg --sources SRC --source-url-root https://src.example/s/; echo "exit $?"
C2=$(echo st2/ilmap.corpus.frames.pdb/*/ilmap.corpus.frames.ilmap)
ilmap lookup --json "$C2" 0x06000001 0 | grep -o '"url":"[^"]*"'
ilmap store add st2 b.symbols.nupkg --sources SRC --source-url-root https://src.example/s/; echo "exit $?"
ilmap lookup --json "$C2" 0x06000001 0 | grep -o '"url":"[^"]*"'
ilmap store verify st2; echo "verify exit $?"
