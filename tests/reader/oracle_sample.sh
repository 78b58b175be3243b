#!/usr/bin/env bash
# oracle_sample.sh ILMAP ORACLE INPUT - a sample of (method, IL offset) queries answered by
# `ilmap lookup CACHE --batch --json` and by the System.Reflection.Metadata oracle's
# `lookup INPUT` (tests/oracle/README.md) must agree: path, start line/column, end line/column.
# Queries: every point's own offset and offset-1 (from `ilmap dump INPUT`), plus 300
# deterministic pseudo-random (row, offset) pairs over rows 1..max+2 and offsets 0..max+16.
# Exit 0 pass, 1 fail, 77 skip (oracle or input absent).
set -euo pipefail
export LC_ALL=C
ilmap=$1 oracle=$2 input=$3
[[ -x $oracle ]] || { echo "SKIP: oracle $oracle not built"; exit 77; }
[[ -f $input ]] || { echo "SKIP: $input not found"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-oracle-sample.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$ilmap" compile -q "$input" -o "$work/c.ilmap" || fail "compile exited $?"
"$ilmap" dump "$input" >"$work/listing" || fail "dump exited $?"
# Listing line: TOKEN IL PATH... ; only the first two fields matter here.
awk '
  /^#/ { next }
  { tok = $1; il = $2 + 0; row = strtonum_hex(tok)
    print tok, il; if (il > 0) print tok, il - 1
    if (row > maxrow) maxrow = row
    if (!(row in maxil) || il > maxil[row]) maxil[row] = il }
  function strtonum_hex(s,   i, c, v) { v = 0; s = tolower(substr(s, 3))
    for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
    return v % 16777216 }
  END {
    seed = 20240601
    for (q = 0; q < 300; q++) {
      seed = (seed * 1103515245 + 12345) % 2147483648; row = 1 + int(seed / 65536) % (maxrow + 2)
      seed = (seed * 1103515245 + 12345) % 2147483648
      lim = ((row in maxil) ? maxil[row] : 0) + 17
      printf "0x%08x %d\n", 100663296 + row, int(seed / 65536) % lim
    }
  }' "$work/listing" >"$work/queries"
n=$(wc -l <"$work/queries")
[[ $n -ge 300 ]] || fail "only $n queries generated"

"$oracle" lookup "$input" <"$work/queries" >"$work/oracle.txt" 2>"$work/oracle.err" ||
  fail "oracle lookup exited $?: $(head -n2 "$work/oracle.err")"
"$ilmap" lookup "$work/c.ilmap" --batch --json --no-state-machine <"$work/queries" >"$work/ilmap.json" ||
  fail "ilmap lookup --batch exited $?"
jq -r 'if has("error") then "error: " + .error
       elif .file == null then "\(.method) \(.il_offset) ??:0:0"
       else "\(.method) \(.il_offset) \(.file):\(.line):\(.column):\(.end_line):\(.end_column)" end' \
  <"$work/ilmap.json" >"$work/ilmap.txt" || fail "ilmap's JSON does not parse"
[[ $(wc -l <"$work/ilmap.txt") -eq $n ]] || fail "ilmap answered $(wc -l <"$work/ilmap.txt") of $n queries"
[[ $(wc -l <"$work/oracle.txt") -eq $n ]] || fail "oracle answered $(wc -l <"$work/oracle.txt") of $n queries"
if ! cmp -s "$work/oracle.txt" "$work/ilmap.txt"; then
  diff -u "$work/oracle.txt" "$work/ilmap.txt" | head -30 >&2 || true
  fail "ilmap and the oracle disagree on $(diff "$work/oracle.txt" "$work/ilmap.txt" | grep -c '^<') of $n queries"
fi
# Text mode too: path:line:column per line, the oracle's answer without token, offset and end.
"$ilmap" lookup "$work/c.ilmap" --batch --no-state-machine <"$work/queries" >"$work/ilmap-text.txt" || fail "ilmap lookup --batch (text) exited $?"
sed -E 's/^[^ ]+ [^ ]+ //; s/:[0-9]+:[0-9]+$//; s/^\?\?$/??:0:0/' "$work/oracle.txt" >"$work/oracle-text.txt"
if ! cmp -s "$work/oracle-text.txt" "$work/ilmap-text.txt"; then
  diff -u "$work/oracle-text.txt" "$work/ilmap-text.txt" | head -30 >&2 || true
  fail "text answers disagree with the oracle"
fi
hits=$(grep -vc '??:0:0$' "$work/ilmap.txt" || true)
[[ $hits -gt 0 || ! -s $work/listing ]] || fail "no query got an answer"
echo "ok: $n queries, $hits answered, ilmap == oracle"
