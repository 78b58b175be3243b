# A batch with one bad file: the bad one is reported, the good ones are written, exit 2, and a
# summary line. No cache and no temporary file for the bad input.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb"
cp "$FRAMES.pdb" a.pdb
printf 'BSJB but not metadata\n' >b.pdb
cp "$FEATURES.pdb" c.pdb
ilmap compile -j 1 a.pdb b.pdb c.pdb
rc=$?
ls >&2
exit $rc
