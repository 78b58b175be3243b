#!/bin/bash
# check-mono.sh NAMES_DUMP
# ilmap's Mono frame text (third column of ilmap_names_dump) against the Mono runtime's own
# (mono/MonoNames.cs, Mono's StackTrace.ToString) for every method of mono/Shapes.cs, both built
# here with Mono's C# compiler (mcs). Corpus DLLs target .NET 10, which Mono cannot load, hence a
# program of its own. Exit: 0 equal, 1 different, 2 usage, 77 mono or mcs absent.
set -u
export LC_ALL=C
if [ $# -ne 1 ]; then
    echo "usage: $0 NAMES_DUMP" >&2
    exit 2
fi
dump=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v mono >/dev/null && command -v mcs >/dev/null || { echo "SKIP: mono or mcs not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oracle-mono.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mcs -nologo -unsafe -target:library -nowarn:1998 -out:"$tmp/Shapes.dll" "$here/mono/Shapes.cs" >"$tmp/log" 2>&1 &&
    mcs -nologo -out:"$tmp/MonoNames.exe" "$here/mono/MonoNames.cs" >>"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; echo "FAIL: mcs"; exit 1; }
"$dump" "$tmp/Shapes.dll" | cut -f1,3 >"$tmp/ilmap" || { echo "FAIL: $dump"; exit 1; }
rows=$(wc -l <"$tmp/ilmap")
mono "$tmp/MonoNames.exe" "$tmp/Shapes.dll" "$rows" >"$tmp/mono" 2>"$tmp/err" || { cat "$tmp/err"; echo "FAIL: mono"; exit 1; }
if cmp -s "$tmp/mono" "$tmp/ilmap"; then
    echo "ok   mono Shapes ($rows methods)"
    echo "1 passed, 0 failed"
    exit 0
fi
echo "FAIL mono Shapes (< mono, > ilmap)"
diff "$tmp/mono" "$tmp/ilmap" | grep '^[<>]' | head -n 20 | sed 's/^/     /'
echo "0 passed, 1 failed"
exit 1
