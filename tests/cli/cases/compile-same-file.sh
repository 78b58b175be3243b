# An output that is an input is refused (exit 1) and the input stays intact, whatever the
# spelling: the same name, ./name, a hard link, a PDB named .ilmap compiled to its default
# output (itself), a symlink to the input, and the sibling PDB a PE is compiled through.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
cp "$FRAMES.pdb" in.pdb
cp in.pdb saved.pdb
ilmap compile in.pdb -o in.pdb 2>&1; echo "exit $?"
ilmap compile in.pdb -o ./in.pdb 2>&1; echo "exit $?"
ln in.pdb hard.pdb
ilmap compile in.pdb -o hard.pdb 2>&1; echo "exit $?"
ln -s in.pdb link.ilmap
ilmap compile in.pdb -o link.ilmap 2>&1; echo "exit $?"
cp in.pdb odd.ilmap
ilmap compile odd.ilmap 2>&1; echo "exit $?"
cmp odd.ilmap saved.pdb && echo "odd.ilmap intact"
mkdir pe
cp "$FRAMES.dll" pe/app.dll
cp "$FRAMES.pdb" pe/Ilmap.Corpus.Frames.pdb
ilmap compile pe/app.dll -o pe/Ilmap.Corpus.Frames.pdb 2>&1; echo "exit $?"
cmp pe/Ilmap.Corpus.Frames.pdb saved.pdb && echo "sibling PDB intact"
cmp in.pdb saved.pdb && echo "in.pdb intact"
[[ -L link.ilmap ]] && echo "link.ilmap still a symlink"
ls -A . pe
