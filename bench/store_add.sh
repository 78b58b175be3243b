#!/usr/bin/env bash
# bench/store_add.sh - `ilmap store add` of a directory of 1,000 Portable PDBs (the corpus PDBs
# plus synthetic ones from ilmap_gen_pdb, different seeds and sizes) against `cp -r` of the same
# directory, whole process, warm page cache, median of RUNS runs each; also the re-add of the
# same directory into the filled store (every file "already present"). BENCHMARKS.md "store add".
#
#   bench/store_add.sh [--build DIR] [--runs N] [--count N] [--write FILE]
#     --build DIR   a Release build with the targets ilmap and ilmap_gen_pdb (default build/release)
#     --runs N      runs per median (default 5)
#     --count N     PDBs in the input directory (default 1000)
#     --write FILE  replace the section store-add of FILE (<!-- store-add:begin/end -->) with the
#                   table, stamped with the date, commit, load average and this command
# Everything generated stays under DIR/store-bench/. Never a ctest test.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bench-lib.sh"
BUILD="$ROOT/build/release"
WRITE=""
RUNS=5
COUNT=1000
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift ;;
    --runs) RUNS="$2"; shift ;;
    --count) COUNT="$2"; shift ;;
    --write) WRITE="$(realpath "$2")"; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "store_add.sh: unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
ILMAP="$BUILD/tools/ilmap"
GEN="$BUILD/bench/ilmap_gen_pdb"
[[ -x $ILMAP && -x $GEN ]] || { echo "store_add.sh: build the targets ilmap and ilmap_gen_pdb in $BUILD first" >&2; exit 1; }
W="$BUILD/store-bench"
rm -rf "$W"
mkdir -p "$W/in"

# Inputs: the corpus PDBs, then synthetic ones (2,000-41,000 points: 10-230 KB) up to COUNT.
n=0
for p in "$ROOT"/corpus/out/*/*.pdb; do
  [[ $n -lt $COUNT ]] || break
  cp "$p" "$W/in/$(printf 'c%04d' $n)-$(basename "$p")"
  n=$((n + 1))
done
i=0
while [[ $n -lt $COUNT ]]; do
  "$GEN" --points $((2000 + (i * 7919) % 39000)) --seed $((1000 + i)) -o "$W/in/$(printf 's%04d' $i).pdb" >/dev/null
  i=$((i + 1))
  n=$((n + 1))
done
files=$(find "$W/in" -type f | wc -l)
bytes=$(du -sb "$W/in" | cut -f1)

# median of RUNS wall-clock seconds of "$@" (SETUP run before each, untimed)
time_runs() {
  local setup=$1; shift
  local ts=()
  for _ in $(seq "$RUNS"); do
    eval "$setup"
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null
    t1=$(date +%s.%N)
    ts+=("$(echo "$t1 - $t0" | bc)")
  done
  printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

load_before=$(bench_load)
cp_s=$(time_runs 'rm -rf "$W/cp"' cp -r "$W/in" "$W/cp")
# store add fsyncs every file it writes (PDB and cache); a durable cp must flush too: `sync`
# after cp flushes the whole machine's dirty pages (noisy on a shared machine, but fair).
cpsync_s=$(time_runs 'rm -rf "$W/cp"; sync' bash -c "cp -r '$W/in' '$W/cp' && sync")
add_s=$(time_runs 'rm -rf "$W/st"' "$ILMAP" store add "$W/st" "$W/in")
readd_s=$(time_runs ':' "$ILMAP" store add "$W/st" "$W/in")
store_bytes=$(du -sb "$W/st" | cut -f1)

row() {  # row NAME SECONDS
  awk -v n="$1" -v s="$2" -v f="$files" -v b="$bytes" \
    'BEGIN { printf "| %s | %.3f s | %.0f files/s | %.1f MB/s |\n", n, s, f / s, b / s / 1e6 }'
}
{
bench_stamp "bench/store_add.sh --build $(bench_rel "$BUILD") --runs $RUNS --count $COUNT" "$load_before"
echo
echo "Input: $files PDBs, $bytes bytes; the store after the add: $store_bytes bytes (PDBs + caches); whole process,"
echo "warm page cache, median of $RUNS runs."
echo
echo "| command | time | files/s | input MB/s |"
echo "| --- | ---: | ---: | ---: |"
row "\`cp -r DIR COPY\`" "$cp_s"
row "\`cp -r DIR COPY && sync\`" "$cpsync_s"
row "\`ilmap store add STORE DIR\` (new store)" "$add_s"
row "\`ilmap store add STORE DIR\` (again: every file already present)" "$readd_s"
} > "$W/section.md"
cat "$W/section.md"
[[ -z $WRITE ]] || bench_write "$WRITE" store-add "$W/section.md"
