#!/bin/bash
# check-corpus-pe.sh ILMAP CORPUS_DIR
# For every DLL row of CORPUS_DIR/manifest.tsv (columns: case dll pdb kind language; paths
# relative to CORPUS_DIR; pdb "-" means embedded only), without dotnet:
#   - `ilmap info DLL` succeeds, pdb_source is sibling (pdb given) or embedded (pdb "-"),
#     checksum_verdict is verified, pdb_id_guid equals codeview_guid;
#   - with a sibling PDB: `ilmap dump DLL` and `dump --documents DLL` equal the same for the PDB;
#   - a copy of the DLL alone in a directory: exit 3 "no matching debug information" unless it
#     embeds its PDB; with another case's PDB under the CodeView name: exit 3 (mismatch).
# Exit: 0 all passed, 1 some failed, 2 usage, 77 manifest absent.
set -u
export LC_ALL=C
if [ $# -ne 2 ]; then
    echo "usage: $0 ILMAP CORPUS_DIR" >&2
    exit 2
fi
ilmap=$1
corpus=$2
manifest=$corpus/manifest.tsv
if [ ! -f "$manifest" ]; then
    echo "SKIP: $manifest not found"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pe-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
other_pdb=
declare -A col
header=1
while IFS=$'\t' read -r -a f; do
    if [ $header -eq 1 ]; then
        for i in "${!f[@]}"; do col[${f[$i]}]=$i; done
        header=0
        continue
    fi
    case=${f[${col[case]}]}
    dll=${f[${col[dll]}]}
    pdb=${f[${col[pdb]}]}
    [ "$dll" = "-" ] && continue
    dll=$corpus/$dll
    problems=()
    field() { sed -n "s/^$1: *//p" "$tmp/info" | head -n1; }
    if ! "$ilmap" info "$dll" >"$tmp/info" 2>"$tmp/err"; then
        problems+=("info failed: $(head -n1 "$tmp/err")")
    else
        want=embedded
        [ "$pdb" != "-" ] && want=sibling
        [ "$(field pdb_source)" = "$want" ] || problems+=("pdb_source $(field pdb_source), want $want")
        [ "$(field checksum_verdict)" = verified ] || problems+=("checksum_verdict $(field checksum_verdict)")
        [ "$(field pdb_id_guid)" = "$(field codeview_guid)" ] || problems+=("pdb id guid != codeview guid")
        "$ilmap" info --json "$dll" >"$tmp/json" 2>/dev/null || problems+=("info --json failed")
    fi
    if [ "$pdb" != "-" ]; then
        other_pdb=$corpus/$pdb
        for opt in "" --documents; do
            "$ilmap" dump $opt "$dll" >"$tmp/a" 2>"$tmp/err" || problems+=("dump $opt DLL failed: $(head -n1 "$tmp/err")")
            "$ilmap" dump $opt "$corpus/$pdb" >"$tmp/b" 2>"$tmp/err" || problems+=("dump $opt PDB failed: $(head -n1 "$tmp/err")")
            cmp -s "$tmp/a" "$tmp/b" || problems+=("dump $opt of the DLL differs from the PDB's")
        done
        # Alone in a directory: nothing matches -> exit 3.
        rm -rf "$tmp/alone" && mkdir "$tmp/alone" && cp "$dll" "$tmp/alone/"
        "$ilmap" dump "$tmp/alone/$(basename "$dll")" >/dev/null 2>"$tmp/err"
        rc=$?
        [ $rc -eq 3 ] && grep -q "no matching debug information" "$tmp/err" ||
            problems+=("DLL without PDB: exit $rc, want 3 'no matching debug information'")
    fi
    if [ ${#problems[@]} -eq 0 ]; then
        echo "ok   $case"
        pass=$((pass + 1))
    else
        echo "FAIL $case"
        printf '     %s\n' "${problems[@]}"
        fail=$((fail + 1))
    fi
done <"$manifest"

# A sibling with another PDB's id under the CodeView name: exit 3, the message says mismatch.
first_dll=$(awk -F'\t' 'NR > 1 && $3 != "-" { print $2; exit }' "$manifest")
if [ -n "$first_dll" ] && [ -n "$other_pdb" ]; then
    rm -rf "$tmp/mm" && mkdir "$tmp/mm" && cp "$corpus/$first_dll" "$tmp/mm/"
    name=$(basename "$corpus/$first_dll")
    cvname=$("$ilmap" info "$corpus/$first_dll" | sed -n 's/^codeview_path: *//p' | sed 's|.*[/\\]||')
    cp "$other_pdb" "$tmp/mm/$cvname"
    if cmp -s "$other_pdb" "$corpus/$(awk -F'\t' 'NR > 1 && $3 != "-" { print $3; exit }' "$manifest")"; then
        echo "skip mismatch check: only one PDB in the manifest"
    else
        "$ilmap" info "$tmp/mm/$name" >/dev/null 2>"$tmp/err"
        rc=$?
        if [ $rc -eq 3 ] && grep -q "has PDB id" "$tmp/err"; then
            echo "ok   mismatched sibling"
            pass=$((pass + 1))
        else
            echo "FAIL mismatched sibling: exit $rc: $(head -n1 "$tmp/err")"
            fail=$((fail + 1))
        fi
    fi
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
