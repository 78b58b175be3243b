# lookup text output escapes control characters of file-supplied paths (issue 9 item 10): a
# document named "Sc<LF>nar<ESC>os.cs" (the frames PDB with its name part patched in place) gives
# one line per answer, also in --batch; JSON keeps the real characters (JSON-escaped).
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb"
perl -0777 -pe 's/Scenarios\.cs/Sc\nnar\x1bos.cs/' "$FRAMES.pdb" > frames.pdb
ilmap compile -q frames.pdb -o f.ilmap || exit 1
ilmap lookup f.ilmap 10 7; echo "exit $?"
printf '10 7\n10 7\n' | ilmap lookup f.ilmap --batch; echo "exit $?"
ilmap lookup f.ilmap 10 7 --json; echo "exit $?"
