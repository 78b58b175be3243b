# store add into a read-only store of what it holds already says "already present" (exit 0):
# presence is checked before the store lock is taken; new content fails (exit 2). On a full
# disk (a 16 KiB tmpfs: room for the PDB, not for the PDB and its cache) store add fails and
# stores nothing, not a PDB without its cache; store verify reports a Portable PDB whose cache
# is missing (exit 3). The mounts are made in a private mount namespace (unshare -rm); the case
# is skipped where none can be made.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb"
command -v unshare >/dev/null && unshare -rm true 2>/dev/null || { echo "no private mount namespace (unshare -rm)"; exit 77; }
cp "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb" .
ilmap store add st Ilmap.Corpus.Frames.pdb Ilmap.Corpus.Frames.dll >/dev/null; echo "store add exit $?"
unshare -rm bash -u -c '
  mkdir ro full && mount --bind st ro && mount -o remount,bind,ro ro || { echo "cannot mount"; exit 1; }
  echo "-- read-only store, content already present"
  ilmap store add ro Ilmap.Corpus.Frames.pdb Ilmap.Corpus.Frames.dll; echo "exit $?"
  echo "-- read-only store, new content"
  ilmap store add ro Ilmap.Corpus.Features.pdb 2>&1 | sed "s/: [^:]*$/: REASON/"; echo "exit ${PIPESTATUS[0]}"
  echo "-- full disk"
  mount -t tmpfs -o size=16k tmpfs full || { echo "cannot mount"; exit 1; }
  ilmap store add full/st Ilmap.Corpus.Frames.pdb 2>&1 | sed "s/: [^:]*$/: REASON/"; echo "exit ${PIPESTATUS[0]}"
  (cd full && find . -type f ! -name .ilmap-store.lock | sort)
  ilmap store verify full/st; echo "verify exit $?"
'
echo "-- a Portable PDB without its cache"
rm st/ilmap.corpus.frames.pdb/*/ilmap.corpus.frames.ilmap
ilmap store verify st; echo "verify exit $?"
