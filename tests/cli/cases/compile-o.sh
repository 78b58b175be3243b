# compile -o: one input to a named output; the cache verifies and answers.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb"
cp "$FRAMES.pdb" frames.pdb
mkdir out
ilmap compile frames.pdb -o out/frames-cache.ilmap; echo "exit $?"
ls
ls out
ilmap verify out/frames-cache.ilmap; echo "exit $?"
# -o with two inputs, or with --out-dir, is a usage error.
ilmap compile frames.pdb frames.pdb -o x.ilmap; echo "exit $?"
ilmap compile frames.pdb -o x.ilmap --out-dir d 2>/dev/null; echo "exit $?"
ls
