#!/bin/bash
# hostile.sh REPO_ROOT ILMAP - `ilmap symbolicate` on bad input: binary garbage, NUL bytes, a
# 1 MB line, half frames, absurd tokens and offsets, a module whose PDB does not match. The text
# must pass through byte for byte, the good frames must still resolve, and the summary must say
# why the rest did not. Exit 0 ok, 1 failure, 77 the corpus is absent.
set -u
export LC_ALL=C
root=$1 ilmap=$2
dll=$root/corpus/out/cs-frames/Ilmap.Corpus.Frames.dll
[ -f "$dll" ] || { echo "SKIP: $dll not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-sym-hostile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
mkdir -p "$tmp/good" "$tmp/wrong" "$tmp/cache"
cp "$dll" "${dll%.dll}.pdb" "$tmp/good/"
cp "$dll" "$tmp/wrong/"
cp "$root/corpus/out/cs-signatures/Ilmap.Corpus.Signatures.pdb" "$tmp/wrong/Ilmap.Corpus.Frames.pdb"
good='   at Ilmap.Corpus.Frames.Scenarios.Fail() in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7'
want='   at Ilmap.Corpus.Frames.Scenarios.Fail() in /_/Frames/Scenarios.cs:line 37'

# 1. Garbage (a PE's bytes: NULs, no newlines for long stretches) around one good frame.
{ cat "$dll"; printf '\n%s\n' "$good"; cat "$dll"; } >"$tmp/in1"
{ cat "$dll"; printf '\n%s\n' "$want"; cat "$dll"; } >"$tmp/want1"
"$ilmap" symbolicate --search "$tmp/good" --cache-dir "$tmp/cache" "$tmp/in1" >"$tmp/out1" 2>"$tmp/err1"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$tmp/want1" "$tmp/out1"; then ok "garbage passes through, the frame inside resolves"; else bad "garbage (rc $rc): $(cat "$tmp/err1")"; fi

# 2. Half frames, absurd tokens/offsets, a 1 MB line ending like a frame, NUL inside a frame, CRLF,
#    no final newline: none of them is a frame except the good ones (CRLF kept), the one with
#    a NUL in its method text and the one followed by text (a suffix, kept as it was).
half() {
  printf '%s\n' '   at X.Y() in Ilmap.Corpus.Frames.dll:token 0x600' \
                '   at X.Y() in :token 0x6000001+0x5' \
                '   at X.Y() in Ilmap.Corpus.Frames.dll:token 0xFFFFFFFF+0x0' \
                '   at X.Y() in Ilmap.Corpus.Frames.dll:token 0x6000001+0xFFFFFFFF' \
                '   at X.Y() in Ilmap.Corpus.Frames.dll:token 0x123456789+0x1' \
                '   at X.Y() in Ilmap.Corpus.Frames.dll:token 0x6000001+0x5zz' \
                'at  + 0x(Unknown Source)' \
                '  at X.Y () [0x0zz] in <0123>:0' \
                '   at Asm!0x0600000q!X.Y() +0xc' \
                'MODULE: Asm => x; G:nothex; A:1'
}
{
  half
  printf '%s\n' '   at X.Y() in Ilmap.Corpus.Frames.dll:token 0x0600000a+0x7 trailing'
  head -c 1048576 /dev/zero | tr '\0' 'a'; printf '%s\n' " in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7"
  printf '   at X.Y()\0 in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7\n'
  printf '%s\r\n' "$good"
  printf '%s' "$good"
} >"$tmp/in2"
{
  half
  printf '%s\n' '   at X.Y() in /_/Frames/Scenarios.cs:line 37 trailing'
  head -c 1048576 /dev/zero | tr '\0' 'a'; printf '%s\n' " in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7"
  # The NUL is part of the method text, which is kept: that frame resolves too.
  printf '   at X.Y()\0 in /_/Frames/Scenarios.cs:line 37\n'
  printf '%s\r\n' "$want"
  printf '%s' "$want"
} >"$tmp/want2"
"$ilmap" symbolicate --search "$tmp/good" --cache-dir "$tmp/cache" "$tmp/in2" >"$tmp/out2" 2>"$tmp/err2"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$tmp/want2" "$tmp/out2"; then ok "half frames, absurd numbers, 1 MB line, NUL, suffix, CRLF, no final newline"; else bad "bad frames (rc $rc): $(cat "$tmp/err2")"; cmp "$tmp/want2" "$tmp/out2"; fi
if grep -qx 'ilmap symbolicate: 4 frames, 4 resolved' "$tmp/err2"; then ok "summary: only real frames counted"; else bad "summary: $(cat "$tmp/err2")"; fi

# 3. A module whose PDB has another id: never answered from it.
printf '%s\n' "$good" >"$tmp/in3"
"$ilmap" symbolicate --search "$tmp/wrong" --cache-dir "$tmp/cache2" "$tmp/in3" >"$tmp/out3" 2>"$tmp/err3"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$tmp/in3" "$tmp/out3" &&
   grep -qx 'ilmap symbolicate: 1 frames, 0 resolved, 1 unresolved (1 PDB id mismatch)' "$tmp/err3"; then
  ok "mismatched PDB: frame unchanged, 'PDB id mismatch', exit 0"
else bad "mismatched PDB (rc $rc): $(cat "$tmp/err3")"; fi

# 4. Module not found, unknown Mono MVID, a PST frame without MODULE lines: reasons named.
{
  printf '%s\n' '   at A.B() in Nowhere.dll:token 0x6000001+0x1' \
                '  at A.B () [0x00001] in <0123456789abcdef0123456789abcdef>:0 ' \
                '   at Asm!0x06000001!A.B() +0x1'
} >"$tmp/in4"
"$ilmap" symbolicate --strict --search "$tmp/good" --cache-dir "$tmp/cache" "$tmp/in4" >"$tmp/out4" 2>"$tmp/err4"
rc=$?
if [ $rc -eq 3 ] && cmp -s "$tmp/in4" "$tmp/out4" &&
   grep -qx 'ilmap symbolicate: 3 frames, 0 resolved, 3 unresolved (2 module not found (Nowhere.dll, 0123456789abcdef0123456789abcdef), 1 no MODULE line)' "$tmp/err4"; then
  ok "unresolved reasons; --strict: exit 3"
else bad "unresolved reasons (rc $rc): $(cat "$tmp/err4")"; fi

# 5. The cache compiled by the first run is reused (and an existing cache of another PDB is not).
"$ilmap" symbolicate -v --search "$tmp/good" --cache-dir "$tmp/cache" "$tmp/in3" >"$tmp/out5" 2>"$tmp/err5"
if grep -q '^ilmap: reused ' "$tmp/err5" && grep -q 'caches compiled 0, reused 1' "$tmp/err5" &&
   [ "$(cat "$tmp/out5")" = "$want" ]; then ok "cache reused"; else bad "reuse: $(cat "$tmp/err5")"; fi

# 6. Usage and missing inputs.
# No --search: the current directory is searched (here the one with the PE and PDB).
(cd "$tmp/good" && "$ilmap" symbolicate --cache-dir "$tmp/cache" "$tmp/in3" >"$tmp/out6" 2>"$tmp/err6"); rc=$?
[ $rc -eq 0 ] && grep -q 'in /_/Frames/Scenarios.cs:line 37' "$tmp/out6" && ok "no --search: the current directory" || bad "no --search (rc $rc)"
"$ilmap" symbolicate --bogus "$tmp/in3" >/dev/null 2>"$tmp/err6"; rc=$?
[ $rc -eq 1 ] && ok "unknown option: exit 1" || bad "unknown option (rc $rc)"
"$ilmap" symbolicate --search "$tmp/good" --cache-dir "$tmp/cache" "$tmp/missing" >/dev/null 2>"$tmp/err7"; rc=$?
[ $rc -eq 3 ] && grep -q 'ilmap: error: .*missing' "$tmp/err7" && ok "missing input: exit 3" || bad "missing input (rc $rc)"
"$ilmap" symbolicate --search "$tmp/nothere" "$tmp/in3" >/dev/null 2>"$tmp/err8"; rc=$?
[ $rc -eq 3 ] && grep -q 'ilmap: error: --search' "$tmp/err8" && ok "missing --search path: exit 3" || bad "missing --search (rc $rc)"
exit $fail
