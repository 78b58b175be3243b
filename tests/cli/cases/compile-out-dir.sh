# compile DIR --out-dir OUT: recursive, mirrors folders, compiles a DLL through its same-named .pdb,
# compiles DLLs without one (embedded PDB), ignores other files.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$EMBEDDED_DLL" "$FEATURES.pdb"
mkdir -p in/a in/b/c in/empty
cp "$FRAMES.pdb" "$FRAMES.dll" in/a/
cp "$EMBEDDED_DLL" in/b/c/
cp "$FEATURES.pdb" in/top.pdb
echo "not an input" >in/b/readme.txt
ilmap compile in --out-dir out -j 1; echo "exit $?"
(cd out && find . -type f | sort)
echo "-- source tree unchanged:"
(cd in && find . -type f | sort)
for f in $(cd out && find . -name '*.ilmap' | sort); do ilmap verify "out/$f" >/dev/null || echo "verify $f failed"; done
# Parallel compilation writes the same bytes and prints the same messages, in input order.
ilmap compile in --out-dir out2 -j 2 | sed 's/out2/out/' >jobs2.txt
ilmap compile --force in --out-dir out3 -j 1 | sed 's/out3/out/' >jobs1.txt
cmp -s jobs1.txt jobs2.txt && echo "same messages with -j 2"
diff -r out out2 && echo "same bytes with -j 2"
rm -rf out2 out3 jobs1.txt jobs2.txt
# Without --out-dir, caches go beside their inputs.
ilmap compile -q in/a; echo "exit $?"
ls in/a
