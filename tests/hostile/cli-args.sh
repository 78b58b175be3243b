#!/usr/bin/env bash
# Argument and query hygiene of the ilmap CLI: bad tokens and offsets, malformed batch lines,
# non-UTF-8 paths, missing files, directories, empty files, /dev/null. Each case must give the
# documented exit code (README "Exit codes": 0 ok, 1 usage, 2 bad input or I/O, 3 not found)
# and one clear message on stderr, never a crash or a sanitizer report.
# Usage: cli-args.sh ILMAP CORPUS_OUT
set -uo pipefail
ilmap=$1
corpus=$2
pdb="$corpus/cs-frames/Ilmap.Corpus.Frames.pdb"
[[ -f "$pdb" ]] || { echo "SKIP: $pdb missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
cases=0

# expect WANT_RC FRAGMENT CMD... : runs CMD, checks exit code, that stderr contains FRAGMENT,
# that failures print exactly one line on stderr, and that no sanitizer report appears.
expect() {
  local want=$1 frag=$2
  shift 2
  cases=$((cases + 1))
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  local rc=$?
  local why=""
  if [[ $rc -ne $want ]]; then why="exit $rc, want $want"
  elif [[ -n "$frag" ]] && ! grep -qF -- "$frag" "$tmp/err" "$tmp/out"; then why="no '$frag' in output"
  elif grep -qE 'Sanitizer|runtime error:|terminate called' "$tmp/err"; then why="sanitizer report or abort"
  elif [[ $want -eq 2 && $(wc -l <"$tmp/err") -ne 1 ]] || [[ $want -eq 1 && $(wc -l <"$tmp/err") -gt 2 ]]; then why="want one message, got $(wc -l <"$tmp/err") lines"
  fi
  if [[ -n "$why" ]]; then
    echo "FAIL: ${*@Q}: $why"
    sed 's/^/  | /' "$tmp/err" | head -5
    fails=$((fails + 1))
  fi
}

cache="$tmp/frames.ilmap"
expect 0 "" "$ilmap" compile "$pdb" -o "$cache"

# --- METHOD and IL_OFFSET ------------------------------------------------------------------
expect 0 "" "$ilmap" lookup "$cache" 0x06000001 0
expect 0 "" "$ilmap" lookup "$cache" 1 0x0
expect 1 "table byte must be 0x06" "$ilmap" lookup "$cache" 0x02000001 0
expect 1 "row 0" "$ilmap" lookup "$cache" 0x06000000 0
expect 1 "out of range" "$ilmap" lookup "$cache" 0 0
expect 1 "table byte must be 0x06" "$ilmap" lookup "$cache" 0x106000001 0
expect 1 "not a token" "$ilmap" lookup "$cache" 0x 0
expect 1 "not a token" "$ilmap" lookup "$cache" 6.5 0
expect 1 "not a token" "$ilmap" lookup "$cache" 99999999999999999999999 0
expect 1 "out of range" "$ilmap" lookup "$cache" 16777216 0
expect 1 "not a token" "$ilmap" lookup "$cache" $'0x0600\xff001' 0
expect 3 "??:0:0" "$ilmap" lookup "$cache" 0x06000001 -- -1   # the runtime's OFFSET_UNKNOWN
expect 1 "IL_OFFSET" "$ilmap" lookup "$cache" 0x06000001 -- -2
expect 1 "IL_OFFSET" "$ilmap" lookup "$cache" 0x06000001 0x100000000
expect 1 "IL_OFFSET" "$ilmap" lookup "$cache" 0x06000001 18446744073709551616
expect 1 "IL_OFFSET" "$ilmap" lookup "$cache" 0x06000001 +5
expect 1 "IL_OFFSET" "$ilmap" lookup "$cache" 0x06000001 "5 "
expect 1 "IL_OFFSET" "$ilmap" lookup "$cache" 0x06000001 ""
expect 3 "??:0:0" "$ilmap" lookup "$cache" 0x06FFFFFF 0
expect 3 "??:0:0" "$ilmap" lookup "$cache" 0x06000001 0xFFFFFFFF   # >= 2^31: no answer
expect 1 "" "$ilmap" lookup "$cache" 0x06000001
expect 1 "" "$ilmap" lookup "$cache" --batch 0x06000001 0
expect 1 "" "$ilmap" lookup
expect 1 "" "$ilmap" frobnicate

# --- batch lookups: every line gets exactly one answer line, malformed ones an error line ---
long=$(head -c 1000000 /dev/zero | tr '\0' '7')
printf '%s\n' "0x06000001 0" "" "0x06000001 0 extra" $'\xff\xfe 1' "$long 0" "0x02000001 0" \
  "0x06000001 -1" "   0x06000001    0x10   " "1 0" $'0x06000001\t0\r' "0x06000001" > "$tmp/queries"
printf '0x06000001 0' >> "$tmp/queries"   # no final newline
nq=$(($(wc -l <"$tmp/queries") + 1))
for mode in "" --json; do
  cases=$((cases + 1))
  # shellcheck disable=SC2086
  "$ilmap" lookup "$cache" --batch $mode <"$tmp/queries" >"$tmp/bout" 2>"$tmp/berr"
  rc=$?
  got=$(wc -l <"$tmp/bout")
  errs=$(grep -c '^error: \|^{"error":' "$tmp/bout")
  if [[ $rc -ne 1 || $got -ne $nq || $errs -ne 6 ]] || grep -qE 'Sanitizer|runtime error' "$tmp/berr"; then
    echo "FAIL: batch $mode: exit $rc, $got answer lines for $nq queries, $errs error lines (want 6, exit 1)"
    head -c 2000 "$tmp/bout" | cut -c1-200
    fails=$((fails + 1))
  fi
  if [[ $(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$tmp/bout") -gt 400 ]]; then
    echo "FAIL: batch $mode: an error line echoes the whole 1 MB query"
    fails=$((fails + 1))
  fi
  if [[ "$mode" == --json ]] && command -v python3 >/dev/null; then
    python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]' "$tmp/bout" ||
      { echo "FAIL: batch --json: a line is not valid UTF-8 JSON"; fails=$((fails + 1)); }
  fi
done

# --- files: missing, directory, empty, /dev/null, non-UTF-8 names ---------------------------
mkdir -p "$tmp/dir"
: >"$tmp/empty.pdb"
: >"$tmp/empty.ilmap"
for cmd in dump info; do
  expect 2 "" "$ilmap" $cmd "$tmp/missing.pdb"
  expect 2 "" "$ilmap" $cmd "$tmp/dir"
  expect 2 "" "$ilmap" $cmd "$tmp/empty.pdb"
  expect 2 "" "$ilmap" $cmd /dev/null
  expect 2 "" "$ilmap" $cmd $'/nonexistent/\xff\xfe.pdb'
done
for target in "$tmp/missing.ilmap" "$tmp/dir" "$tmp/empty.ilmap" /dev/null "$pdb"; do
  expect 2 "" "$ilmap" verify "$target"
  [[ $target == "$pdb" ]] || expect 2 "" "$ilmap" lookup "$target" 0x06000001 0
done
# lookup of a PDB compiles it into the cache folder (--cache-dir, else $XDG_CACHE_HOME/ilmap) and
# answers; a cache folder under a regular file is an I/O error; nothing is written elsewhere.
XDG_CACHE_HOME=$tmp/xdg expect 0 "" "$ilmap" lookup "$pdb" 0x06000001 0
[[ -n $(find "$tmp/xdg/ilmap" -name '*.ilmap' 2>/dev/null) ]] || { echo "FAIL: lookup of a PDB wrote no cache under \$XDG_CACHE_HOME/ilmap"; fails=$((fails + 1)); }
expect 2 "" "$ilmap" lookup "$pdb" 0x06000001 0 --cache-dir "$tmp/empty.pdb/sub"
expect 2 "" "$ilmap" compile "$tmp/missing.pdb" -o "$tmp/x.ilmap"
expect 2 "" "$ilmap" compile "$tmp/empty.pdb" -o "$tmp/x.ilmap"
expect 2 "" "$ilmap" compile /dev/null -o "$tmp/x.ilmap"
# -o creates missing folders (issue 9 item 22), but not under a regular file.
expect 2 "Not a directory" "$ilmap" compile "$pdb" -o "$tmp/empty.pdb/sub/x.ilmap"
expect 2 "" "$ilmap" compile "$pdb" -o "$tmp/dir"
[[ ! -e "$tmp/x.ilmap" ]] || { echo "FAIL: a failed compile left $tmp/x.ilmap"; fails=$((fails + 1)); }
# A non-UTF-8 file name works like any other.
odd=$'\xff\xfeodd'
cp "$pdb" "$tmp/$odd.pdb"
expect 0 "" "$ilmap" dump "$tmp/$odd.pdb"
expect 0 "" "$ilmap" compile "$tmp/$odd.pdb" -o "$tmp/$odd.ilmap"
expect 0 "" "$ilmap" verify "$tmp/$odd.ilmap"
expect 0 "" "$ilmap" info "$tmp/$odd.ilmap"
# A non-UTF-8 name in an error message must not break --json output... nor text output.
expect 2 "" "$ilmap" info --json $'/nonexistent/\xff.pdb'

echo "cli-args: $cases cases, $fails failed"
[[ $fails -eq 0 ]]
