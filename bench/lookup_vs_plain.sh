#!/usr/bin/env bash
# bench/lookup_vs_plain.sh - random lookups answered by the cache against the plain-array
# baseline (bench/plain_arrays.h: every method's visible points as a sorted array of plain
# structs, binary search, as a System.Reflection.Metadata user holds them once decoded), on
# every real PDB here (corpus/out and ../shared/corpus-public, each compiled alone: no names)
# and on a 100,000-point synthetic PDB. Per PDB: 100,000 queries from ilmap_gen_queries (90% hits),
# replayed in one process by `ilmap_bench_lookup --replay --plain`, which checks that both give
# the same answer to every query, then alternates a pass of the cache and a pass of the arrays;
# median of REPEAT passes each. Never a ctest test.
#
#   bench/lookup_vs_plain.sh [--build DIR] [--repeat N] [--write FILE]
#     --build DIR    a Release build with ilmap, ilmap_gen_pdb, ilmap_gen_queries and
#                    ilmap_bench_lookup (default build/release)
#     --repeat N     passes per median (default 20)
#     --write FILE   replace the part of FILE between the lines <!-- lookup-plain:begin --> and
#                    <!-- lookup-plain:end --> with the table (else print it)
# Work files go to DIR/lookup-plain/.
set -euo pipefail
export LC_ALL=C
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bench-lib.sh"
BUILD="$ROOT/build/release" REPEAT=20 WRITE=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift ;;
    --repeat) REPEAT="$2"; shift ;;
    --write) WRITE="$2"; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "lookup_vs_plain.sh: unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
[[ -z $WRITE || -f $WRITE ]] || { echo "lookup_vs_plain.sh: $WRITE: no such file" >&2; exit 1; }
[[ -z $WRITE ]] || WRITE=$(realpath "$WRITE")
BUILD=$(cd "$BUILD" && pwd)
ILMAP="$BUILD/tools/ilmap" B="$BUILD/bench"
for t in "$ILMAP" "$B/ilmap_gen_pdb" "$B/ilmap_gen_queries" "$B/ilmap_bench_lookup"; do
  [[ -x $t ]] || { echo "lookup_vs_plain.sh: $t missing: build the Release targets first" >&2; exit 1; }
done
W="$BUILD/lookup-plain"
rm -rf "$W"
mkdir -p "$W"
cd "$W"

inputs=("$ROOT"/corpus/out/*/*.pdb)
if [[ -d $ROOT/../shared/corpus-public ]]; then inputs+=("$ROOT"/../shared/corpus-public/*/*.pdb)
else echo "lookup_vs_plain.sh: ../shared/corpus-public absent: corpus/out only" >&2; fi
"$B/ilmap_gen_pdb" --points 100000 --seed 3 -o syn-100kpts.pdb >/dev/null
load_before=$(bench_load)

rows=() ratios=() real_ns=() faster=0 measured=0 syn_ns="" syn_plain_ns="" syn_ratio=""
measure() {  # NAME PDB
  local name=$1 pdb=$2 out points
  mkdir -p one && rm -f one/*
  cp "$pdb" one/x.pdb
  "$ILMAP" compile one/x.pdb -o one/x.ilmap -q --force 2>/dev/null || return 0
  points=$("$ILMAP" info --json one/x.ilmap | python3 -c 'import json,sys; print(json.load(sys.stdin).get("sequence_points", 0))')
  "$B/ilmap_gen_queries" one/x.ilmap --count 100000 --seed 1 -o one/x.q >/dev/null 2>&1 || return 0
  out=$("$B/ilmap_bench_lookup" --cache one/x.ilmap --queries one/x.q --replay --repeat "$REPEAT" --plain)
  # queries=N hits=H ns_per_query=A plain_ns_per_query=P ratio=R
  local hits a p r
  hits=$(sed -n 's/.* hits=\([0-9]*\).*/\1/p' <<<"$out")
  a=$(sed -n 's/.* ns_per_query=\([0-9.]*\).*/\1/p' <<<"$out")
  p=$(sed -n 's/.*plain_ns_per_query=\([0-9.]*\).*/\1/p' <<<"$out")
  r=$(sed -n 's/.* ratio=\([0-9.]*\).*/\1/p' <<<"$out")
  [[ $hits -gt 0 ]] || return 0  # a PDB without points: no lookup to compare
  rows+=("| $name | $points | $a | $p | $r |")
  ratios+=("$r")
  real_ns+=("$a")
  syn_ns=$a syn_plain_ns=$p syn_ratio=$r  # the last call measures the synthetic PDB
  measured=$((measured + 1))
  awk -v r="$r" 'BEGIN {exit !(r < 1)}' && faster=$((faster + 1))
  echo "$name: $out" >&2
}
for f in "${inputs[@]}"; do
  name=$(basename "$(dirname "$f")")
  [[ $f == */corpus/out/* ]] && name="corpus/$name"
  measure "$name" "$f"
done
measure "synthetic 100k points (--seed 3)" syn-100kpts.pdb
unset 'real_ns[-1]'
load_after=$(bench_load)
median_ratio=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
real_rows=$((measured - 1))  # every row but the synthetic one
real_faster=$faster
awk -v r="$syn_ratio" 'BEGIN {exit !(r < 1)}' && real_faster=$((faster - 1))
bench_figure lookup_plain.real_faster "$real_faster"
bench_figure lookup_plain.real_measured "$real_rows"
bench_figure lookup_plain.median_ratio "$median_ratio"
bench_figure lookup_plain.real_ns_min "$(printf '%s\n' "${real_ns[@]}" | sort -g | head -1)"
bench_figure lookup_plain.real_ns_max "$(printf '%s\n' "${real_ns[@]}" | sort -g | tail -1)"
bench_figure lookup_plain.real_ratio_min "$(printf '%s\n' "${ratios[@]:0:$real_rows}" | sort -g | head -1)"
bench_figure lookup_plain.real_ratio_max "$(printf '%s\n' "${ratios[@]:0:$real_rows}" | sort -g | tail -1)"
bench_figure lookup_plain.syn_ns "$syn_ns"
bench_figure lookup_plain.syn_plain_ns "$syn_plain_ns"
bench_figure lookup_plain.syn_ratio "$syn_ratio"

{
  bench_stamp "bench/lookup_vs_plain.sh --build $(bench_rel "$BUILD") --repeat $REPEAT" "$load_before" "$load_after"
  echo "ns per query, median of $REPEAT passes of 100,000 queries (90% hits),"
  echo "cache and plain arrays alternating in one process, same answers checked query by query;"
  echo "ratio = cache / plain (below 1: the cache is faster). PDBs without points are left out."
  echo "**The cache is faster on $faster of $measured; median ratio $median_ratio.**"
  echo
  echo "| PDB | points | cache ns | plain array ns | ratio |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
} >section.md

if [[ -n $WRITE ]]; then
  bench_write "$WRITE" lookup-plain section.md
  echo "lookup_vs_plain.sh: wrote $WRITE" >&2
else
  cat section.md
fi
