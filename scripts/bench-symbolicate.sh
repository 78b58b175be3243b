#!/usr/bin/env bash
# bench-symbolicate.sh [BUILD_DIR] - the symbolicate figures of BENCHMARKS.md ("symbolicate"):
# generates a ~100 MB CoreCLR trace of 1,000,000 frames over 50 modules (copies of the corpus PEs
# and PDBs), runs `ilmap symbolicate` once to compile the caches (first use), then three times
# with the caches in place (whole process: elapsed, CPU, peak RSS), a 10 MB slice of the same log
# for the memory comparison, sparse.log (the same number of lines of ordinary log text, one in
# 1,000 a frame), the Google Benchmark program, and `dotnet-stack symbolicate` (10.0.750501,
# installed with `dotnet tool install` into BUILD_DIR/bench-tools when dotnet is present) side by
# side with ilmap on 10 MB slices of both logs (median of 3 whole-process runs each).
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
echo "sparse.log (one frame line in 1,000), caches in place:"
for i in 1 2 3; do
  t "$ilmap" symbolicate --search "$dir/modules" --cache-dir "$dir/cache" "$dir/sparse.log" >/dev/null
done
"$bench" --dir "$dir" --benchmark_min_time=2

# The peer on the same text: dotnet-stack reads a file and writes the symbolicated copy.
if ! command -v dotnet >/dev/null; then echo "dotnet-stack: skipped (dotnet not found)"; exit 0; fi
tools=$build/bench-tools
if [ ! -x "$tools/dotnet-stack" ]; then
  dotnet tool install dotnet-stack --version 10.0.750501 --tool-path "$tools" >/dev/null ||
    { echo "dotnet-stack: skipped (dotnet tool install failed)"; exit 0; }
fi
# dotnet-stack finds a module's PDB by the name in the PE's CodeView entry, so both tools get the
# slices with the modules' original names (modules.tsv) and search originals/. dotnet-stack
# 10.0.750501 searches its working folder (and the folders below it) whatever -d says, so it runs
# in originals/.
rename=$(awk -F'\t' '{ printf "s/ in %s\\.dll:/ in %s.dll:/;", $1, $2 }' "$dir/modules.tsv")
slice() { head -c 10000000 "$1" | sed '$d' | sed "$rename" >"$2"; }  # 10 MB, whole lines
slice "$dir/trace.log" "$dir/dense10.log"
slice "$dir/sparse.log" "$dir/sparse10.log"
median() { sort -g | sed -n 2p; }  # of 3
for log in dense10 sparse10; do
  frames=$(grep -c '^   at ' "$dir/$log.log")
  : >"$dir/ilmap.times"; : >"$dir/peer.times"
  for i in 1 2 3; do
    /usr/bin/time -a -o "$dir/ilmap.times" -f "%e %U %M" "$ilmap" symbolicate --search "$dir/originals" \
      --cache-dir "$dir/cache" "$dir/$log.log" >"$dir/ilmap.out" 2>/dev/null
    (cd "$dir/originals" && /usr/bin/time -a -o "$dir/peer.times" -f "%e %U %M" "$tools/dotnet-stack" symbolicate \
      -d "$dir/originals" -o "$dir/peer.out" "$dir/$log.log" >/dev/null 2>&1)
  done
  # A frame line the peer changed is right when it equals ilmap's (whose answers the ground-truth
  # tests check against the runtime), wrong otherwise; one it left as it was is unresolved.
  verdict=$(paste -d '\n' "$dir/$log.log" "$dir/ilmap.out" "$dir/peer.out" | awk '
    NR % 3 == 1 { in_ = $0; next } NR % 3 == 2 { ours = $0; next }
    in_ ~ /^   at / { if ($0 == in_) u++; else if ($0 == ours) r++; else w++ }
    END { printf "%d right, %d wrong, %d unresolved", r, w, u }')
  for who in ilmap peer; do
    wall=$(cut -d' ' -f1 "$dir/$who.times" | median)
    user=$(cut -d' ' -f2 "$dir/$who.times" | median)
    rss=$(cut -d' ' -f3 "$dir/$who.times" | median)
    resolved=$(grep -c ':line [0-9]' "$dir/$who.out" || true)
    extra=""
    [ "$who" = peer ] && extra=" ($verdict)"
    echo "$log ($(stat -c %s "$dir/$log.log") bytes, $frames frames) $who: median ${wall} s wall, ${user} s user," \
      "${rss} KiB peak RSS, $resolved of $frames frames given a line$extra"
  done
done
