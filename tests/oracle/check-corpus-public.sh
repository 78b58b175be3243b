#!/bin/bash
# check-corpus-public.sh SHARED_DIR ORACLE_BIN
# For every SHARED_DIR/corpus-public/*/expected-sequence-points.txt, compare the SRM oracle with the
# reference listing (produced by Mono.Cecil, an independent reader):
#   - body (lines not starting with '#') vs `ORACLE listing PDB`, byte for byte;
#   - '# doc ...' headers vs `ORACLE documents PDB --referenced` (path, lang, hashalg, hash,
#     embedded_source). The expected files list the documents that sequence points refer to, sorted
#     by path, so both sides are compared sorted (LC_ALL=C);
#   - '# pdb_id: GUID stamp=0x...' vs `ORACLE info PDB`;
#   - '# sequence_points: N hidden: H' vs the counts of the oracle's listing.
# win_* folders (Windows PDBs, no listing) are skipped.
# Exit: 0 all passed, 1 some failed, 2 usage, 77 SHARED_DIR/corpus-public or ORACLE_BIN missing.
set -u
export LC_ALL=C
if [ $# -ne 2 ]; then
    echo "usage: $0 SHARED_DIR ORACLE_BIN" >&2
    exit 2
fi
shared=$1
oracle=$2
corpus=$shared/corpus-public
if [ ! -d "$corpus" ]; then
    echo "SKIP: $corpus not found"
    exit 77
fi
if [ ! -x "$oracle" ]; then
    echo "SKIP: oracle $oracle not found (build it with tests/oracle/build.sh)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oracle-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

pass=0
fail=0
skip=0
for dir in "$corpus"/*/; do
    case=$(basename "$dir")
    case $case in win_*) continue ;; esac
    exp=$dir/expected-sequence-points.txt
    [ -f "$exp" ] || continue
    pdbs=("$dir"*.pdb)
    if [ ${#pdbs[@]} -ne 1 ] || [ ! -f "${pdbs[0]}" ]; then
        echo "FAIL $case: expected exactly one .pdb in $dir"
        fail=$((fail + 1))
        continue
    fi
    pdb=${pdbs[0]}
    problems=()

    # An EnC delta may not be readable standalone by SRM: report a skip, not a failure.
    if ! "$oracle" info "$pdb" >"$tmp/info" 2>"$tmp/err"; then
        if [ "$case" = symreader_EncDelta ]; then
            echo "skip $case: SRM cannot read this EnC delta standalone: $(head -n1 "$tmp/err")"
            skip=$((skip + 1))
            continue
        fi
        problems+=("info failed: $(head -n1 "$tmp/err")")
    fi

    # 1. the listing body, byte for byte
    grep -v '^#' "$exp" >"$tmp/exp-body" || true
    if ! "$oracle" listing "$pdb" >"$tmp/act-body" 2>"$tmp/err"; then
        problems+=("listing failed: $(head -n1 "$tmp/err")")
    elif ! cmp -s "$tmp/exp-body" "$tmp/act-body"; then
        problems+=("listing differs (< expected, > oracle):")
        problems+=("$(diff "$tmp/exp-body" "$tmp/act-body" | head -n 8 | sed "2,\$ s/^/     /")")
    fi

    # 2. document headers
    grep '^# doc ' "$exp" | sort >"$tmp/exp-docs" || true
    if ! "$oracle" documents "$pdb" --referenced >"$tmp/docs" 2>"$tmp/err"; then
        problems+=("documents failed: $(head -n1 "$tmp/err")")
    else
        awk -F'\t' '{ printf "# doc %s lang=%s hashalg=%s hash=%s embedded_source=%s\n", $2, $3, $4, $5, $6 }' \
            "$tmp/docs" | sort >"$tmp/act-docs"
        if ! cmp -s "$tmp/exp-docs" "$tmp/act-docs"; then
            problems+=("document headers differ (< expected, > oracle):")
            problems+=("$(diff "$tmp/exp-docs" "$tmp/act-docs" | head -n 8 | sed "2,\$ s/^/     /")")
        fi
    fi

    # 3. pdb id
    exp_id=$(sed -n 's/^# pdb_id: \([0-9a-f-]*\) stamp=\(0x[0-9a-f]*\)$/\1 \2/p' "$exp")
    act_id=$(awk -F= '$1=="pdb_id_guid"{g=$2} $1=="pdb_id_stamp"{s=$2} END{print g, s}' "$tmp/info")
    if [ -n "$exp_id" ] && [ "$exp_id" != "$act_id" ]; then
        problems+=("pdb_id differs: expected '$exp_id', oracle '$act_id'")
    fi

    # 4. point counts
    exp_counts=$(sed -n 's/^# sequence_points: \([0-9]*\) hidden: \([0-9]*\)$/\1 \2/p' "$exp")
    act_counts="$(wc -l <"$tmp/act-body" | tr -d ' ') $(grep -c ' hidden$' "$tmp/act-body")"
    if [ -n "$exp_counts" ] && [ "$exp_counts" != "$act_counts" ]; then
        problems+=("counts differ: expected '$exp_counts', oracle '$act_counts'")
    fi

    if [ ${#problems[@]} -eq 0 ]; then
        echo "ok   $case ($(wc -l <"$tmp/act-body" | tr -d ' ') points, $(wc -l <"$tmp/act-docs" | tr -d ' ') docs)"
        pass=$((pass + 1))
    else
        echo "FAIL $case"
        printf '     %s\n' "${problems[@]}"
        fail=$((fail + 1))
    fi
done

if [ $skip -gt 0 ]; then
    echo "$pass passed, $fail failed ($skip skipped)"
else
    echo "$pass passed, $fail failed"
fi
[ $fail -eq 0 ] && [ $pass -gt 0 ]
