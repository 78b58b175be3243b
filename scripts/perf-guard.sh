#!/usr/bin/env bash
# scripts/perf-guard.sh - the instruction-count guard: compile and lookup work counted by
# valgrind's callgrind (instructions, not seconds: the same for one binary and input however
# busy the machine is), compared with the baseline committed in bench/instruction-baseline.tsv.
#
#   scripts/perf-guard.sh [--build DIR] [--update] [--limit PERCENT]
#     --build DIR      a Release build with ilmap, ilmap_gen_pdb, ilmap_gen_queries and
#                      ilmap_bench_lookup (default build/release)
#     --update         write the counts measured now as the new baseline (commit it on its own,
#                      saying why the counts moved)
#     --limit PERCENT  how much a count may grow over its baseline (default 15)
#
# Workloads (each one process, run under `env -i` so the environment cannot move the counts):
#   compile/<name>        `ilmap compile PDB -o OUT` of a PDB alone (no PE beside it)
#   compile-names/<name>  `ilmap compile DLL -o OUT`: the PDB beside the DLL, with method names
#   lookup/<name>         a fixed stream of 20,000 lookups (90% hits, 10% misses) on the cache:
#                         the instructions of `ilmap_bench_lookup --replay --repeat 3` minus those
#                         of `--repeat 1`, halved: one pass over the stream, without the set-up
#   symbolicate/dense     `ilmap symbolicate` of a CoreCLR trace (ilmap_bench_symbolicate --make:
#                         10 modules, a frame on 4 lines in 5), caches in place: the instructions
#                         for its first 40,000 lines minus those for its first 20,000, so 20,000
#                         lines (about 16,000 frames) in the steady state, without start and
#                         first use of the modules
# Prints one line per workload: its count, its baseline and the change in percent.
# Exit 0 when no count grew past the limit, 1 when one did (or a workload failed), 77 when
# valgrind is absent.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build/release"
BASELINE="$ROOT/bench/instruction-baseline.tsv"
UPDATE=0
LIMIT=15
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift ;;
    --update) UPDATE=1 ;;
    --limit) LIMIT="$2"; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "perf-guard.sh: unknown argument $1 (see --help)" >&2; exit 1 ;;
  esac
  shift
done
command -v valgrind > /dev/null || { echo "SKIP: valgrind not installed (apt-get install valgrind)" >&2; exit 77; }
BUILD=$(realpath "$BUILD")
ILMAP="$BUILD/tools/ilmap"
for t in "$ILMAP" "$BUILD/bench/ilmap_gen_pdb" "$BUILD/bench/ilmap_gen_queries" "$BUILD/bench/ilmap_bench_lookup" \
         "$BUILD/bench/ilmap_bench_symbolicate"; do
  [[ -x $t ]] || { echo "perf-guard.sh: $t is missing (build the Release configuration)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-perf-guard.XXXXXX")
trap 'rm -rf "$work"' EXIT

# instructions CMD...: the instructions callgrind counts for one run of CMD (its children too).
instructions() {
  local out="$work/callgrind.out"
  rm -f "$out"
  if ! env -i PATH=/usr/bin:/bin valgrind --tool=callgrind --callgrind-out-file="$out" \
        --trace-children=no "$@" > "$work/cmd.out" 2> "$work/cmd.err"; then
    echo "perf-guard.sh: workload failed: $*" >&2
    tail -n 5 "$work/cmd.err" >&2
    return 1
  fi
  awk '/^totals:/ { print $2; found = 1 } END { if (!found) exit 1 }' "$out"
}

# The inputs: corpus PDBs (small, many methods, one big method), a synthetic 100k-point PDB
# (deterministic for its seed), and a PE with its PDB beside it.
pdbs=()
for p in cs-frames/Ilmap.Corpus.Frames.pdb cs-manymethods/Ilmap.Corpus.ManyMethods.pdb \
         cs-bigmethod/Ilmap.Corpus.BigMethod.pdb; do
  [[ -f $ROOT/corpus/out/$p ]] || { echo "perf-guard.sh: corpus/out/$p is missing" >&2; exit 1; }
  mkdir -p "$work/alone"
  cp "$ROOT/corpus/out/$p" "$work/alone/"
  pdbs+=("$work/alone/$(basename "$p")")
