#!/usr/bin/env bash
# roundtrip.sh ILMAP INPUT - builder -> reader round trip through the CLI:
#   `ilmap dump CACHE` == `ilmap dump INPUT` byte for byte (canonical listing, hidden points and
#   equal keys included), `ilmap verify CACHE` succeeds, and compiling twice (to another path,
#   with --force) gives byte-identical caches; with --embed-sources, `ilmap dump --documents`
#   of the cache equals that of INPUT (paths, language and hash GUIDs, hashes, embedded sizes).
# Exit 0 pass, 1 fail, 77 skip (INPUT absent).
set -euo pipefail
export LC_ALL=C
ilmap=$1 input=$2
[[ -f $input ]] || { echo "SKIP: $input not found"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-roundtrip.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$ilmap" compile -q "$input" -o "$work/a.ilmap" || fail "compile $input exited $?"
"$ilmap" dump "$input" >"$work/input.txt" || fail "dump $input exited $?"
"$ilmap" dump "$work/a.ilmap" >"$work/cache.txt" || fail "dump of the cache exited $?"
if ! cmp -s "$work/input.txt" "$work/cache.txt"; then
  diff -u "$work/input.txt" "$work/cache.txt" | head -30 >&2 || true
  fail "dump of the cache differs from dump of $input"
fi
"$ilmap" verify "$work/a.ilmap" >"$work/verify.txt" || fail "verify exited $?: $(cat "$work/verify.txt")"
grep -q ': ok (' "$work/verify.txt" || fail "verify printed: $(cat "$work/verify.txt")"

"$ilmap" compile -q "$input" --embed-sources -o "$work/es.ilmap" || fail "compile --embed-sources exited $?"
"$ilmap" dump --documents "$input" >"$work/input-docs.txt" || fail "dump --documents $input exited $?"
"$ilmap" dump --documents "$work/es.ilmap" >"$work/cache-docs.txt" || fail "dump --documents of the cache exited $?"
if ! cmp -s "$work/input-docs.txt" "$work/cache-docs.txt"; then
  diff -u "$work/input-docs.txt" "$work/cache-docs.txt" | head -30 >&2 || true
  fail "dump --documents of the cache differs from that of $input"
fi

mkdir "$work/again"
"$ilmap" compile -q --force "$input" -o "$work/again/a.ilmap" || fail "second compile exited $?"
cmp "$work/a.ilmap" "$work/again/a.ilmap" >&2 || fail "compiling twice gave different bytes"
echo "ok: $(wc -l <"$work/input.txt") listing lines, $(wc -c <"$work/a.ilmap") cache bytes, deterministic"
