# A store with index2.txt at its root is two-tier: store add writes under the first two
# characters of the file name, get and verify read it; the same tree read as one tier below.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir st && : >st/index2.txt
cp "$FRAMES.pdb" "$FRAMES.dll" .
ilmap store add st Ilmap.Corpus.Frames.pdb Ilmap.Corpus.Frames.dll >/dev/null; echo "exit $?"
find st -type f -not -name .ilmap-store.lock | sort
ilmap store get st --for Ilmap.Corpus.Frames.dll | cut -f2; echo "exit $?"
ilmap store verify st; echo "exit $?"
ilmap store get st/il ilmap.corpus.frames.dll/A300A450a000/ilmap.corpus.frames.dll; echo "exit $?"
