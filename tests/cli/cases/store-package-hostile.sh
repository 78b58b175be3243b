# store add of hostile NuGet packages (built byte by byte by mkzip.py): traversal ("../",
# absolute, backslash, drive, percent-encoded ".."), symlink entries, a 10 GB declared size,
# 100,000 entries, a compression-ratio bomb, an entry inflating past (or short of) its
# declared size, no .nuspec, a bad id, not a zip. Each is refused (exit 2) naming the entry,
# before anything is written: no store, no source store, nothing outside. A source store
# whose package directory is a symlink is never written through.
. "$(dirname "$0")/../common.sh"
need "$FEATURES.pdb" "$FEATURES.dll"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
mk() { python3 "$(dirname "$0")/../mkzip.py" "$@" || exit 1; }
NS=P.nuspec=nuspec:P/1.0.0
mk dotdot.nupkg $NS '../evil.pdb=text:x'
mk abs.nupkg $NS '/tmp/evil.pdb=text:x'
mk bslash.nupkg $NS 'lib\..\..\evil.pdb=text:x'
mk pct.nupkg $NS 'lib/%2e%2e/%2E%2E/evil.pdb=text:x'
mk drive.nupkg $NS 'C:evil.pdb=text:x'
mk link.nupkg $NS 'lib/x.pdb=text:/etc/passwd:symlink'
mk huge.nupkg $NS 'lib/x.pdb=text:x:size=10737418240'
mk ratio.nupkg $NS 'lib/x.pdb=zeros:8388608:deflate'
mk longer.nupkg $NS "lib/x.pdb=@$FEATURES.pdb:deflate:size=100"
mk shorter.nupkg $NS "lib/x.pdb=@$FEATURES.pdb:deflate:size=900000"
mk many.nupkg $NS --many 100000
mk nonuspec.nupkg "lib/x.pdb=@$FEATURES.pdb"
mk badid.nupkg 'P.nuspec=nuspec:../x/1.0' "lib/x.pdb=@$FEATURES.pdb"
echo "not a zip" >junk.nupkg
for p in dotdot abs bslash pct drive link huge ratio longer shorter many nonuspec badid junk; do
  ilmap store add st $p.nupkg --sources src --source-url-root http://s/; echo "$p: exit $?"
done
ls -A | grep -v '\.nupkg$'
echo "--- symlinked source store"
mkdir -p outside src/P && ln -s ../../outside src/P/1.0.0
mk srcpkg.symbols.nupkg $NS "lib/x.pdb=@$FEATURES.pdb" 'src/Features/Generics.cs=text:class G {}'
ilmap store add st srcpkg.symbols.nupkg --sources src --source-url-root http://s/; echo "exit $?"
ls -A outside | wc -l
ls -A st 2>/dev/null | wc -l
