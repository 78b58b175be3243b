#!/usr/bin/env bash
# c_api_test.sh ILMAP C_API_TEST CORPUS_DIR - compiles the corpus PE of the first frame of
# corpus/runtime-frames.tsv (columns by header name; its PDB lies beside it) into a cache and
# runs the C program c_api_test.c on it with that frame's token, IL offset, file, line and
# column; the PDB itself is the "not a cache" input. The identity the cache must report is what
# `ilmap info` reads from the PDB and the PE themselves (not from a cache); the embedded source
# is checked against the source file in corpus/src, on a cache of the embedded-sources PDB
# compiled with --embed-sources. Exit 0 pass, 1 fail, 77 skip (corpus files absent).
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
read -r dll pdb < <(awk -F'\t' -v want="$asm.dll" '{ n = split($2, p, "/"); if (p[n] == want && $3 != "-") { print $2, $3; exit } }' "$manifest")
[[ -n ${pdb:-} ]] || { echo "FAIL: no manifest row with dll $asm.dll and a .pdb"; exit 1; }
"$ilmap" compile -q "$corpus/$dll" -o "$work/frames.ilmap"

# The expected identity, one "key value" line each, from the PDB and the PE.
field() { awk -v k="$1:" '$1 == k { print $2; exit }' "$2"; }
"$ilmap" info "$corpus/$pdb" >"$work/pdb.info"
"$ilmap" info "$corpus/$dll" >"$work/pe.info"
{
  echo "pdb_id $(field pdb_id "$work/pdb.info")"
  echo "debug_id $(field debug_id "$work/pdb.info")"
  echo "pdb_key $(field ssqp_key "$work/pdb.info")"
  echo "pe_name ${dll##*/}"
  echo "pe_key $(field pe_ssqp_key "$work/pe.info")"
  echo "code_id $(field pe_code_id "$work/pe.info")"
  echo "mvid $(field mvid "$work/pe.info")"
  echo "version $("$ilmap" --version | awk '{ print $2 }')"
} >"$work/identity"
awk 'NF != 2 { print "FAIL: no value for " $1 " in ilmap info"; bad = 1 } END { exit bad }' "$work/identity"

# A PDB with embedded sources, compiled alone (no PE identity) with --embed-sources.
sources_pdb=$(awk -F'\t' '$4 == "embedded-sources" && $3 != "-" { print $3; exit }' "$manifest")
source_file=$corpus/src/EmbeddedSources/Inventory.cs
[[ -n $sources_pdb && -f $source_file ]] || { echo "FAIL: no embedded-sources PDB in $manifest, or no $source_file"; exit 1; }
"$ilmap" compile -q --embed-sources "$corpus/$sources_pdb" -o "$work/sources.ilmap"

"$prog" "$work/frames.ilmap" "$corpus/$pdb" "$token" "$il" "$file" "$line" "$column" "$work/identity" \
  "$work/sources.ilmap" "$source_file"
