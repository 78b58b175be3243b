#!/bin/sh
# check-win.sh SHARED_DIR OUTDIR MSF_LISTING - builds the Mono.Cecil oracle into OUTDIR and, for
# every SHARED_DIR/corpus-public/win_*/ folder, compares its listing of the folder's DLL + PDB
# with compiler/msf's (MSF_LISTING PDB), byte for byte. Exit 77 (skip) without dotnet, without
# the Mono.Cecil package, or without win_* folders.
set -u
if [ $# -ne 3 ]; then
    echo "usage: $0 SHARED_DIR OUTDIR MSF_LISTING" >&2
    exit 1
fi
shared=$1 out=$2 ours=$3
here=$(cd "$(dirname "$0")" && pwd)
set -- "$shared"/corpus-public/win_*/
if [ ! -d "$1" ]; then
    echo "SKIP: no win_* folders under $shared/corpus-public"
    exit 77
fi
oracle=$("$here/build.sh" "$out")
rc=$?
[ $rc -eq 0 ] || { echo "$oracle"; exit $rc; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0 n=0
for dir in "$@"; do
    name=$(basename "$dir")
    pdb=$(ls "$dir"*.pdb | head -n 1)
    dll=$(ls "$dir"*.dll "$dir"*.exe 2>/dev/null | head -n 1)
    if ! "$oracle" "$dll" "$pdb" >"$tmp/cecil.txt"; then
        echo "FAIL $name: the oracle could not read it"; status=1; continue
    fi
    if ! "$ours" "$pdb" >"$tmp/ours.txt"; then
        echo "FAIL $name: compiler/msf could not read it"; status=1; continue
    fi
    if ! cmp -s "$tmp/cecil.txt" "$tmp/ours.txt"; then
        echo "FAIL $name: listings differ (< Mono.Cecil, > compiler/msf)"
        diff "$tmp/cecil.txt" "$tmp/ours.txt" | head -n 20
        status=1; continue
    fi
    n=$((n + 1))
    echo "ok $name ($(wc -l <"$tmp/ours.txt") points)"
done
echo "$n of $# Windows PDBs: Mono.Cecil and compiler/msf agree"
exit $status
