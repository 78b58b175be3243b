#!/bin/bash
# recorded.sh REPO_ROOT ILMAP - the committed real traces (corpus/traces, recorded by record.sh from
# the .NET runtime): symbolicate of the ShowILOffsets recording, searching corpus/out/cs-frames, must
# equal the recording made with the PDB present, except the frames of the recording program itself
# (Ilmap.Trace.exe, not in the search path: left as they were, counted "module not found").
# Runs without dotnet. Exit 0 ok, 1 different, 77 the corpus is absent.
set -u
export LC_ALL=C
root=$1 ilmap=$2
t=$root/corpus/traces
[ -f "$t/cs-frames.il-offsets.txt" ] && [ -f "$root/corpus/out/cs-frames/Ilmap.Corpus.Frames.dll" ] || { echo "SKIP: corpus absent"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-sym-rec.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$ilmap" symbolicate --search "$root/corpus/out/cs-frames" --cache-dir "$tmp/cache" "$t/cs-frames.il-offsets.txt" >"$tmp/got" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: exit $?"; exit 1; }
# Expected: the lines recording, with the recorder's own frames as in the IL-offset recording.
awk 'NR == FNR { il[FNR] = $0; next } { print (index(il[FNR], " in Ilmap.Trace.exe:token ") ? il[FNR] : $0) }' \
    "$t/cs-frames.il-offsets.txt" "$t/cs-frames.lines.txt" >"$tmp/want"
own=$(grep -c ' in Ilmap.Trace.exe:token ' "$t/cs-frames.il-offsets.txt")
frames=$(grep -c ':token 0x' "$t/cs-frames.il-offsets.txt")
if cmp -s "$tmp/want" "$tmp/got" &&
   grep -qx "ilmap symbolicate: $frames frames, $((frames - own)) resolved, $own unresolved ($own module not found (Ilmap.Trace.exe))" "$tmp/err"; then
    echo "ok   $frames frames, $((frames - own)) resolved as the runtime printed them"
    exit 0
fi
echo "FAIL (< expected, > symbolicate): $(cat "$tmp/err")"
diff "$tmp/want" "$tmp/got" | head -n 20
exit 1
