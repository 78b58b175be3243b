# Atomic writes: when writing fails (ILMAP_FAIL_WRITE_AFTER=100: ENOSPC after 100 bytes), an
# existing cache is unchanged, a new one does not appear, and no temporary file remains.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb"
cp "$FRAMES.pdb" app.pdb
ilmap compile -q app.pdb; echo "exit $?"
cp app.ilmap saved.ilmap
cp "$FEATURES.pdb" app.pdb   # the input changes: the cache is out of date and must be rewritten
ILMAP_FAIL_WRITE_AFTER=100 ilmap compile app.pdb 2>&1; echo "exit $?"
cmp app.ilmap saved.ilmap && echo "existing cache unchanged"
ILMAP_FAIL_WRITE_AFTER=100 ilmap compile app.pdb -o new.ilmap 2>&1; echo "exit $?"
ILMAP_FAIL_WRITE_AFTER=0 ilmap compile --force app.pdb 2>&1; echo "exit $?"
cmp app.ilmap saved.ilmap && echo "existing cache unchanged"
ILMAP_FAIL_WRITE_AFTER=100 ilmap compile --force --fsync app.pdb 2>&1; echo "exit $?"
cmp app.ilmap saved.ilmap && echo "existing cache unchanged"
ls -A
# Without the fault the same command succeeds, with or without --fsync, and gives the same bytes.
ilmap compile -q app.pdb; echo "exit $?"
cmp -s app.ilmap saved.ilmap || echo "cache replaced"
cp app.ilmap nosync.ilmap
ilmap compile -q --force --fsync app.pdb; echo "exit $?"
cmp app.ilmap nosync.ilmap && echo "same bytes with --fsync"
rm nosync.ilmap
ls -A
