# store watch: packages dropped into an inbox are claimed one at a time, added, archived, or
# moved to failed/ with a reason file; dotfiles, other names and files younger than --settle
# are left. Killed (test hook ILMAP_TEST_WATCH_KILL) after storing a package's first file, or
# right after a claim, the next run resumes the claimed package: every file stored once (the
# killed run's "already present"), the package archived once. A package whose processing
# started 3 times fails instead of looping; a second watcher of the inbox is refused; SIGTERM
# ends a polling watcher cleanly.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb" "$FEATURES.dll"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
mk() { python3 "$(dirname "$0")/../mkzip.py" "$@" || exit 1; }
mk good.nupkg P.nuspec=nuspec:P/1.0.0 "lib/a/Ilmap.Corpus.Frames.dll=@$FRAMES.dll" "lib/a/Ilmap.Corpus.Frames.pdb=@$FRAMES.pdb" \
  "lib/b/Ilmap.Corpus.Features.dll=@$FEATURES.dll" "lib/b/Ilmap.Corpus.Features.pdb=@$FEATURES.pdb:deflate"
mk bad.snupkg P.nuspec=nuspec:P/1.0.0 '../x.pdb=text:x'
mkdir in
cp good.nupkg in/.good.nupkg.part
cp good.nupkg in/good.nupkg
cp bad.snupkg in/bad.snupkg
echo hi >in/readme.txt
echo "--- killed after the first file of good.nupkg"
# (bash -c: the "Killed" notice goes to its stderr, not the test's)
bash -c 'ILMAP_TEST_WATCH_KILL=after-first-file ilmap store watch in st --once --settle 0; echo "exit $?"' 2>/dev/null
ls -A in in/.ilmap-work | grep -v '^\.lock$'
find st -type f -name '*.*' ! -name '.ilmap-store.lock' | wc -l
echo "--- resumed"
ilmap store watch in st --once --settle 0 --archive arch; echo "exit $?"
ls -A in in/failed arch | grep -v '^\.lock$'
cat in/failed/bad.snupkg.reason
find st -type f ! -name '.ilmap-store.lock' | wc -l
ilmap store verify st; echo "exit $?"
echo "--- killed right after claiming; the same name again"
cp good.nupkg in/good.nupkg
bash -c 'ILMAP_TEST_WATCH_KILL=after-claim ilmap store watch in st --once --settle 0 --archive arch; echo "exit $?"' 2>/dev/null
ls -A in/.ilmap-work | grep -v '^\.lock$'
ilmap store watch in st --once --settle 0 --archive arch | grep -v '^good.nupkg: already present: '; echo "exit $?"
ls arch
echo "--- settle, a crash loop"
cp good.nupkg in/young.nupkg
cp good.nupkg in/.ilmap-work/loop.nupkg && echo 3 >in/.ilmap-work/loop.nupkg.attempts
ilmap store watch in st --once --settle 3600 --archive arch; echo "exit $?"
cat in/failed/loop.nupkg.reason
ls -A in/.ilmap-work in | grep -v '^\.lock$'
echo "--- a polling watcher, a second one, SIGTERM"
ilmap store watch in st --settle 0 --interval 0.1 --archive arch >bg.out 2>&1 &
pid=$!
for _ in $(seq 1 100); do [[ -e arch/young.nupkg ]] && break; sleep 0.1; done
ilmap store watch in st --once; echo "exit $?"
kill -TERM $pid; wait $pid; echo "exit $?"
grep -v 'already present' bg.out
