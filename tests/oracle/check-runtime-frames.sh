#!/bin/bash
# check-runtime-frames.sh REPO_ROOT ORACLE_BIN
# Cross-checks the oracle's `lookup` (the StackTraceSymbols rule over SRM) against the .NET runtime's
# own answers recorded in REPO_ROOT/corpus/runtime-frames.tsv (columns by header name: assembly, token,
# il_offset, file, line, column). Each frame's assembly is looked up as
# REPO_ROOT/corpus/out/*/<assembly>.dll. A frame the runtime left without a line (empty file or line 0)
# must get ??:0:0.
# Exit: 0 all agree, 1 some disagree, 2 usage, 77 the TSV or the oracle is absent.
set -u
export LC_ALL=C
if [ $# -ne 2 ]; then
    echo "usage: $0 REPO_ROOT ORACLE_BIN" >&2
    exit 2
fi
root=$1
oracle=$2
tsv=$root/corpus/runtime-frames.tsv
[ -f "$tsv" ] || { echo "SKIP: $tsv not found"; exit 77; }
[ -x "$oracle" ] || { echo "SKIP: oracle $oracle not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oracle-frames.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Normalize to: assembly token il file line column (tab-separated), whatever the column order.
awk -F'\t' '
    NR == 1 { sub(/^#/, ""); for (i = 1; i <= NF; i++) col[$i] = i
              if (!("assembly" in col) || !("token" in col) || !("il_offset" in col) || !("file" in col) ||
                  !("line" in col) || !("column" in col)) { print "bad header" > "/dev/stderr"; exit 3 }
              next }
    /^#/ || NF == 0 { next }
    { print $col["assembly"] "\t" $col["token"] "\t" $col["il_offset"] "\t" $col["file"] "\t" $col["line"] "\t" $col["column"] }
' "$tsv" >"$tmp/frames" || { echo "FAIL: cannot parse the header of $tsv"; exit 1; }

pass=0
fail=0
for asm in $(cut -f1 "$tmp/frames" | sort -u); do
    dlls=("$root"/corpus/out/*/"$asm".dll)
    if [ ! -f "${dlls[0]}" ]; then
        echo "FAIL $asm: no corpus/out/*/$asm.dll"
        fail=$((fail + 1))
        continue
    fi
    awk -F'\t' -v a="$asm" '$1 == a' "$tmp/frames" >"$tmp/a"
    cut -f2,3 "$tmp/a" | tr '\t' ' ' | "$oracle" lookup "${dlls[0]}" >"$tmp/out" 2>"$tmp/err" || {
        echo "FAIL $asm: oracle lookup failed: $(head -n1 "$tmp/err")"
        fail=$((fail + 1))
        continue
    }
    # oracle line: TOKEN IL PATH:SL:SC:EL:EC or TOKEN IL ??:0:0 (PATH may contain spaces)
    paste -d'\t' "$tmp/a" "$tmp/out" | awk -F'\t' '
        {
            ans = $7; sub(/^[^ ]+ [^ ]+ /, "", ans)
            if ($4 == "" || $5 == 0) want = "??:0:0"
            else want = $4 ":" $5 ":" $6
            got = ans
            if (got != "??:0:0") sub(/:[0-9]+:[0-9]+$/, "", got)
            if (got == want) ok++
            else { bad++; if (bad <= 5) print "     " $2 " " $3 ": runtime " want ", oracle " ans }
        }
        END { printf "%d %d\n", ok, bad > "/dev/stderr" }' 2>"$tmp/counts" >"$tmp/diffs"
    read -r ok bad <"$tmp/counts"
    if [ "$bad" -eq 0 ]; then
        echo "ok   $asm ($ok frames)"
        pass=$((pass + 1))
    else
        echo "FAIL $asm ($bad of $((ok + bad)) frames disagree)"
        cat "$tmp/diffs"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
