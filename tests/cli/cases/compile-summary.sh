# Summary of a multi-input compile (issue 9 item 24): it counts compiled / up to date /
# skipped / failed, so a rerun where nothing was rebuilt says "0 compiled, 2 up to date". A
# cache given as input is bad input (exit 2) with a hint, not a usage error.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb"
mask() { sed -E 's/, [0-9]+ bytes, [0-9.]+ bytes\/point\)/, N bytes, N bytes\/point)/'; }
cp "$FRAMES.pdb" a.pdb
cp "$FEATURES.pdb" b.pdb
ilmap compile -j 1 a.pdb b.pdb | mask; echo "exit ${PIPESTATUS[0]}"
ilmap compile -j 1 a.pdb b.pdb; echo "exit $?"
cp "$FRAMES.pdb" b.pdb
ilmap compile -j 1 a.pdb b.pdb | mask; echo "exit ${PIPESTATUS[0]}"
ilmap compile -q a.pdb b.pdb; echo "exit $?"
ilmap compile a.ilmap 2>&1; echo "exit $?"
ilmap compile a.ilmap -o x.ilmap 2>&1; echo "exit $?"
ls
