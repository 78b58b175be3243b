#!/bin/bash
# check-nuget.sh SOURCE_DIR OUTDIR ILMAP MSF_LISTING LOOKUP_TESTS - the Windows PDB corpus of
# corpus/windows/manifest.tsv (real PDBs and their assemblies from older NuGet packages):
#   1. corpus/windows/restore.sh restores the packages (NuGet's global folder) and checks each
#      file's MSF signature and SHA-256;
#   2. check-win.sh --ilmap: for every row, Mono.Cecil's listing == decode/msf's ==
#      `ilmap dump` of the PDB == `ilmap dump` of the cache compiled from the assembly with
#      --pdb (GUID and age must match);
#   3. LOOKUP_TESTS (ilmap_cache_lookup_tests, Windows/WindowsLookup.*): on every row's PDB and
#      assembly, every method x every IL offset 0..last+16, the cache's lookup == the naive walk.
# Exit 77 (skip) without dotnet or when the packages cannot be restored.
set -u
if [ $# -ne 5 ]; then
    echo "usage: $0 SOURCE_DIR OUTDIR ILMAP MSF_LISTING LOOKUP_TESTS" >&2
    exit 1
fi
src=$1 out=$2 ilmap=$3 ours=$4 lookup=$5
here=$(cd "$(dirname "$0")" && pwd)
manifest=$src/corpus/windows/manifest.tsv
root=$("$src/corpus/windows/restore.sh" "$manifest")
rc=$?
[ $rc -eq 0 ] || exit $rc
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-win-nuget.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/pairs" ; : >"$tmp/inputs"
while IFS=$'\t' read -r name package version pdb pe _; do
    case "$name" in case|\#*|"") continue ;; esac
    dir=$root/$(printf '%s' "$package" | tr '[:upper:]' '[:lower:]')/$version
    printf '%s\t%s\t%s\n' "$name" "$dir/$pdb" "$dir/$pe" >>"$tmp/pairs"
    printf '%s.pdb\t%s\n%s.dll\t%s\n' "$name" "$dir/$pdb" "$name" "$dir/$pe" >>"$tmp/inputs"
done <"$manifest"
status=0
"$here/check-win.sh" --ilmap "$ilmap" --pairs "$tmp/pairs" /nonexistent "$out" "$ours" || status=$?
[ $status -eq 77 ] && exit 77
echo "-- lookups on every offset (naive rule), $(wc -l <"$tmp/inputs") inputs"
ILMAP_TEST_WINDOWS_INPUTS=$tmp/inputs "$lookup" --gtest_filter='Windows/WindowsLookup.*' --gtest_brief=1 || status=1
exit $status
