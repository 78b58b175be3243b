# store add with bad inputs: a PE whose embedded PDB is corrupt adds nothing (not even the PE);
# a file that is no PE/PDB is refused (exit 2); the good inputs of a directory are still added.
. "$(dirname "$0")/../common.sh"
need "$EMBEDDED_DLL" "$FRAMES.pdb"
cp "$EMBEDDED_DLL" e.dll
off=$(grep -boa MPDB e.dll | head -1 | cut -d: -f1)
printf 'XXXXXXXXXXXXXXXX' | dd of=e.dll bs=1 seek=$((off + 48)) conv=notrunc 2>/dev/null
ilmap store add st e.dll; echo "exit $?"
[[ -d st ]] && find st -type f -not -name .ilmap-store.lock | wc -l || echo "no store"
mkdir in && echo "not a pdb" >in/a.pdb && cp "$FRAMES.pdb" in/
ilmap store add st in; echo "exit $?"
ilmap store verify st; echo "exit $?"
