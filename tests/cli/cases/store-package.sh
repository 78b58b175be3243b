# store add of a legacy symbols package with sources (hand-made: no SDK needed): the PE and
# PDB are stored with the cache beside the PDB; every src/ file is published under
# SRC/<id>/<version>/ (OPC percent-encoded names decoded); each document of the PDB (no
# SourceLink) gets the URL of the package file with the longest common path suffix (case
# ignored; ties: fewer components, then the smaller path), which lookup prints. Adding it again
# is a no-op; its .snupkg afterwards keeps the cache with URLs; a PDB with SourceLink keeps its
# SourceLink URLs; a source that differs from the one published is refused (exit 3).
. "$(dirname "$0")/../common.sh"
need "$FEATURES.pdb" "$FEATURES.dll" "$CORPUS/out/cs-sourcelink/Ilmap.Corpus.Shapes.pdb"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
mk() { python3 "$(dirname "$0")/../mkzip.py" "$@" || exit 1; }
NS=Ilmap.Corpus.Features.nuspec=nuspec:Ilmap.Corpus.Features/1.0.0
mk pkg.symbols.nupkg $NS "lib/net10.0/Ilmap.Corpus.Features.dll=@$FEATURES.dll:deflate" \
  "lib/net10.0/Ilmap.Corpus.Features.pdb=@$FEATURES.pdb:deflate" \
  'src/Features/ControlFlow.cs=text:// cf' 'src/Other/ControlFlow.cs=text:// other cf' \
  'src/B/Generics.cs=text:// b' 'src/A/Generics.cs=text:// a' \
  'src/Features/Gr%C3%BC%C3%9Fe/%C3%9Cn%C3%AFc%C3%B8d%C3%A9.cs=text:// u' \
  'src/x/y/widget.part1.cs=text:// w1' 'src/Widget.Part2.cs=text:// w2' 'src/notes.txt=text:n'
ilmap store add st pkg.symbols.nupkg --sources SRC --source-url-root https://src.example/s/; echo "exit $?"
(cd SRC && find . -type f | sort)
C=st/ilmap.corpus.features.pdb/3e15b72355d54b27bbbaed51547e5544FFFFFFFF/ilmap.corpus.features.ilmap
urls() {
  ilmap dump "$1" | grep -v hidden | sort -u -k3,3 | while read -r m o f rest; do
    ilmap lookup --json "$1" "$m" "$o" | sed -E 's/.*"file":"([^"]*)".*"url":(null|"[^"]*").*/\1 \2/'
  done
}
urls "$C"
echo "--- again, then the snupkg (no sources)"
ilmap store add st pkg.symbols.nupkg --sources SRC --source-url-root https://src.example/s/ | grep -vc '^already present: \|^source already present: \|matched\|^0 added, '
mk pkg.snupkg $NS "lib/net10.0/Ilmap.Corpus.Features.pdb=@$FEATURES.pdb"
ilmap store add st pkg.snupkg; echo "exit $?"
urls "$C" | grep -c 'https://src.example/s/Ilmap.Corpus.Features/1.0.0/'
ilmap store verify st; echo "exit $?"
echo "--- a PDB with SourceLink"
mk shapes.symbols.nupkg Shapes.nuspec=nuspec:Shapes/2.0.0-beta \
  "lib/Ilmap.Corpus.Shapes.pdb=@$CORPUS/out/cs-sourcelink/Ilmap.Corpus.Shapes.pdb" 'src/Shapes/Shapes.cs=text:s'
ilmap store add st shapes.symbols.nupkg --sources SRC --source-url-root https://src.example/s/ | grep -v '^added'; echo "exit $?"
urls st/ilmap.corpus.shapes.pdb/*/ilmap.corpus.shapes.ilmap | head -n 2
echo "--- the same version with another source"
mk other.symbols.nupkg $NS 'src/A/Generics.cs=text:// changed'
ilmap store add st other.symbols.nupkg --sources SRC --source-url-root https://src.example/s/; echo "exit $?"
cat SRC/Ilmap.Corpus.Features/1.0.0/A/Generics.cs; echo
echo "--- usage"
ilmap store add st pkg.snupkg --sources SRC; echo "exit $?"
