# A PDB truncated while compile has it mapped (test hook: FileBytes truncates the file to 4096
# bytes right after mapping it): a clean error, exit 2, no cache; before the guard: Bus error.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb"
cp "$FRAMES.pdb" frames.pdb
ILMAP_TEST_SHRINK_INPUT=frames.pdb ilmap compile -q frames.pdb -o f.ilmap
echo "exit $?"
[[ -e f.ilmap ]] || echo "no cache written"
