# --context N says once why frames got no source (docs/symbolicate.md "Why a frame has no
# context"): one stderr line per reason, after the frame summary, naming the first document and
# what was tried; --json puts "context_missing" on each such frame. Each reason from a real
# situation with CoreCLR's real trace of the corpus (corpus/traces): the corpus PDB embeds no
# sources; roots that match nothing; a checkout without the file; the file edited; a FIFO in
# its place; and the trace's own frames whose PDB records a #line file without a checksum
# (Remapped.tt) or a #line number past the end of Remapped.cs.
. "$(dirname "$0")/../common.sh"
trace=$CORPUS/traces/cs-frames.il-offsets.txt
need "$FRAMES.pdb" "$FRAMES.dll" "$trace" "$CORPUS/src/Frames/Scenarios.cs"
mkdir app src empty
cp "$FRAMES.pdb" "$FRAMES.dll" app/
cp -r "$CORPUS/src/Frames" src/
sed -n '1,7p' "$trace" >plain.txt
run() { ilmap symbolicate --search app --cache-dir cc "$@"; }
here() { sed "s|$PWD|.|g"; }
echo "-- no embedded source, no --source-root: the summary says so and suggests the flag"
run --context 1 plain.txt 2>err.txt >out.txt; echo "exit $?"
here <err.txt
run plain.txt 2>/dev/null | cmp - out.txt && echo "stdout: as without --context"
echo "-- without --context: no such line"
run plain.txt 2>&1 >/dev/null
echo "-- roots whose prefixes start no document path: the path and the prefixes tried"
run --context 1 --source-root /src/=src --source-root 'C:\build\=src' plain.txt 2>&1 >/dev/null
echo "-- a root that matches, without the file"
run --context 1 --source-root /_/=empty plain.txt 2>&1 >/dev/null | here
echo "-- the file edited since the build: its hash is not the PDB's checksum"
cp -r src mod
printf '// changed\n' >>mod/Frames/Scenarios.cs
run --context 1 --source-root /_/=mod plain.txt 2>&1 >/dev/null | here
echo "-- a FIFO where the file should be: not read"
mkdir -p fifo/Frames && mkfifo fifo/Frames/Scenarios.cs
run --context 1 --source-root /_/=fifo plain.txt 2>&1 >/dev/null | here
echo "-- the right checkout: context for every frame of the first scenario, no line"
run --context 1 --source-root /_/=src plain.txt 2>&1 >/dev/null
echo "-- the whole trace with the right checkout: the two frames it cannot show, and why"
run --context 1 --source-root /_/=src "$trace" 2>&1 >/dev/null
echo "-- the edited file, then the right one: the first root that has it wins, nothing to say"
run --context 1 --source-root /_/=mod --source-root /_/=src plain.txt 2>&1 >/dev/null
echo "-- --json: context_missing on each frame without context"
sed -n '3p' plain.txt | run --json --context 1 2>/dev/null | jq -c '{line, context_missing}'
sed -n '3p' plain.txt | run --json --context 1 --source-root /_/=mod 2>/dev/null | jq -c '{line, context_missing}'
sed -n '3p' plain.txt | run --json --context 1 --source-root /_/=src 2>/dev/null | jq -c '{line, context_missing, context_line}'
