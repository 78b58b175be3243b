#!/usr/bin/env bash
# check.sh MODE ARGS... - corpus and CLI checks of `ilmap dump`, one CTest test per call.
#
#   expected  ILMAP PDB EXPECTED_TXT   dump == body of EXPECTED_TXT (lines not starting with '#')
#   oracle    ILMAP ORACLE PDB         dump == `Oracle listing`, dump --documents == `Oracle documents`
#   windows   ILMAP DIR                a win_* folder (one Windows PDB, its DLL, the expected
#                                      listing): dump of the .pdb and the .dll, and of the caches
#                                      compiled from each, == the listing's body; info of the .pdb
#                                      says windows-pdb with the SSQP key of the DLL's CodeView;
#                                      the DLL beside another win_* PDB under its name: exit 3;
#                                      a directory holding the DLL and its PDB compiles the DLL
#   truncated ILMAP PROBE PDB          a copy cut in the middle of #Blob: exit 2, error names a
#                                      structure and a 0x offset, stdout empty
#   bad-blob  ILMAP PROBE PDB EXPECTED_TXT
#                                      a copy whose one method's sequence-points blob starts with
#                                      0xFF (invalid compressed integer): exit 2, the error names
#                                      that MethodDebugInformation row, and stdout is the expected
#                                      listing without that method's lines
# PROBE is ilmap_test_pdb_probe (tests/corpus/pdb_probe.cpp): it finds the #Blob heap and a
# method's blob with ilmap's decoder. Exit 0 pass, 1 fail, 77 skip (input or oracle absent).
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
need_file() { [[ -f "$1" ]] || skip "$1 not found"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-corpus-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

# diff_or_fail EXPECTED ACTUAL LABEL
diff_or_fail() {
  if ! cmp -s "$1" "$2"; then
    diff -u "$1" "$2" | head -40 >&2 || true
    fail "$3 differs ($(wc -l <"$1") expected lines, $(wc -l <"$2") actual)"
  fi
}

mode=${1:?mode}
shift
case "$mode" in
  expected)
    ilmap=$1 pdb=$2 expected=$3
    need_file "$pdb"; need_file "$expected"
    grep -v '^#' "$expected" >"$work/expected" || true
    "$ilmap" dump "$pdb" >"$work/actual" || fail "ilmap dump $pdb exited $?"
    diff_or_fail "$work/expected" "$work/actual" "listing of $pdb"
    echo "ok: $(wc -l <"$work/actual") points"
    ;;
  oracle)
    ilmap=$1 oracle=$2 pdb=$3
    [[ -x "$oracle" ]] || skip "oracle $oracle not built"
    need_file "$pdb"
    "$oracle" listing "$pdb" >"$work/oracle-listing" || fail "Oracle listing $pdb exited $?"
    "$ilmap" dump "$pdb" >"$work/ilmap-listing" || fail "ilmap dump $pdb exited $?"
    diff_or_fail "$work/oracle-listing" "$work/ilmap-listing" "listing of $pdb vs oracle"
    # The oracle prints the language GUID; ilmap's text prints the label (C#, VB, F#, unknown, other).
    "$oracle" documents "$pdb" >"$work/oracle-guids" || fail "Oracle documents $pdb exited $?"
    awk -F'\t' -v OFS='\t' '{ $3 = $3 == "3f5162f8-07c6-11d3-9053-00c04fa302a1" ? "C#" : $3 == "3a12d0b8-c26c-11d0-b442-00a0244a1dd2" ? "VB" : $3 == "ab4f38c9-b6e6-43ba-be3b-58080b2ccce3" ? "F#" : $3 == "00000000-0000-0000-0000-000000000000" ? "unknown" : "other"; print }' "$work/oracle-guids" >"$work/oracle-docs"
    "$ilmap" dump --documents "$pdb" >"$work/ilmap-docs" || fail "ilmap dump --documents $pdb exited $?"
    diff_or_fail "$work/oracle-docs" "$work/ilmap-docs" "documents of $pdb vs oracle"
    echo "ok: $(wc -l <"$work/ilmap-listing") points, $(wc -l <"$work/ilmap-docs") documents"
    ;;
  windows)
    ilmap=$1 dir=$2
    pdbs=("$dir"/*.pdb) dlls=("$dir"/*.dll)
    pdb=${pdbs[0]} dll=${dlls[0]}
    need_file "$pdb"; need_file "$dll"; need_file "$dir/expected-sequence-points.txt"
    grep -v '^#' "$dir/expected-sequence-points.txt" >"$work/expected" || true
    for input in "$pdb" "$dll"; do
      name=$(basename "$input")
      "$ilmap" dump "$input" >"$work/actual" || fail "ilmap dump $name exited $?"
      diff_or_fail "$work/expected" "$work/actual" "dump of $name"
      "$ilmap" compile -q "$input" -o "$work/$name.ilmap" || fail "ilmap compile $name exited $?"
      "$ilmap" dump "$work/$name.ilmap" >"$work/actual" || fail "ilmap dump $name.ilmap exited $?"
      diff_or_fail "$work/expected" "$work/actual" "dump of the cache of $name"
    done
    "$ilmap" info --json "$pdb" >"$work/info" || fail "ilmap info $pdb exited $?"
    grep -q '"kind": "windows-pdb"' "$work/info" || fail "info kind: $(head -5 "$work/info")"
    key=$("$ilmap" info "$dll" | sed -n 's/^codeview_ssqp_key: *//p')
    [[ -n $key ]] || fail "info $dll: no codeview_ssqp_key"
    "$ilmap" info "$work/$(basename "$dll").ilmap" | grep '^ssqp_key:' | grep -qF "$key" ||
      fail "the cache of $(basename "$dll") does not carry the SSQP key $key"
    # Another win_* PDB under this one's name: a mismatch (exit 3), naming both ids.
    other=""
    for p in "$dir"/../win_*/*.pdb; do [[ $(basename "$p") != $(basename "$pdb") ]] && other=$p && break; done
    if [[ -n $other ]]; then
      mkdir "$work/stale"
      cp "$dll" "$work/stale/"
      cp "$other" "$work/stale/$(basename "$pdb")"
      rc=0
      "$ilmap" compile "$work/stale/$(basename "$dll")" 2>"$work/err" || rc=$?
      [[ $rc -eq 3 ]] || fail "stale PDB: exit $rc, expected 3 ($(cat "$work/err"))"
      grep -q "has Windows PDB id" "$work/err" || fail "stale PDB: $(cat "$work/err")"
    fi
    # Directory mode: the DLL compiles through its PDB (which is not compiled on its own).
    mkdir "$work/bin"
    cp "$dll" "$pdb" "$work/bin/"
    "$ilmap" compile -q "$work/bin" || fail "compile of a directory exited $?"
    [[ $(find "$work/bin" -name '*.ilmap' | wc -l) -eq 1 ]] || fail "directory mode: $(ls "$work/bin")"
    "$ilmap" dump "$work/bin/$(basename "$dll" .dll).ilmap" >"$work/actual" || fail "dump of the directory's cache"
    diff_or_fail "$work/expected" "$work/actual" "dump of the directory's cache"
    echo "ok: $(wc -l <"$work/expected") points"
    ;;
  truncated)
    ilmap=$1 probe=$2 pdb=$3
    need_file "$pdb"
    "$probe" "$pdb" >"$work/probe" || fail "probe failed on $pdb"
    off=$(sed -n 's/^blob_heap_offset=//p' "$work/probe")
    size=$(sed -n 's/^blob_heap_size=//p' "$work/probe")
    cut=$((off + size / 2))
    head -c "$cut" "$pdb" >"$work/cut.pdb"
    rc=0
    "$ilmap" dump "$work/cut.pdb" >"$work/out" 2>"$work/err" || rc=$?
    [[ $rc -eq 2 ]] || fail "exit $rc, expected 2 (stderr: $(cat "$work/err"))"
    [[ $(wc -l <"$work/err") -eq 1 ]] || fail "expected a one-line error, got: $(cat "$work/err")"
    grep -Eq "(#Blob|stream|table|heap|blob).*0x[0-9a-fA-F]+" "$work/err" ||
      fail "error does not name a structure and an offset: $(cat "$work/err")"
    [[ ! -s "$work/out" ]] || fail "stdout not empty after a fatal error"
    echo "ok (cut at $cut of #Blob $off+$size): $(cat "$work/err")"
    ;;
  bad-blob)
    ilmap=$1 probe=$2 pdb=$3 expected=$4
    need_file "$pdb"; need_file "$expected"
    "$probe" "$pdb" >"$work/probe" || fail "probe failed on $pdb"
    rid=$(sed -n 's/^method_rid=//p' "$work/probe")
    at=$(sed -n 's/^sp_blob_offset=//p' "$work/probe")
    cp "$pdb" "$work/bad.pdb"
    printf '\377' | dd of="$work/bad.pdb" bs=1 seek="$at" conv=notrunc status=none
    cmp -s "$pdb" "$work/bad.pdb" && fail "patch did not change the file"
    token=$(printf '0x%08x' $((0x06000000 | rid)))
    grep -v '^#' "$expected" | grep -v "^$token " >"$work/expected" || true
    [[ $(grep -v '^#' "$expected" | grep -c "^$token ") -gt 0 ]] || fail "method $token has no expected lines"
    rc=0
    "$ilmap" dump "$work/bad.pdb" >"$work/out" 2>"$work/err" || rc=$?
    [[ $rc -eq 2 ]] || fail "exit $rc, expected 2 (stderr: $(cat "$work/err"))"
    grep -q "MethodDebugInformation row $rid\b" "$work/err" ||
      fail "error does not name MethodDebugInformation row $rid: $(cat "$work/err")"
    grep -Eq "0x[0-9a-fA-F]+" "$work/err" || fail "error has no offset: $(cat "$work/err")"
    diff_or_fail "$work/expected" "$work/out" "listing without method $token"
    echo "ok (method $token, blob at file offset $at): $(cat "$work/err")"
    ;;
  *)
    echo "usage: check.sh expected|oracle|windows|truncated|bad-blob ARGS..." >&2
    exit 2
    ;;
esac
