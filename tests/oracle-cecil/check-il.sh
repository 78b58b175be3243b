#!/bin/bash
# check-il.sh REPO_ROOT SHARED_DIR OUTDIR IL_LISTING - builds the Mono.Cecil oracle into OUTDIR
# and compares, byte for byte, its instruction boundaries of every method body (CecilOracle --il)
# with decode/MethodBody's (IL_LISTING, tests/decode/il_listing.cpp), for the corpus programs
# (REPO_ROOT/corpus/out/*/*.dll), the PEs of SHARED_DIR/corpus-public (when present) and three
# assemblies of the installed .NET runtime (System.Private.CoreLib: ~39,000 bodies, every opcode
# Roslyn and ILLink emit; System.Linq, System.Text.RegularExpressions).
# Exit 77 (skip) without dotnet, without the Mono.Cecil package, or with no PE to compare.
set -u
[ $# -eq 4 ] || { echo "usage: $0 REPO_ROOT SHARED_DIR OUTDIR IL_LISTING" >&2; exit 1; }
root=$1 shared=$2 out=$3 ours=$4
here=$(cd "$(dirname "$0")" && pwd)
pes=()
for f in "$root"/corpus/out/*/*.dll "$shared"/corpus-public/*/*.dll "$shared"/corpus-public/*/*.exe; do
    [ -f "$f" ] && pes+=("$f")
done
if command -v dotnet >/dev/null; then
    rt=$(dotnet --list-runtimes 2>/dev/null | awk '$1 == "Microsoft.NETCore.App" { d = substr($3, 2, length($3) - 2) "/" $2 } END { print d }')
    for f in System.Private.CoreLib System.Linq System.Text.RegularExpressions; do
        [ -n "$rt" ] && [ -f "$rt/$f.dll" ] && pes+=("$rt/$f.dll")
    done
fi
[ ${#pes[@]} -gt 0 ] || { echo "SKIP: no PE to compare"; exit 77; }
oracle=$("$here/build.sh" "$out")
rc=$?
[ $rc -eq 0 ] || { echo "$oracle"; exit $rc; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0 n=0 methods=0 skipped=0
for pe in "${pes[@]}"; do
    name=${pe#"$root"/}; name=${name#"$shared"/}; name=${name#"${rt:-/nonexistent}"/}
    # Cecil reads only managed PEs; ours refuses the others too (exit 2): both skip them.
    if ! "$ours" "$pe" >"$tmp/ours.txt" 2>"$tmp/ours.err"; then
        echo "skip $name: $(cat "$tmp/ours.err")"; skipped=$((skipped + 1)); continue
    fi
    if ! "$oracle" --il "$pe" >"$tmp/cecil.txt" 2>"$tmp/cecil.err"; then
        echo "FAIL $name: ours decoded it, Mono.Cecil could not: $(cat "$tmp/cecil.err")"; status=1; continue
    fi
    if ! cmp -s "$tmp/cecil.txt" "$tmp/ours.txt"; then
        echo "FAIL $name: instruction boundaries differ (< Mono.Cecil, > decode/MethodBody)"
        diff "$tmp/cecil.txt" "$tmp/ours.txt" | head -n 10
        status=1; continue
    fi
    n=$((n + 1)); methods=$((methods + $(wc -l <"$tmp/ours.txt")))
done
echo "$n of ${#pes[@]} PEs ($methods method bodies): Mono.Cecil and decode/MethodBody agree; $skipped not managed"
[ "$n" -gt 0 ] || { echo "FAIL: nothing compared"; status=1; }
exit $status
