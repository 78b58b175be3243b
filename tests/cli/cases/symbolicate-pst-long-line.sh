# A line over 256 KiB inside a ProductionStackTrace block passes through unparsed, as it does
# outside one (docs/symbolicate.md), even when its tail past the 256 KiB read buffer looks like a
# frame; the block's own frame still resolves.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
guid=$(ilmap info --json pe/Ilmap.Corpus.Frames.dll | sed -n 's/^ *"codeview_guid": "\([0-9a-f-]*\)".*/\1/p')
frame='   at Ilmap.Corpus.Frames!0x0600000a!Ilmap.Corpus.Frames.Scenarios.Fail(String why) +0x7'
module="MODULE: Ilmap.Corpus.Frames => Ilmap.Corpus.Frames, Version=1.0.0.0; G:$guid; A:1"
long=$(head -c 262144 /dev/zero | tr '\0' 'x')

echo "-- in the frames of a block"
printf '%s\n%s%s\n==========\n%s\n' "$frame" "$long" "$frame" "$module" >long.txt
ilmap symbolicate --search pe --cache-dir cc long.txt >long.out; echo "exit $?"
head -n 1 long.out
[[ $(sed -n 2p long.out) == "$long$frame" ]] && echo "long line unchanged" || echo "long line rewritten"
tail -n +3 long.out | cmp -s - <(tail -n +3 long.txt) && echo "rest unchanged"
echo "-- among its MODULE lines: ends the block, passes through"
printf '%s\n==========\n%s\n%s%s\n%s\n' "$frame" "$module" "$long" "$frame" "$module" >mod.txt
ilmap symbolicate --search pe --cache-dir cc mod.txt >mod.out; echo "exit $?"
head -n 1 mod.out
tail -n +2 mod.out | cmp -s - <(tail -n +2 mod.txt) && echo "rest unchanged"
echo "-- outside a block"
printf '%s%s\n' "$long" "$frame" >long2.txt
ilmap symbolicate --search pe --cache-dir cc long2.txt >long2.out; echo "exit $?"
cmp -s long2.out long2.txt && echo "unchanged"
