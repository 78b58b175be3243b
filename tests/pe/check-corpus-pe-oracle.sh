#!/bin/bash
# check-corpus-pe-oracle.sh ILMAP ORACLE_BIN CORPUS_DIR
# For every DLL row of CORPUS_DIR/manifest.tsv (columns: case dll pdb kind language, paths
# relative to CORPUS_DIR), compare ilmap with the SRM oracle (tests/oracle):
#   - `ilmap dump DLL` vs `ORACLE listing DLL`, byte for byte;
#   - `ilmap dump --documents DLL` vs `ORACLE documents DLL`, byte for byte;
#   - every key=value of `ORACLE info DLL` (pdb id, entry point, row counts, sourcelink,
#     embedded sources, codeview guid/age/path, mvid, methoddef rows, pdb source) vs the same key
#     of `ilmap info DLL`.
# Exit: 0 all passed, 1 some failed, 2 usage, 77 manifest or oracle absent.
set -u
export LC_ALL=C
if [ $# -ne 3 ]; then
    echo "usage: $0 ILMAP ORACLE_BIN CORPUS_DIR" >&2
    exit 2
fi
ilmap=$1
oracle=$2
corpus=$3
manifest=$corpus/manifest.tsv
if [ ! -f "$manifest" ]; then
    echo "SKIP: $manifest not found"
    exit 77
fi
if [ ! -x "$oracle" ]; then
    echo "SKIP: oracle $oracle not found (build it with tests/oracle/build.sh)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pe-oracle.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
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
    [ "$dll" = "-" ] && continue
    dll=$corpus/$dll
    problems=()
    for pair in "listing:" "documents:--documents"; do
        ocmd=${pair%%:*}
        iopt=${pair#*:}
        if ! "$oracle" "$ocmd" "$dll" >"$tmp/exp" 2>"$tmp/err"; then
            problems+=("oracle $ocmd failed: $(head -n1 "$tmp/err")")
        elif ! "$ilmap" dump $iopt "$dll" >"$tmp/act" 2>"$tmp/err"; then
            problems+=("ilmap dump $iopt failed: $(head -n1 "$tmp/err")")
        elif ! cmp -s "$tmp/exp" "$tmp/act"; then
            problems+=("dump $iopt differs from oracle $ocmd (< oracle, > ilmap):")
            problems+=("$(diff "$tmp/exp" "$tmp/act" | head -n 6)")
        fi
    done
    if ! "$oracle" info "$dll" >"$tmp/oinfo" 2>"$tmp/err"; then
        problems+=("oracle info failed: $(head -n1 "$tmp/err")")
    elif ! "$ilmap" info "$dll" >"$tmp/iinfo" 2>"$tmp/err"; then
        problems+=("ilmap info failed: $(head -n1 "$tmp/err")")
    else
        # ilmap: "key:<spaces>value"; oracle: "key=value". Compare every oracle key.
        while IFS= read -r line; do
            key=${line%%=*}
            want=${line#*=}
            have=$(awk -v k="$key" 'index($0, k ":") == 1 { sub(/^[^:]*: */, ""); print; exit }' "$tmp/iinfo")
            [ "$have" = "$want" ] || problems+=("info $key: ilmap '$have', oracle '$want'")
        done <"$tmp/oinfo"
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
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
