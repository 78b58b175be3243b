#!/bin/bash
# check-win.sh [--ilmap ILMAP] [--pairs FILE] SHARED_DIR OUTDIR MSF_LISTING [DIR...] - builds the
# Mono.Cecil oracle into OUTDIR and compares its listing with decode/msf's (MSF_LISTING PDB),
# byte for byte, for every SHARED_DIR/corpus-public/win_*/ folder (its PDB and DLL) and, in each
# further DIR, every Windows PDB with an assembly of the same base name (.dll or .exe) beside it.
#   --pairs FILE  compare these instead (lines NAME<TAB>PDB<TAB>ASSEMBLY; the win_* folders and
#                 DIRs are then not searched): corpus/windows through check-nuget.sh
#   --ilmap ILMAP also compile each (`ilmap compile ASSEMBLY --pdb PDB`: the PDB's GUID and age
#                 must match the assembly's CodeView entry) and compare `ilmap dump` of the cache,
#                 and of the PDB itself, with Mono.Cecil's listing
# Exit 77 (skip) without dotnet, without the Mono.Cecil package, or with nothing to compare.
set -u
ilmap="" pairs_file=""
while [ $# -gt 0 ]; do
    case "$1" in
        --ilmap) ilmap=$2; shift 2 ;;
        --pairs) pairs_file=$2; shift 2 ;;
        *) break ;;
    esac
done
if [ $# -lt 3 ]; then
    echo "usage: $0 [--ilmap ILMAP] [--pairs FILE] SHARED_DIR OUTDIR MSF_LISTING [DIR...]" >&2
    exit 1
fi
shared=$1 out=$2 ours=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)

pairs=()  # "name|pdb|assembly"
if [ -n "$pairs_file" ]; then
    while IFS=$'\t' read -r name pdb asm; do
        [ -n "$name" ] && pairs+=("$name|$pdb|$asm")
    done <"$pairs_file"
    set --  # no DIRs
    shared=/nonexistent
fi
for dir in "$shared"/corpus-public/win_*/; do
    [ -d "$dir" ] || continue
    pdb=$(ls "$dir"*.pdb | head -n 1)
    asm=$(ls "$dir"*.dll "$dir"*.exe 2>/dev/null | head -n 1)
    pairs+=("$(basename "$dir")|$pdb|$asm")
done
for dir in "$@"; do
    for pdb in "$dir"/*.pdb; do
        [ -f "$pdb" ] || continue
        [ "$(head -c 24 "$pdb" | tr -d '\0')" = "Microsoft C/C++ MSF 7.00" ] || continue
        base=${pdb%.pdb}
        asm=""
        for ext in dll exe; do [ -f "$base.$ext" ] && asm="$base.$ext"; done
        [ -n "$asm" ] && pairs+=("$(basename "$pdb")|$pdb|$asm")
    done
done
if [ ${#pairs[@]} -eq 0 ]; then
    echo "SKIP: no Windows PDBs (no win_* folders under $shared/corpus-public)"
    exit 77
fi
oracle=$("$here/build.sh" "$out")
rc=$?
[ $rc -eq 0 ] || { echo "$oracle"; exit $rc; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0 n=0
for pair in "${pairs[@]}"; do
    IFS='|' read -r name pdb asm <<<"$pair"
    if ! "$oracle" "$asm" "$pdb" >"$tmp/cecil.txt"; then
        echo "FAIL $name: the oracle could not read it"; status=1; continue
    fi
    if ! "$ours" "$pdb" >"$tmp/ours.txt"; then
        echo "FAIL $name: decode/msf could not read it"; status=1; continue
    fi
    if ! cmp -s "$tmp/cecil.txt" "$tmp/ours.txt"; then
        echo "FAIL $name: listings differ (< Mono.Cecil, > decode/msf)"
        diff "$tmp/cecil.txt" "$tmp/ours.txt" | head -n 20
        status=1; continue
    fi
    if [ -n "$ilmap" ]; then
        if ! "$ilmap" compile -q "$asm" --pdb "$pdb" -o "$tmp/cache.ilmap"; then
            echo "FAIL $name: ilmap compile $(basename "$asm") --pdb $(basename "$pdb") failed"; status=1; continue
        fi
        for what in cache pdb; do
            input=$tmp/cache.ilmap
            [ $what = pdb ] && input=$pdb
            if ! "$ilmap" dump "$input" >"$tmp/dump.txt" || ! cmp -s "$tmp/cecil.txt" "$tmp/dump.txt"; then
                echo "FAIL $name: ilmap dump of the $what differs from Mono.Cecil (< Mono.Cecil, > ilmap)"
                diff "$tmp/cecil.txt" "$tmp/dump.txt" | head -n 20
                status=1; continue 2
            fi
        done
    fi
    n=$((n + 1))
    echo "ok $name ($(wc -l <"$tmp/ours.txt") points)"
done
echo "$n of ${#pairs[@]} Windows PDBs: Mono.Cecil and decode/msf agree"
exit $status
