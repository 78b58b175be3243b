#!/bin/bash
# check-lines.sh ILMAP ORACLE_BIN INPUT...
# The breakpoint binding rule (SPEC.md 6.2, no column) from two sides: for each Portable PDB
# INPUT, `ORACLE lines PDB` computes, from System.Reflection.Metadata's sequence points, the
# bindings of line 1 and of every line that starts code and the lines around it, of every
# document (other lines bind as the next line with code does); the same
# queries ("PATH:LINE", the first line of each oracle block) go through `ilmap lines CACHE
# --batch` on the PDB's cache. Both print a query's bindings then an empty line; ilmap's "no code
# at or after line N" error lines are the oracle's empty answers. Inputs that do not exist are
# skipped; the oracle refusing an input (an EnC delta) is a skip too.
# Exit: 0 all compared equal, 1 a difference, 2 usage, 77 ORACLE_BIN missing or nothing compared.
set -u
export LC_ALL=C
if [ $# -lt 3 ]; then
    echo "usage: $0 ILMAP ORACLE_BIN INPUT..." >&2
    exit 2
fi
ilmap=$1
oracle=$2
shift 2
if [ ! -x "$oracle" ]; then
    echo "SKIP: oracle $oracle not found (build it with tests/oracle/build.sh)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oracle-lines.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
for pdb in "$@"; do
    [ -f "$pdb" ] || continue
    name=$(basename "$(dirname "$pdb")")/$(basename "$pdb")
    if ! "$oracle" lines "$pdb" >"$tmp/oracle" 2>"$tmp/err"; then
        echo "skip $name: oracle: $(head -n1 "$tmp/err")"
        skip=$((skip + 1))
        continue
    fi
    if ! "$ilmap" compile -q "$pdb" -o "$tmp/c.ilmap" 2>"$tmp/err"; then
        echo "FAIL $name: ilmap compile: $(head -n1 "$tmp/err")"
        fail=$((fail + 1))
        continue
    fi
    # Queries: the first line of each block; expected: the blocks without their first line.
    awk 'BEGIN { head = 1 } head { print; head = 0; next } /^$/ { head = 1 }' "$tmp/oracle" >"$tmp/queries"
    awk 'BEGIN { head = 1 } head { head = 0; next } { print } /^$/ { head = 1 }' "$tmp/oracle" >"$tmp/expected"
    "$ilmap" lines "$tmp/c.ilmap" --all-methods --batch <"$tmp/queries" >"$tmp/raw" 2>"$tmp/err"
    grep -v '^error: .*: no code at or after line [0-9]*$' "$tmp/raw" >"$tmp/actual"
    if cmp -s "$tmp/expected" "$tmp/actual"; then
        echo "ok   $name ($(wc -l <"$tmp/queries" | tr -d ' ') lines, $(grep -c '^0x' "$tmp/actual") bindings)"
        pass=$((pass + 1))
    else
        echo "FAIL $name (< oracle, > ilmap):"
        diff "$tmp/expected" "$tmp/actual" | head -n 12 | sed 's/^/     /'
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed ($skip skipped)"
[ $fail -eq 0 ] || exit 1
[ $pass -gt 0 ] || exit 77
exit 0
