#!/bin/bash
# check-cecil-files.sh SOURCE_DIR SHARED_DIR OUTDIR ILMAP MSF_LISTING LOOKUP_TESTS - the Windows
# PDBs of corpus/windows/cecil.tsv: real files from Mono.Cecil's own test resources that show
# what the NuGet corpus lacks (a C++/CLI PDB that repeats an IL offset, a VB PDB whose hidden
# points carry columns). They are in no NuGet package, so they are not restored: they are read
# from a checkout of that repository named by $ILMAP_CECIL_DIR (each at its path), else from any
# SHARED_DIR/corpus-more/*/ (where ../shared keeps them: cecil_MixedNativeCLI, cecil_VBConsApp,
# apart from corpus-public/, whose walkers take every PDB outside win_* for a Portable one) or
# SHARED_DIR/corpus-public/*/ folder holding a file of the same name; every file must have the
# manifest's SHA-256. Then:
#   1. check-win.sh --ilmap: Mono.Cecil's listing == decode/msf's == `ilmap dump` of the PDB ==
#      `ilmap dump` of the cache compiled from the assembly with --pdb;
#   2. LOOKUP_TESTS (Windows/WindowsLookup.*): every method x every IL offset 0..last+16, the
#      cache's lookup == the naive walk of the PDB's points (SPEC section 6);
#   3. what each row's `shows` column names, stated on the cache: both points at the repeated
#      offset in PDB order and the later one answering; the hidden points' columns.
# Exit 0 ok, 1 a check failed or a file differs from the manifest, 77 (skip) without dotnet or
# without the files.
set -u
if [ $# -ne 6 ]; then
    echo "usage: $0 SOURCE_DIR SHARED_DIR OUTDIR ILMAP MSF_LISTING LOOKUP_TESTS" >&2
    exit 1
fi
src=$1 shared=$2 out=$3 ilmap=$4 ours=$5 lookup=$6
here=$(cd "$(dirname "$0")" && pwd)
manifest=$src/corpus/windows/cecil.tsv
command -v dotnet >/dev/null || { echo "SKIP: dotnet not found"; exit 77; }

# find REPO_PATH SHA256: prints the path of a file of that name and SHA-256, or nothing; says so
# on stderr when a file of that name has other bytes (a failure, as in corpus/windows/restore.sh).
find_file() {
    local c
    for c in ${ILMAP_CECIL_DIR:+"$ILMAP_CECIL_DIR/$1"} "$shared"/corpus-more/*/"$(basename "$1")" \
             "$shared"/corpus-public/*/"$(basename "$1")"; do
        [ -f "$c" ] || continue
        [ "$(sha256sum <"$c" | cut -c1-64)" = "$2" ] && { echo "$c"; return; }
        echo "FAIL $c: SHA-256 differs from corpus/windows/cecil.tsv" >&2
    done
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-win-cecil.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/pairs"; : >"$tmp/inputs"
missing=0
while IFS=$'\t' read -r name repo commit pdb pe _ _ pdb_sha pe_sha _; do
    case "$name" in case|\#*|"") continue ;; esac
    p=$(find_file "$pdb" "$pdb_sha" 2>>"$tmp/differs") a=$(find_file "$pe" "$pe_sha" 2>>"$tmp/differs")
    if [ -z "$p" ] || [ -z "$a" ]; then
        echo "$name: $repo $commit $pdb and ${pe##*/} not found with the manifest's SHA-256"
        missing=$((missing + 1)); continue
    fi
    printf '%s\t%s\t%s\n' "$name" "$p" "$a" >>"$tmp/pairs"
    printf '%s.pdb\t%s\n%s.%s\t%s\n' "$name" "$p" "$name" "${a##*.}" "$a" >>"$tmp/inputs"
    cp "$p" "$tmp/$name.pdb"; cp "$a" "$tmp/$name.${a##*.}"
done <"$manifest"
if [ -s "$tmp/differs" ]; then
    cat "$tmp/differs"
    exit 1
fi
if [ ! -s "$tmp/pairs" ]; then
    echo "SKIP: the files of corpus/windows/cecil.tsv are in no NuGet package; set ILMAP_CECIL_DIR to a checkout of Mono.Cecil's repository (or put them in a ../shared/corpus-more folder)"
    exit 77
fi
status=0
[ $missing -eq 0 ] || status=1
"$here/check-win.sh" --ilmap "$ilmap" --pairs "$tmp/pairs" /nonexistent "$out" "$ours" || status=$?
[ $status -eq 77 ] && exit 77
echo "-- lookups on every offset (naive rule), $(wc -l <"$tmp/inputs") inputs"
ILMAP_TEST_WINDOWS_INPUTS=$tmp/inputs "$lookup" --gtest_filter='Windows/WindowsLookup.*' --gtest_brief=1 || status=1

# expect NAME WHAT COMMAND...: runs COMMAND, prints "ok NAME: WHAT" or what went wrong.
expect() {
    local name=$1 what=$2
    shift 2
    if "$@"; then echo "ok $name: $what"; else echo "FAIL $name: $what"; status=1; fi
}
quiet() { "$@" >/dev/null; }
cache_of() { "$ilmap" compile -q "$tmp/$1.${2}" --pdb "$tmp/$1.pdb" -o "$tmp/$1.ilmap" && "$ilmap" dump "$tmp/$1.ilmap" >"$tmp/$1.txt"; }
if [ -f "$tmp/cecil-mixednativecli.pdb" ]; then
    n=cecil-mixednativecli
    cache_of $n exe || { echo "FAIL $n: compile"; status=1; }
    grep '^0x06000008 42 ' "$tmp/$n.txt" | sed 's/.*\\//' >"$tmp/42.txt"
    printf 'minternal.h 340:0-340:0\nminternal.h 341:0-341:0\n' >"$tmp/42.want"
    expect $n "the cache keeps both points at IL 42 of 0x06000008, lines 340 then 341" cmp -s "$tmp/42.txt" "$tmp/42.want"
    expect $n "IL 42 of 0x06000008 answers the later point (line 341)" \
        test "$("$ilmap" lookup "$tmp/$n.ilmap" 0x06000008 42 | sed 's/.*\\//')" = "minternal.h:341:0"
    expect $n "ilmap verify of the cache" quiet "$ilmap" verify -- "$tmp/$n.ilmap"
fi
if [ -f "$tmp/cecil-vbconsapp.pdb" ]; then
    n=cecil-vbconsapp
    cache_of $n exe || { echo "FAIL $n: compile"; status=1; }
    expect $n "the cache keeps the columns of 43 hidden points (16707566:1-16707566:2)" \
        test "$(grep -c ' 16707566:1-16707566:2 hidden$' "$tmp/$n.txt")" = 43
    expect $n "ilmap verify of the cache" quiet "$ilmap" verify -- "$tmp/$n.ilmap"
fi
exit $status
