# --context N (docs/symbolicate.md, docs/text-output.md "Source context"): below each resolved
# frame of CoreCLR's real ShowILOffsets trace (corpus/traces), N lines of its document from a
# --source-root checkout, used only when the file's hash is the checksum the PDB records. The
# blocks are checked against the source files themselves (sed -n), not only against the golden
# output: every block line must be the line its number names, and the marked line the frame's.
. "$(dirname "$0")/../common.sh"
trace=$CORPUS/traces/cs-frames.il-offsets.txt
need "$FRAMES.pdb" "$FRAMES.dll" "$trace" "$CORPUS/src/Frames/Scenarios.cs"
mkdir app src
cp "$FRAMES.pdb" "$FRAMES.dll" app/
cp -r "$CORPUS/src/Frames" src/
run() { ilmap symbolicate --search app --cache-dir cc "$@"; }
echo "-- the first scenario, --context 2"
sed -n '1,7p' "$trace" >plain.txt
run --context 2 --source-root /_/=src plain.txt 2>/dev/null; echo "exit $?"
echo "-- the whole trace, --context 3: every block is the source file's lines"
run --context 3 --source-root /_/=src "$trace" >all.txt 2>/dev/null; echo "exit $?"
check_context_blocks all.txt src
echo "frames resolved: $(grep -c ':line [0-9]*$' all.txt); without a block (no such file, a line past its end):"
awk '/:line [0-9]+$/ { if (held) print held; held = $0; next } /^    [ >]/ { held = "" } END { if (held) print held }' all.txt
echo "-- --context 0: the frame's line alone"
run --context 0 --source-root /_/=src plain.txt 2>/dev/null | sed -n '3,4p'
echo "-- no --context: the output is the plain symbolication, exactly"
run plain.txt >none.txt 2>/dev/null
run --source-root /_/=src plain.txt 2>/dev/null | cmp - none.txt && echo "same"
echo "-- a prefix without a trailing separator matches whole components"
run --context 1 --source-root /_=src plain.txt 2>/dev/null | grep -c '^    >'
run --context 1 --source-root /_/Fr=src plain.txt 2>/dev/null | cmp - none.txt && echo "/_/Fr: no context"
echo "-- a modified copy of Scenarios.cs: no context for its frames, never other code"
cp -r src mod
printf '// changed\n' >>mod/Frames/Scenarios.cs
run --context 1 --source-root /_/=mod plain.txt 2>/dev/null | cmp - none.txt && echo "same as without --context"
run -v --context 1 --source-root /_/=mod plain.txt 2>&1 >/dev/null | grep '^ilmap: source ' | sed "s|$PWD|.|g"
echo "-- the first root that has the right file wins"
run --context 3 --source-root /_/=mod --source-root /_/=src "$trace" 2>/dev/null | cmp - all.txt && echo "mod, then src: as src alone"
echo "-- a symlink leading out of DIR is not followed"
mkdir link
ln -s ../src/Frames link/Frames
run --context 1 --source-root /_/=link plain.txt 2>/dev/null | cmp - none.txt && echo "link: no context"
run -v --context 1 --source-root /_/=link plain.txt 2>&1 >/dev/null | grep '^ilmap: source ' | sed "s|$PWD|.|g"
echo "-- a directory inside DIR reached through a symlink inside DIR is followed"
mkdir -p inner/real && cp -r src/Frames inner/real/ && ln -s real/Frames inner/Frames
run --context 1 --source-root /_/=inner plain.txt 2>/dev/null | grep -c '^    >'
echo "-- a FIFO in place of the file is refused without blocking"
mkdir fifo && mkdir fifo/Frames && mkfifo fifo/Frames/Scenarios.cs
run --context 1 --source-root /_/=fifo plain.txt 2>/dev/null | cmp - none.txt && echo "fifo: no context"
echo "-- --json: pre_context, context_line, post_context"
sed -n '3p' "$trace" | run --json --context 1 --source-root /_/=src 2>/dev/null
sed -n '3p' "$trace" | run --json --context 1 --source-root /_/=src 2>/dev/null |
  jq -r '.pre_context[], .context_line, .post_context[]' | cmp - <(sed -n '36,38p' src/Frames/Scenarios.cs) && echo "json lines = sed -n 36,38p"
echo "-- --color"
run --context 1 --color=always --source-root /_/=src plain.txt 2>/dev/null | sed -n '3,6p' | cat -v
echo "always, NO_COLOR set: $(NO_COLOR=1 run --context 1 --color=always --source-root /_/=src plain.txt 2>/dev/null | grep -c $'\033') lines with escapes"
echo "never: $(run --context 1 --color=never --source-root /_/=src plain.txt 2>/dev/null | grep -c $'\033') lines with escapes"
echo "auto, not a terminal: $(run --context 1 --color=auto --source-root /_/=src plain.txt 2>/dev/null | grep -c $'\033') escapes"
