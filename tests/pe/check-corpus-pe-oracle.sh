#!/bin/bash
# check-corpus-pe-oracle.sh ILMAP ORACLE_BIN CORPUS_DIR
# For every DLL row of CORPUS_DIR/manifest.tsv (columns: case dll pdb kind language, paths
# relative to CORPUS_DIR), compare ilmap with the SRM oracle (tests/oracle):
#   - `ilmap dump DLL` vs `ORACLE listing DLL`, byte for byte;
#   - `ilmap dump --documents DLL` vs `ORACLE documents DLL`, byte for byte once the oracle's
#     language GUID is turned into ilmap's label (C#, VB, F#, unknown, other);
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

# Column 3 of `ORACLE documents` (the language GUID) as ilmap's text prints it.
language_labels() {
    awk -F'\t' -v OFS='\t' '{ $3 = $3 == "3f5162f8-07c6-11d3-9053-00c04fa302a1" ? "C#" : $3 == "3a12d0b8-c26c-11d0-b442-00a0244a1dd2" ? "VB" : $3 == "ab4f38c9-b6e6-43ba-be3b-58080b2ccce3" ? "F#" : $3 == "00000000-0000-0000-0000-000000000000" ? "unknown" : "other"; print }'
}

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
        elif [ "$ocmd" = documents ] && ! { language_labels <"$tmp/exp" >"$tmp/exp.labels" && mv "$tmp/exp.labels" "$tmp/exp"; }; then
            problems+=("could not turn the oracle's language GUIDs into labels")
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
