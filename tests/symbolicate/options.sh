#!/bin/bash
# options.sh REPO_ROOT ILMAP - symbolicate's options and search roots: --columns, --json, a
# symbol-store directory as --search root and as --symbol-path, standard input, several files, a
# Mono frame and a PST block resolved from a store. Exit 0 ok, 1 failure, 77 the corpus is absent.
set -u
export LC_ALL=C
root=$1 ilmap=$2
dir=$root/corpus/out/cs-frames
[ -f "$dir/Ilmap.Corpus.Frames.dll" ] || { echo "SKIP: corpus absent"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-sym-opt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {  # NAME WANT GOT
  if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1"; echo "     want: $2"; echo "     got:  $3"; fail=1; fi
}
frame='   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7'
line37='   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in /_/Frames/Scenarios.cs:line 37'
sym() { "$ilmap" symbolicate --cache-dir "$tmp/cache" "$@" 2>"$tmp/err"; }

expect "--columns" "${line37}:13" "$(printf '%s\n' "$frame" | sym --search "$dir" --columns)"
expect "--json" '{"input_line":2,"format":"coreclr","module":"Ilmap.Corpus.Frames.dll","token":"0x0600000a","il_offset":7,"method":"Scenarios.Fail","resolved":true,"file":"/_/Frames/Scenarios.cs","line":37,"column":13,"end_line":37,"end_column":46,"url":null}' \
  "$(printf 'text\n%s\n' "${frame/Ilmap.Corpus.Frames.Scenarios.Fail(String why)/Scenarios.Fail}" | sym --search "$dir" --json)"
expect "--json unresolved" '{"input_line":1,"format":"coreclr","module":"X.dll","token":"0x06000001","il_offset":1,"method":"A.B()","resolved":false,"reason":"module not found"}' \
  "$(printf '%s\n' '   at A.B() in X.dll:token 0x6000001+0x1' | sym --search "$dir" --json)"
shapes=$root/corpus/out/cs-sourcelink
expect "--urls (SourceLink)" "   at X.Y() in https://example.invalid/ilmap/corpus/Shapes/Polygon.cs:line 11" \
  "$(printf '%s\n' '   at X.Y() in Ilmap.Corpus.Shapes.dll:token 0x6000001+0x6' | sym --search "$shapes" --urls)"
expect "without --urls" "   at X.Y() in /_/Shapes/Polygon.cs:line 11" \
  "$(printf '%s\n' '   at X.Y() in Ilmap.Corpus.Shapes.dll:token 0x6000001+0x6' | sym --search "$shapes")"
printf '%s\n' "$frame" >"$tmp/one"
expect "two files and stdin" "$(printf '%s\n%s\n%s\n' "$line37" "$line37" "$line37")" \
  "$(printf '%s\n' "$frame" | sym --search "$dir" "$tmp/one" - "$tmp/one")"

# A symbol store (ilmap store add) as a search root, and as --symbol-path.
"$ilmap" store add "$tmp/store" "$dir/Ilmap.Corpus.Frames.dll" "$dir/Ilmap.Corpus.Frames.pdb" >/dev/null 2>&1 ||
  { echo "FAIL store add"; exit 1; }
expect "store as --search" "$line37" "$(printf '%s\n' "$frame" | sym --search "$tmp/store")"
mkdir -p "$tmp/pe"
cp "$dir/Ilmap.Corpus.Frames.dll" "$tmp/pe/"
rm -rf "$tmp/cache"
expect "PE searched, PDB from --symbol-path" "$line37" "$(printf '%s\n' "$frame" | sym --search "$tmp/pe" --symbol-path "$tmp/store")"
expect "PE without its PDB" "$frame" "$(printf '%s\n' "$frame" | "$ilmap" symbolicate --cache-dir "$tmp/cache2" --search "$tmp/pe" 2>"$tmp/err")"
expect "  summary" "ilmap symbolicate: 1 frames, 0 resolved, 1 unresolved (1 no PDB for the module)" "$(cat "$tmp/err")"

# Mono and PST frames of the same method, from the store.
mvid=$("$ilmap" info --json "$dir/Ilmap.Corpus.Frames.dll" | sed -n 's/^ *"mvid": "\([0-9a-f-]*\)".*/\1/p' | tr -d -)
guid=$("$ilmap" info --json "$dir/Ilmap.Corpus.Frames.dll" | sed -n 's/^ *"codeview_guid": "\([0-9a-f-]*\)".*/\1/p')
expect "mono" "  at Ilmap.Corpus.Frames.Scenarios.Fail (System.String why) [0x00007] in /_/Frames/Scenarios.cs:37 " \
  "$(printf '  at Ilmap.Corpus.Frames.Scenarios.Fail (System.String why) [0x00007] in <%s>:0 \n' "$mvid" | sym --search "$tmp/store")"
expect "pst" "$(printf '%s\n==========\nMODULE: Ilmap.Corpus.Frames => x; G:%s; A:1' "$line37" "$guid")" \
  "$(printf '   at Ilmap.Corpus.Frames!0x0600000a!Ilmap.Corpus.Frames.Scenarios.Fail(String why) +0x7\n==========\nMODULE: Ilmap.Corpus.Frames => x; G:%s; A:1\n' "$guid" | sym --search "$tmp/store")"
expect "android" "at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in /_/Frames/Scenarios.cs:line 37" \
  "$(printf 'at Ilmap.Corpus.Frames.Scenarios.Fail + 0x7(Unknown Source)\n' | sym --search "$tmp/store")"
# A PST frame whose module is in no search path, only in a store given as --symbol-path (by the
# CodeView GUID of its MODULE line and the assembly name).
"$ilmap" store add "$tmp/pdbstore" "$dir/Ilmap.Corpus.Frames.pdb" >/dev/null 2>&1 || { echo "FAIL store add"; exit 1; }
mkdir -p "$tmp/empty"
expect "pst from --symbol-path only" "$(printf '%s\n==========\nMODULE: Ilmap.Corpus.Frames => x; G:%s; A:1' "$line37" "$guid")" \
  "$(printf '   at Ilmap.Corpus.Frames!0x0600000a!Ilmap.Corpus.Frames.Scenarios.Fail(String why) +0x7\n==========\nMODULE: Ilmap.Corpus.Frames => x; G:%s; A:1\n' "$guid" | sym --search "$tmp/empty" --symbol-path "$tmp/pdbstore")"
exit $fail
