#!/usr/bin/env bash
# c_api_test.sh ILMAP C_API_TEST CORPUS_DIR - compiles the corpus PDB of the first frame of
# corpus/runtime-frames.tsv (columns by header name) into a cache and runs the C program
# c_api_test.c on it with that frame's token, IL offset, file, line and column; the PDB itself
# is the "not a cache" input. Exit 0 pass, 1 fail, 77 skip (corpus files absent).
set -euo pipefail
export LC_ALL=C
ilmap=$1 prog=$2 corpus=$3
tsv=$corpus/runtime-frames.tsv manifest=$corpus/manifest.tsv
[[ -f $tsv && -f $manifest ]] || { echo "SKIP: $tsv or $manifest not found"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-c-api.XXXXXX")
trap 'rm -rf "$work"' EXIT

# assembly token il file line column of the first frame with a line
IFS=$'\t' read -r asm token il file line column < <(awk -F'\t' '
  NR == 1 { sub(/^#/, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
  /^#/ || NF == 0 { next }
  $c["file"] != "" && $c["line"] + 0 > 0 {
    print $c["assembly"] "\t" $c["token"] "\t" $c["il_offset"] "\t" $c["file"] "\t" $c["line"] "\t" $c["column"]; exit }' "$tsv")
[[ -n ${asm:-} ]] || { echo "FAIL: no frame with a line in $tsv"; exit 1; }
pdb=$(awk -F'\t' -v want="$asm.dll" '{ n = split($2, p, "/"); if (p[n] == want && $3 != "-") { print $3; exit } }' "$manifest")
[[ -n $pdb ]] || { echo "FAIL: no manifest row with dll $asm.dll and a .pdb"; exit 1; }
"$ilmap" compile -q "$corpus/$pdb" -o "$work/frames.ilmap"
"$prog" "$work/frames.ilmap" "$corpus/$pdb" "$token" "$il" "$file" "$line" "$column"
