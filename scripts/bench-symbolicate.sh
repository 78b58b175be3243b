#!/usr/bin/env bash
# bench-symbolicate.sh [BUILD_DIR] - the symbolicate figures of BENCHMARKS.md ("symbolicate"):
# generates a ~100 MB CoreCLR trace of 1,000,000 frames over 50 modules (copies of the corpus PEs
# and PDBs), runs `ilmap symbolicate` once to compile the caches (first use), then three times
# with the caches in place (whole process: elapsed, CPU, peak RSS), a 10 MB slice of the same log
# for the memory comparison, and the Google Benchmark program.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
ilmap=$build/tools/ilmap
bench=$build/bench/ilmap_bench_symbolicate
dir=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-bench-sym.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$bench" --make "$dir" --corpus "$root/corpus/out"
t() { /usr/bin/time -f "  %e s elapsed, %U s user, %S s sys, %M KiB peak RSS" "$@"; }
echo "first run (finds and compiles the caches):"
t "$ilmap" symbolicate -v --search "$dir/modules" --cache-dir "$dir/cache" "$dir/trace.log" 2>&1 >/dev/null | grep -v '^ilmap: \(reused\|compiled\)'
for i in 1 2 3; do
  echo "run $i (caches in place):"
  t "$ilmap" symbolicate --search "$dir/modules" --cache-dir "$dir/cache" "$dir/trace.log" >/dev/null
done
head -c 10000000 "$dir/trace.log" >"$dir/small.log"
echo "10 MB slice:"
t "$ilmap" symbolicate --search "$dir/modules" --cache-dir "$dir/cache" "$dir/small.log" >/dev/null
"$bench" --dir "$dir" --benchmark_min_time=2s