done
"$BUILD/bench/ilmap_gen_pdb" --points 100000 --seed 1 -o "$work/alone/synthetic-100k.pdb" > /dev/null
pdbs+=("$work/alone/synthetic-100k.pdb")
pes=()
for p in cs-features/Ilmap.Corpus.Features.dll cs-manymethods/Ilmap.Corpus.ManyMethods.dll; do
  [[ -f $ROOT/corpus/out/$p ]] || { echo "perf-guard.sh: corpus/out/$p is missing" >&2; exit 1; }
  pes+=("$ROOT/corpus/out/$p")
done

declare -A now
order=()
measure() {
  local name=$1
  shift
  now[$name]=$(instructions "$@") || exit 1
  order+=("$name")
}
for p in "${pdbs[@]}"; do
  n=$(basename "$p" .pdb)
  measure "compile/$n" "$ILMAP" compile "$p" -o "$work/$n.ilmap" -q
done
for pe in "${pes[@]}"; do
  measure "compile-names/$(basename "$pe" .dll)" "$ILMAP" compile "$pe" -o "$work/names.ilmap" -q
done
for n in Ilmap.Corpus.ManyMethods synthetic-100k; do
  "$BUILD/bench/ilmap_gen_queries" "$work/$n.ilmap" --count 20000 --seed 1 -o "$work/$n.queries" > /dev/null
  one=$(instructions "$BUILD/bench/ilmap_bench_lookup" --cache "$work/$n.ilmap" --queries "$work/$n.queries" --replay --repeat 1) || exit 1
  three=$(instructions "$BUILD/bench/ilmap_bench_lookup" --cache "$work/$n.ilmap" --queries "$work/$n.queries" --replay --repeat 3) || exit 1
  now[lookup/$n]=$(( (three - one) / 2 ))
  order+=("lookup/$n")
done
sym="$work/symbolicate"
"$BUILD/bench/ilmap_bench_symbolicate" --make "$sym" --corpus "$ROOT/corpus/out" --modules 10 --frames 40000 > /dev/null
head -n 20000 "$sym/trace.log" > "$sym/half.log"
head -n 40000 "$sym/trace.log" > "$sym/whole.log"
"$ILMAP" symbolicate --search "$sym/modules" --cache-dir "$sym/cache" "$sym/trace.log" > /dev/null 2> "$sym/first.err" ||
  { echo "perf-guard.sh: the first symbolicate run (compiling the caches) failed:" >&2; tail -n 5 "$sym/first.err" >&2; exit 1; }
half=$(instructions "$ILMAP" symbolicate --search "$sym/modules" --cache-dir "$sym/cache" "$sym/half.log") || exit 1
whole=$(instructions "$ILMAP" symbolicate --search "$sym/modules" --cache-dir "$sym/cache" "$sym/whole.log") || exit 1
now[symbolicate/dense]=$((whole - half))
order+=("symbolicate/dense")

if [[ $UPDATE == 1 ]]; then
  {
    printf '# workload\tinstructions (scripts/perf-guard.sh --update; commit on its own, with the reason)\n'
    for k in "${order[@]}"; do printf '%s\t%s\n' "$k" "${now[$k]}"; done
  } > "$BASELINE"
  echo "perf-guard: wrote ${BASELINE#"$ROOT/"} (${#order[@]} workloads)"
  exit 0
fi

[[ -f $BASELINE ]] || { echo "perf-guard.sh: no baseline at ${BASELINE#"$ROOT/"} (run with --update)" >&2; exit 1; }
declare -A base
while IFS=$'\t' read -r k v; do
  [[ $k == \#* || -z $k ]] && continue
  base[$k]=$v
done < "$BASELINE"
failed=0
passed=0
for k in "${order[@]}"; do
  b=${base[$k]:-}
  if [[ -z $b ]]; then
    printf '%-44s %14s  (no baseline: run --update)\n' "$k" "${now[$k]}"
    failed=$((failed + 1))
    continue
  fi
  pct=$(awk -v n="${now[$k]}" -v b="$b" 'BEGIN { printf "%+.1f", (n - b) * 100 / b }')
  verdict=ok
  if awk -v n="${now[$k]}" -v b="$b" -v l="$LIMIT" 'BEGIN { exit !(n > b * (1 + l / 100)) }'; then
    verdict="FAIL: more than $LIMIT% over the baseline"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
  printf '%-44s %14s  baseline %14s  %7s%%  %s\n' "$k" "${now[$k]}" "$b" "$pct" "$verdict"
done
if [[ $failed -eq 0 ]]; then echo "perf-guard: all $passed workloads within $LIMIT% of the baseline"; else echo "perf-guard: $failed of $((passed + failed)) workloads past the limit"; fi
[[ $failed -eq 0 ]]
