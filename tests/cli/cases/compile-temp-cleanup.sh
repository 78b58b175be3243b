# Temporary files do not outlive a killed compile (issue 9 item 3). SIGTERM and SIGHUP remove
# the live temporary before the process dies of the signal; after a SIGKILL the stale
# temporary is removed by the next compile of the same output, but one that a live process
# holds locked, and files of other outputs' naming, are kept. Long output names use the hashed
# temporary name (".ilmap-tmp-HASH-XXXXXX"), which is cleaned up the same way.
# ILMAP_TEST_PAUSE_BEFORE_RENAME makes the compile wait after writing its temporary file.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb"
cp "$FRAMES.pdb" app.pdb
# wait_for PATTERN: until a file matching PATTERN exists (at most 10 s).
wait_for() {
  local i
  for i in $(seq 200); do compgen -G "$1" >/dev/null && return 0; sleep 0.05; done
  echo "no $1 appeared"
}
# listing: the directory with the random part of temporary names masked.
listing() { ls -A | sed -E '/held01|abcdef/!s/tmp-[A-Za-z0-9]{6}$/tmp-XXXXXX/; s/-[0-9a-f]{16}-[A-Za-z0-9]{6}$/-HASH-XXXXXX/'; }
for sig in TERM HUP; do
  ILMAP_TEST_PAUSE_BEFORE_RENAME=30 ilmap compile -q app.pdb &
  pid=$!
  wait_for 'app.ilmap.tmp-*'
  kill -s $sig $pid
  { wait $pid; } 2>/dev/null
  echo "SIG$sig: exit $?"
  listing
done
ILMAP_TEST_PAUSE_BEFORE_RENAME=30 ilmap compile -q app.pdb &
pid=$!
wait_for 'app.ilmap.tmp-*'
kill -s KILL $pid
{ wait $pid; } 2>/dev/null
echo "SIGKILL: exit $?"
listing
# A temporary of the same naming held by a live process, and other names, are left alone.
touch app.ilmap.tmp-held01 app.ilmap.tmp-toolong1 other.ilmap.tmp-abcdef
# This shell holds the lock (through fd 9, whose open file description flock(1) locked).
exec 9<>app.ilmap.tmp-held01
flock -x 9
flock -n app.ilmap.tmp-held01 true || echo "held01 is locked"
ilmap compile -q app.pdb; echo "exit $?"
listing
exec 9>&-
ilmap verify app.ilmap
rm app.ilmap.tmp-held01 app.ilmap.tmp-toolong1 other.ilmap.tmp-abcdef app.ilmap
# The same with a 250-byte output name (hashed temporary names).
long=$(printf 'n%.0s' $(seq 244)).ilmap
ILMAP_TEST_PAUSE_BEFORE_RENAME=30 ilmap compile -q app.pdb -o "$long" &
pid=$!
wait_for '.ilmap-tmp-*'
kill -s KILL $pid
{ wait $pid; } 2>/dev/null
echo "SIGKILL: exit $?"
listing | cut -c1-40
ilmap compile -q app.pdb -o "$long"; echo "exit $?"
listing | cut -c1-40
