# Temporary files do not outlive a killed compile (issue 9 item 3). SIGTERM and SIGHUP remove
# the live temporary before the process dies of the signal; after a SIGKILL the stale
# temporary is removed by the next compile of the same output, but one that a live process
# holds locked, and files of other outputs' naming, are kept. Long output names use the hashed
# temporary name (".ilmap-tmp-HASH-XXXXXX"), which is cleaned up the same way.
# ILMAP_TEST_PAUSE_BEFORE_RENAME makes the compile wait after writing its temporary file.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb"
cp "$FRAMES.pdb" app.pdb
# killed SIGNAL PATTERN ARGS...: runs `ilmap compile -q ARGS` paused before its rename, sends
# SIGNAL once a file matching PATTERN (its temporary) exists, prints the exit status. A child
# shell owns the job, so that bash's "Killed" notice goes to /dev/null, not to our stderr.
killed() {
  local sig=$1 pattern=$2
  shift 2
  SIG=$sig PATTERN=$pattern bash -c '
    ILMAP_TEST_PAUSE_BEFORE_RENAME=30 ilmap compile -q "$@" &
    pid=$!
    for i in $(seq 200); do compgen -G "$PATTERN" >/dev/null && break; sleep 0.05; done
    compgen -G "$PATTERN" >/dev/null || echo "no $PATTERN appeared"
    kill -s "$SIG" $pid
    wait $pid
    echo "SIG$SIG: exit $?"' killed "$@" 2>/dev/null
}
# listing: the directory with the random part of temporary names masked.
listing() { ls -A | sed -E '/held01|abcdef/!s/tmp-[A-Za-z0-9]{6}$/tmp-XXXXXX/; s/-[0-9a-f]{16}-[A-Za-z0-9]{6}$/-HASH-XXXXXX/'; }
for sig in TERM HUP; do
  killed $sig 'app.ilmap.tmp-*' app.pdb
  listing
done
killed KILL 'app.ilmap.tmp-*' app.pdb
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
killed KILL '.ilmap-tmp-*' app.pdb -o "$long"
listing | cut -c1-40
ilmap compile -q app.pdb -o "$long"; echo "exit $?"
listing | cut -c1-40
