#!/usr/bin/env bash
# A few dozen `ilmap` process runs on truncated and byte-flipped copies of a PDB, a PE with an
# embedded PDB and a cache (the in-process sweeps in SweepTest.cpp cover every position; this
# checks the CLI's own handling: exit code 0 or 2 (3 for a PE whose PDB no longer matches), one
# error line, no sanitizer report, no partial output file).
# Usage: cli-sweep.sh ILMAP CORPUS_OUT
set -uo pipefail
ilmap=$1
corpus=$2
pdb="$corpus/cs-frames/Ilmap.Corpus.Frames.pdb"
pe="$corpus/cs-embedded-all/Ilmap.Corpus.EmbeddedAll.dll"
[[ -f "$pdb" && -f "$pe" ]] || { echo "SKIP: corpus missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$ilmap" compile "$pdb" -o "$tmp/good.ilmap" >/dev/null || { echo "FAIL: compile of the intact PDB"; exit 1; }
fails=0
runs=0

check() {  # FILE ALLOWED_RCS CMD...
  local f=$1 allowed=$2
  shift 2
  runs=$((runs + 1))
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ " $allowed " != *" $rc "* ]] || grep -qE 'Sanitizer|runtime error:|terminate called' "$tmp/err"; then
    echo "FAIL: $* -> exit $rc (allowed: $allowed)"
    head -5 "$tmp/err"
    cp "$f" "$tmp/../ilmap-cli-sweep-failure-$(basename "$f")" 2>/dev/null
    fails=$((fails + 1))
  elif [[ $rc -eq 3 && $(cat "$tmp/out") == '??:0:0' ]]; then
    :  # a lookup without answer (SPEC.md 6: e.g. a flip in the packed strings) says so on stdout
  elif [[ $rc -ne 0 ]] && ! grep -q 'error' "$tmp/err"; then
    echo "FAIL: $* -> exit $rc without an error message"
    fails=$((fails + 1))
  fi
}

mutate() {  # SRC DST MODE POS
  local size
  size=$(stat -c %s "$1")
  if [[ $3 == trunc ]]; then
    head -c "$4" "$1" >"$2"
  else
    cp "$1" "$2"
    chmod u+w "$2"
    local b
    b=$(od -An -tu1 -j "$4" -N1 "$1" | tr -d ' ')
    printf "\\x$(printf %02x $(((b ^ 0xFF) & 0xFF)))" | dd of="$2" bs=1 seek="$4" conv=notrunc status=none
  fi
  : "$size"
}

for src in "$pdb" "$pe" "$tmp/good.ilmap"; do
  size=$(stat -c %s "$src")
  ext=${src##*.}
  for k in 1 2 3 4 5 6 7; do
    for mode in trunc flip; do
      pos=$((size * k / 8))
      [[ $mode == flip && $k -le 2 ]] && pos=$((k * 37 % 256))
      m="$tmp/m-$mode-$k.$ext"
      mutate "$src" "$m" $mode $pos
      if [[ $ext == ilmap ]]; then
        check "$m" "0 2" "$ilmap" verify "$m"
        check "$m" "0 2 3" "$ilmap" lookup "$m" 0x06000001 0
      else
        rm -f "$tmp/out.ilmap"
        check "$m" "0 2 3" "$ilmap" compile "$m" -o "$tmp/out.ilmap"
        [[ $(grep -c . "$tmp/err") -le 1 ]] || { echo "FAIL: compile $m printed more than one line on stderr"; fails=$((fails + 1)); }
        if [[ -e "$tmp/out.ilmap" ]]; then
          "$ilmap" verify "$tmp/out.ilmap" >/dev/null 2>&1 || { echo "FAIL: compile $m wrote a cache that does not verify"; fails=$((fails + 1)); }
        fi
      fi
    done
  done
done
echo "cli-sweep: $runs runs, $fails failed"
[[ $fails -eq 0 ]]
