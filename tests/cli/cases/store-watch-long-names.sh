# store watch and long package names: a failing package whose name is 250 or 255 bytes (too
# long for NAME.attempts and failed/NAME.reason) goes to failed/ once, under a name shortened
# with a hash, instead of being retried forever (a polling run bounded by timeout); for a
# 247-byte name (NAME.attempts alone too long) the crash-loop guard still counts: the fourth
# start fails the package. An --archive that is the inbox (also through a symlink or with a
# trailing /), or lies in its work or failed folder, is a usage error.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
command -v timeout >/dev/null || { echo "timeout not found"; exit 77; }
mk() { python3 "$(dirname "$0")/../mkzip.py" "$@" || exit 1; }
mk good.nupkg P.nuspec=nuspec:P/1.0.0 "lib/a/Ilmap.Corpus.Frames.dll=@$FRAMES.dll" "lib/a/Ilmap.Corpus.Frames.pdb=@$FRAMES.pdb"
mk bad.snupkg P.nuspec=nuspec:P/1.0.0 '../x.pdb=text:x'
# name LENGTH EXT - a LENGTH-byte file name ending in EXT
name() { python3 -c 'import sys; n, e = int(sys.argv[1]), sys.argv[2]; print("p" * (n - len(e)) + e)' "$1" "$2"; }
mkdir in
cp bad.snupkg "in/$(name 250 .snupkg)"
cp bad.snupkg "in/$(name 255 .nupkg)"
echo "--- failing packages with 250- and 255-byte names, a polling watcher for 3 s"
timeout -s TERM 3 ilmap store watch in st --settle 0 --interval 0.1 >watch.out 2>&1; echo "exit $?"
echo "failed lines: $(grep -c '^failed: ' watch.out)"
echo "error lines: $(grep -c 'error' watch.out)"
ls -A in/.ilmap-work | grep -v '^\.lock$'
ls in/failed | sed 's/p\{20,\}/P.../'
cat in/failed/*.reason | sed 's/p\{20,\}/P.../'
echo "--- a 247-byte name killed after its first file, four runs"
long=$(name 247 .nupkg)
cp good.nupkg "in/$long"
for run in 1 2 3 4; do
  bash -c 'ILMAP_TEST_WATCH_KILL=after-first-file ilmap store watch in st --once --settle 0 >/dev/null; echo "exit $?"' 2>/dev/null
done
ls -A in/.ilmap-work | grep -v '^\.lock$'
ls in/failed | grep -c "^ppp.*~[0-9a-f]\{16\}\.nupkg.reason$"
grep -h 'started 3 times' in/failed/*.reason | sed 's/p\{20,\}/P.../'
echo "--- --archive: the inbox, its work or failed folder"
cp good.nupkg in/again.nupkg
ln -s in inlink
for a in in in/ inlink ./in in/.ilmap-work in/failed in/failed/sub; do
  timeout 10 ilmap store watch in st --once --settle 0 --archive "$a" >/dev/null; echo "--archive $a: exit $?"
done
ls in | grep -c again.nupkg
echo "--- a folder of its own inside the inbox is fine"
ilmap store watch in st --once --settle 0 --archive in/done | grep -v 'already present'; echo "exit $?"
ls in/done
