#!/usr/bin/env bash
# capi_test.sh ILMAP CAPI_TEST REPO_ROOT - the C API's compile, symbolicate and module lookup
# (libilmap.so, through capi_test.c) against what we did not write and what the program does:
#   compile      the bytes of `ilmap compile` of the same PE; "up to date" the second time;
#                the documented codes for a missing input (ILMAP_E_IO, ilmap compile's exit 2)
#                and for output = input
#   symbolicate  the runtime's recorded trace with IL offsets (corpus/traces) gives the
#                runtime's own trace with lines (the recorder's own frames, not searched, stay),
#                byte for byte, and the same bytes as `ilmap symbolicate`; with columns too
#   module       a frame of corpus/runtime-frames.tsv (the runtime's file, line and column)
#                through the module found by file name, by MVID and by debug id
#   fetch        from a local store (ilmap store add): the store's cache and the PDB's bytes; the
#                codes for a module it lacks and a bad symbol path; a buffer too small
#   misuse       the codes the header documents for bad arguments
# Exit 0 pass, 1 fail, 77 skip (corpus absent).
set -euo pipefail
export LC_ALL=C
ilmap=$1 prog=$2 root=$3
corpus=$root/corpus
dll=$corpus/out/cs-frames/Ilmap.Corpus.Frames.dll
traces=$corpus/traces
[[ -f $dll && -f $traces/cs-frames.il-offsets.txt && -f $corpus/runtime-frames.tsv ]] || { echo "SKIP: corpus absent"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-capi.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/xdg HOME=$work/home
fails=0
check() {  # what got want
  if [[ $2 == "$3" ]]; then echo "ok   $1"; else echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}

# --- compile
"$ilmap" compile -q "$dll" -o "$work/cli.ilmap"
out=$("$prog" compile "$dll" "$work/c/api.ilmap")
points=$("$ilmap" info "$work/cli.ilmap" | awk '$1 == "sequence_points:" { print $2 }')
bytes=$(stat -c %s "$work/cli.ilmap")
check "compile: status and counts" "$(head -n1 <<<"$out")" "status=0 up_to_date=0 points=$points bytes=$bytes"
if cmp -s "$work/cli.ilmap" "$work/c/api.ilmap"; then echo "ok   compile: the bytes of ilmap compile"; else
  echo "FAIL compile: the cache differs from ilmap compile's"; fails=$((fails + 1)); fi
check "compile again: up to date" "$("$prog" compile "$dll" "$work/c/api.ilmap" | head -n1)" "status=0 up_to_date=1 points=0 bytes=0"
check "compile again with force" "$("$prog" compile "$dll" "$work/c/api.ilmap" force | head -n1)" \
  "status=0 up_to_date=0 points=$points bytes=$bytes"
out=$("$prog" compile "$work/missing.dll" "$work/m.ilmap")
check "compile a missing input: ILMAP_E_IO, as ilmap compile's exit 2" "$(head -n1 <<<"$out" | cut -d' ' -f1)" "status=2"
grep -q "missing.dll" <<<"$out" && echo "ok   the message names the input" || { echo "FAIL message: $out"; fails=$((fails + 1)); }
[[ ! -e $work/m.ilmap ]] && echo "ok   nothing written" || { echo "FAIL a cache was written"; fails=$((fails + 1)); }
cp "$dll" "$work/copy.dll"; cp "${dll%.dll}.pdb" "$work/copy.pdb"
check "compile over the input: ILMAP_E_USAGE" "$("$prog" compile "$work/copy.dll" "$work/copy.dll" | head -n1 | cut -d' ' -f1)" "status=1"
cmp -s "$dll" "$work/copy.dll" && echo "ok   the input is untouched" || { echo "FAIL the input changed"; fails=$((fails + 1)); }

# --- symbolicate: the recorded runtime traces
t=$traces
awk 'NR == FNR { il[FNR] = $0; next } { print (index(il[FNR], " in Ilmap.Trace.exe:token ") ? il[FNR] : $0) }' \
    "$t/cs-frames.il-offsets.txt" "$t/cs-frames.lines.txt" >"$work/want"
"$prog" symbolicate "$corpus/out/cs-frames" "$work/cache" "$t/cs-frames.il-offsets.txt" >"$work/got" 2>"$work/stats"
if cmp -s "$work/want" "$work/got"; then echo "ok   symbolicate: the runtime's own trace"; else
  echo "FAIL symbolicate differs from the runtime's trace (< runtime, > C API):"; diff "$work/want" "$work/got" | head -n 10
  fails=$((fails + 1)); fi
frames=$(grep -c ':token 0x' "$t/cs-frames.il-offsets.txt")
own=$(grep -c ' in Ilmap.Trace.exe:token ' "$t/cs-frames.il-offsets.txt")
check "symbolicate: stats" "$(cat "$work/stats")" \
  "lines=$(wc -l <"$t/cs-frames.il-offsets.txt") frames=$frames resolved=$((frames - own)) with_lines=0"
"$ilmap" symbolicate --columns --search "$corpus/out/cs-frames" --cache-dir "$work/cache2" "$t/cs-frames.il-offsets.txt" \
  >"$work/cli-columns" 2>/dev/null
"$prog" symbolicate "$corpus/out/cs-frames" "$work/cache" "$t/cs-frames.il-offsets.txt" columns >"$work/got-columns" 2>/dev/null
if cmp -s "$work/cli-columns" "$work/got-columns" && grep -q ':line [0-9]*:[0-9]' "$work/got-columns"; then
  echo "ok   symbolicate with columns: the bytes of ilmap symbolicate --columns"; else
  echo "FAIL symbolicate with columns differs from ilmap symbolicate --columns"; fails=$((fails + 1)); fi

# --- module lookup: the runtime's first frame with a line
IFS=$'\t' read -r token il file line column < <(awk -F'\t' '
  NR == 1 { sub(/^#/, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
  $c["assembly"] == "Ilmap.Corpus.Frames" && $c["line"] + 0 > 0 {
    print $c["token"] "\t" $c["il_offset"] "\t" $c["file"] "\t" $c["line"] "\t" $c["column"]; exit }' "$corpus/runtime-frames.tsv")
mvid=$("$ilmap" info "$dll" | awk '$1 == "mvid:" { print $2 }')
debug_id=$("$ilmap" info "$dll" | awk '$1 == "codeview_debug_id:" { print $2 }')
want="status=0 $file:$line:$column"
check "module by file name" "$("$prog" module "$corpus/out/cs-frames" "$work/cache" 0 Ilmap.Corpus.Frames.dll "$token" "$il")" "$want"
check "module by MVID" "$("$prog" module "$corpus/out/cs-frames" "$work/cache" 1 "$mvid" "$token" "$il")" "$want"
check "module by debug id" "$("$prog" module "$corpus/out/cs-frames" "$work/cache" 2 "$debug_id" "$token" "$il")" "$want"
check "module by file name, no such method: ILMAP_E_NOT_FOUND" \
  "$("$prog" module "$corpus/out/cs-frames" "$work/cache" 0 Ilmap.Corpus.Frames.dll 0x06ffffff 0)" "status=8"
out=$("$prog" module "$corpus/out/cs-frames" "$work/cache" 2 "00000000-0000-0000-0000-000000000000-00000001" 0x06000001 0)
check "module by an unknown debug id: ILMAP_E_NOT_FOUND" "$(cut -d' ' -f1 <<<"$out")" "status=8"

# --- fetch from a symbol path (a local store written by ilmap store add)
mkdir "$work/st-in" && cp "$dll" "${dll%.dll}.pdb" "$work/st-in/"
"$ilmap" store add "$work/store" "$work/st-in" >/dev/null
out=$("$prog" fetch "$work/store" "$dll" 1)
grep '^FAIL' <<<"$out" && fails=$((fails + 1))
out=$(head -n 1 <<<"$out")
got=${out#status=0 }
if [[ $out == "status=0 "* && -f $got ]] && cmp -s "$got" "$("$ilmap" store get "$work/store" --for "$dll" | awk -F'\t' '$1 ~ /\.ilmap$/ { print $2 }')"; then
  echo "ok   fetch of the cache: the store's file"
else
  echo "FAIL fetch of the cache: $out"; fails=$((fails + 1))
fi
out=$("$prog" fetch "$work/store" "$dll" 0)
grep '^FAIL' <<<"$out" && fails=$((fails + 1))
out=$(head -n 1 <<<"$out")
got=${out#status=0 }
if [[ $out == "status=0 "* ]] && cmp -s "$got" "${dll%.dll}.pdb"; then echo "ok   fetch of the PDB: its bytes"; else
  echo "FAIL fetch of the PDB: $out"; fails=$((fails + 1)); fi
check "fetch of a module the store lacks: ILMAP_E_NOT_FOUND" \
  "$("$prog" fetch "$work/store" "$corpus/out/cs-manymethods/Ilmap.Corpus.ManyMethods.dll" 1 | cut -d' ' -f1)" "status=8"
check "fetch with a bad symbol path: ILMAP_E_USAGE" "$("$prog" fetch 'srv*ftp://example.invalid/x' "$dll" 1 | cut -d' ' -f1)" "status=1"

# --- lines: ilmap_lines (the debugger's rule) and ilmap_lines_rule give `ilmap lines`' answers,
# with and without --all-methods; the second line of a two-line statement (Program.cs:32 of
# corpus/src/Breakpoints) binds that statement by default and the next statement with the other
# rule; an unknown rule is ILMAP_E_USAGE
bp_dll=$corpus/out/cs-breakpoints/Ilmap.Corpus.Breakpoints.dll
if [[ -f $bp_dll ]]; then
  "$ilmap" compile -q "$bp_dll" -o "$work/bp.ilmap"
  for q in 32 11 71; do
    want_dbg=$(printf 'status=0 count=%s\n%s' "$("$ilmap" lines "$work/bp.ilmap" "Program.cs:$q" | wc -l)" "$("$ilmap" lines "$work/bp.ilmap" "Program.cs:$q")")
    want_all=$(printf 'status=0 count=%s\n%s' "$("$ilmap" lines --all-methods "$work/bp.ilmap" "Program.cs:$q" | wc -l)" "$("$ilmap" lines --all-methods "$work/bp.ilmap" "Program.cs:$q")")
    check "lines Program.cs:$q, ilmap_lines" "$("$prog" lines "$work/bp.ilmap" Program.cs "$q" -1)" "$want_dbg"
    check "lines Program.cs:$q, ILMAP_LINES_DEBUGGER" "$("$prog" lines "$work/bp.ilmap" Program.cs "$q" 0)" "$want_dbg"
    check "lines Program.cs:$q, ILMAP_LINES_ALL_METHODS" "$("$prog" lines "$work/bp.ilmap" Program.cs "$q" 1)" "$want_all"
  done
  check "lines: the statement's start line by default" "$("$prog" lines "$work/bp.ilmap" Program.cs 32 0 | sed -n 2p | cut -d' ' -f4)" "31:13-32:36"
  check "lines: the next statement with ILMAP_LINES_ALL_METHODS" "$("$prog" lines "$work/bp.ilmap" Program.cs 32 1 | sed -n 2p | cut -d' ' -f4)" "36:13-36:53"
  check "lines: an unknown rule is ILMAP_E_USAGE" "$("$prog" lines "$work/bp.ilmap" Program.cs 32 7 | cut -d' ' -f1)" "status=1"
else
  echo "note: $bp_dll absent: the lines checks are left out"
fi

# --- misuse
if "$prog" misuse "$corpus/out/cs-frames" >"$work/misuse"; then cat "$work/misuse"; else
  cat "$work/misuse"; fails=$((fails + 1)); fi

[[ $fails -eq 0 ]] || { echo "$fails failed"; exit 1; }
echo "all passed"
