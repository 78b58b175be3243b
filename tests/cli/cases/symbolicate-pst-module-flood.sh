# MODULE lines count against the 4 MiB / 10,000-line hold of a ProductionStackTrace block like every
# other held line (docs/symbolicate.md): a flood of them after one block's separator goes out
# unchanged as it streams (200 MB through a 150 MB address-space limit), the block's frame counted
# as "module lines too far".
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
# Sanitizer builds reserve terabytes of address space and cannot start under the limit: skip.
(ulimit -v 150000; ilmap --version >/dev/null 2>&1) || { echo "ilmap cannot start under ulimit -v (sanitizer build?)"; exit 77; }
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
guid=$(ilmap info --json pe/Ilmap.Corpus.Frames.dll | sed -n 's/^ *"codeview_guid": "\([0-9a-f-]*\)".*/\1/p')
frame='   at Ilmap.Corpus.Frames!0x0600000a!Ilmap.Corpus.Frames.Scenarios.Fail(String why) +0x7'
module="MODULE: Ilmap.Corpus.Frames => Ilmap.Corpus.Frames, Version=1.0.0.0; G:$guid; A:1"
flood() { printf '%s\n==========\n' "$frame"; yes "$module" | head -n 2500000; }
want=$(flood | md5sum)
got=$( (ulimit -v 150000; flood | ilmap symbolicate --search pe --cache-dir cc; echo "exit $?" >&2) | md5sum)
[[ $got == "$want" ]] && echo "output equals input" || echo "output differs from input"
