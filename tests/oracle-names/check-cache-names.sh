#!/bin/bash
# check-cache-names.sh REPO_ROOT NAMES_DUMP ILMAP
# For every corpus PE REPO_ROOT/corpus/out/*/*.dll: `ilmap compile` it, then `ilmap dump --methods`
# of the cache (its names section, format 1.1) and of the PE itself must both equal NAMES_DUMP's
# output (decode/names, which oracle_names checks against the .NET runtime), and the cache
# must verify. Exit: 0 all agree, 1 some differ, 2 usage, 77 no corpus.
set -u
export LC_ALL=C
if [ $# -ne 3 ]; then
    echo "usage: $0 REPO_ROOT NAMES_DUMP ILMAP" >&2
    exit 2
fi
root=$1
dump=$2
ilmap=$3
shopt -s nullglob
dlls=("$root"/corpus/out/*/*.dll)
[ ${#dlls[@]} -gt 0 ] || { echo "SKIP: no corpus/out/*/*.dll"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cache-names.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for dll in "${dlls[@]}"; do
    name=$(basename "$(dirname "$dll")")
    if ! "$dump" "$dll" >"$tmp/want" 2>"$tmp/err"; then
        echo "FAIL $name: names_dump: $(head -n1 "$tmp/err")"; fail=$((fail + 1)); continue
    fi
    if ! "$ilmap" compile -q "$dll" -o "$tmp/c.ilmap" 2>"$tmp/err" || ! "$ilmap" verify "$tmp/c.ilmap" >/dev/null 2>>"$tmp/err"; then
        echo "FAIL $name: compile/verify: $(head -n1 "$tmp/err")"; fail=$((fail + 1)); continue
    fi
    "$ilmap" dump --methods "$tmp/c.ilmap" >"$tmp/cache" 2>"$tmp/err"
    "$ilmap" dump --methods "$dll" >"$tmp/pe" 2>>"$tmp/err"
    if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/cache" && cmp -s "$tmp/want" "$tmp/pe"; then
        echo "ok   $name ($(wc -l <"$tmp/want") methods)"; pass=$((pass + 1))
    else
        echo "FAIL $name (< names_dump, > cache)"
        diff "$tmp/want" "$tmp/cache" | head -n 6 | sed 's/^/     /'
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
