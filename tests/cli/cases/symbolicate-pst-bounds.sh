# ProductionStackTrace blocks stay within their documented bounds (README "Symbolicating stack
# traces"): MODULE lines count against the 4 MiB / 10,000-line hold like every other held line,
# so a flood of them goes out unchanged as it streams (200 MB through a 150 MB address-space
# limit), and a line over 256 KiB inside a block passes through unparsed, as it does outside one.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
# Sanitizer builds reserve terabytes of address space and cannot start under the limit: skip.
(ulimit -v 150000; ilmap --version >/dev/null 2>&1) || { echo "ilmap cannot start under ulimit -v (sanitizer build?)"; exit 77; }
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
guid=$(ilmap info --json pe/Ilmap.Corpus.Frames.dll | sed -n 's/^ *"codeview_guid": "\([0-9a-f-]*\)".*/\1/p')
frame='   at Ilmap.Corpus.Frames!0x0600000a!Ilmap.Corpus.Frames.Scenarios.Fail(String why) +0x7'
module="MODULE: Ilmap.Corpus.Frames => Ilmap.Corpus.Frames, Version=1.0.0.0; G:$guid; A:1"

echo "-- 200 MB of MODULE lines after one block's separator: streamed, unchanged"
flood() { printf '%s\n==========\n' "$frame"; yes "$module" | head -n 2500000; }
want=$(flood | md5sum)
got=$( (ulimit -v 150000; flood | ilmap symbolicate --search pe --cache-dir cc; echo "exit $?" >&2) | md5sum)
[[ $got == "$want" ]] && echo "output equals input" || echo "output differs from input"

echo "-- a line over 256 KiB inside a block (its tail looks like a frame) passes through"
long=$(head -c 262144 /dev/zero | tr '\0' 'x')
printf '%s\n%s%s\n==========\n%s\n' "$frame" "$long" "$frame" "$module" >long.txt
ilmap symbolicate --search pe --cache-dir cc long.txt >long.out; echo "exit $?"
head -n 1 long.out
[[ $(sed -n 2p long.out) == "$long$frame" ]] && echo "long line unchanged" || echo "long line rewritten"
tail -n +3 long.out | cmp -s - <(tail -n +3 long.txt) && echo "rest unchanged"
echo "-- the same line outside a block"
printf '%s%s\n' "$long" "$frame" >long2.txt
ilmap symbolicate --search pe --cache-dir cc long2.txt >long2.out; echo "exit $?"
cmp -s long2.out long2.txt && echo "unchanged"
