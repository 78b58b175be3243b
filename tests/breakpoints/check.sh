#!/bin/bash
# check.sh ILMAP CORPUS_DIR [EXPECTED_TSV]
# Breakpoints bound as netcoredbg binds them (SPEC.md 6.2, issue 24 item 6): compiles
# CORPUS_DIR/out/cs-breakpoints/Ilmap.Corpus.Breakpoints.dll (with method names), then for every
# row of expected.tsv runs `ilmap lines CACHE QUERY:LINE`, LINE being the line of the "at" marker,
# and checks the answer: as many bindings as the row names methods, each in the document and on
# the line of the "expect" marker, each binding's method name (`dump --methods`, in token order)
# containing the row's name; "none": exit 3 and no binding. The cache of the PDB alone (no method
# names) must answer every row the same. Markers are "// [name]" comments of
# CORPUS_DIR/src/Breakpoints/FILE.
# Exit: 0 every row agrees, 1 a row disagrees, 2 usage or a broken row, 77 the corpus is missing.
set -u
export LC_ALL=C
here=$(dirname "$(realpath "$0")")
if [ $# -lt 2 ]; then
    echo "usage: $0 ILMAP CORPUS_DIR [EXPECTED_TSV]" >&2
    exit 2
fi
ilmap=$1
corpus=$2
tsv=${3:-$here/expected.tsv}
dll=$corpus/out/cs-breakpoints/Ilmap.Corpus.Breakpoints.dll
src=$corpus/src/Breakpoints
if [ ! -f "$dll" ] || [ ! -d "$src" ]; then
    echo "SKIP: $dll or $src not found"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/breakpoints.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$ilmap" compile -q "$dll" -o "$tmp/c.ilmap" || { echo "FAIL: ilmap compile $dll"; exit 1; }
"$ilmap" dump --methods "$tmp/c.ilmap" >"$tmp/methods" || { echo "FAIL: ilmap dump --methods"; exit 1; }
# The PDB alone, without method names: constructors are then the rows sharing a point's span
# (SPEC.md 6.2 step 6); every answer must be the same as with names.
mkdir "$tmp/alone"
cp "${dll%.dll}.pdb" "$tmp/alone/"
"$ilmap" compile -q "$tmp/alone/Ilmap.Corpus.Breakpoints.pdb" -o "$tmp/n.ilmap" || { echo "FAIL: ilmap compile of the PDB alone"; exit 1; }
if "$ilmap" dump --methods "$tmp/n.ilmap" 2>/dev/null | grep -q .; then echo "FAIL: the PDB alone gave a cache with method names"; exit 1; fi

# marker FILE#NAME -> line number (exactly one "// [NAME]" in FILE), else exit 2.
marker_line() {
    local file=${1%%#*} name=${1#*#} n
    n=$(grep -nF "// [$name]" "$src/$file" | cut -d: -f1)
    if [ -z "$n" ] || [ "$(printf '%s\n' "$n" | wc -l)" -ne 1 ]; then
        echo "broken row: marker [$name] is not on exactly one line of $file" >&2
        exit 2
    fi
    printf '%s' "$n"
}

pass=0 fail=0
while IFS=$'\t' read -r query at expect methods cite; do
    case "$query" in '#'*|'') continue ;; esac
    line=$(marker_line "$at") || exit 2
    what="$query:$line ($cite)"
    "$ilmap" lines "$tmp/c.ilmap" "$query:$line" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$expect" = none ]; then
        if [ $rc -eq 3 ] && [ ! -s "$tmp/out" ]; then
            pass=$((pass + 1))
        else
            echo "FAIL $what: expected no binding (exit 3), got exit $rc:"; cat "$tmp/out" "$tmp/err"
            fail=$((fail + 1))
        fi
        continue
    fi
    want_line=$(marker_line "$expect") || exit 2
    want_doc=/_/Breakpoints/${expect%%#*}
    IFS=';' read -r -a want_methods <<<"$methods"
    problems=()
    [ $rc -eq 0 ] || problems+=("exit $rc: $(head -n1 "$tmp/err")")
    mapfile -t got <"$tmp/out"
    [ ${#got[@]} -eq ${#want_methods[@]} ] || problems+=("${#got[@]} bindings, expected ${#want_methods[@]}")
    for i in "${!got[@]}"; do
        # TOKEN IL PATH LINE:COLUMN-END_LINE:END_COLUMN (the path has no spaces here)
        read -r token il path span <<<"${got[$i]}"
        [ "$path" = "$want_doc" ] || problems+=("binding $i in $path, expected $want_doc")
        [ "${span%%:*}" = "$want_line" ] || problems+=("binding $i on line ${span%%:*}, expected $want_line")
        name=$(awk -F'\t' -v t="$token" '$1 == t { print $2 }' "$tmp/methods")
        want=${want_methods[$i]:-}
        [[ -n $want && $name == *"$want"* ]] || problems+=("binding $i in $token $name, expected a method named *$want*")
    done
    "$ilmap" lines "$tmp/n.ilmap" "$query:$line" >"$tmp/out.n" 2>/dev/null
    cmp -s "$tmp/out" "$tmp/out.n" || problems+=("without method names: $(tr '\n' ' ' <"$tmp/out.n")")
    if [ ${#problems[@]} -eq 0 ]; then
        pass=$((pass + 1))
    else
        echo "FAIL $what:"
        printf '  %s\n' "${problems[@]}"
        sed 's/^/  ilmap: /' "$tmp/out"
        fail=$((fail + 1))
    fi
done <"$tsv"
echo "netcoredbg bindings: $pass agree, $fail disagree"
[ $pass -gt 0 ] || { echo "FAIL: no row checked"; exit 1; }
[ $fail -eq 0 ]
