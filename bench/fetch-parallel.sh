#!/usr/bin/env bash
# fetch-parallel.sh - `ilmap fetch` of COUNT missing modules, -j 8 against -j 1 (whole process,
# wall clock, median of RUNS; every run starts with an empty download cache):
#   nginx, caches served      the store holds PDBs and their ilmap caches: COUNT cache downloads
#   nginx, PDBs only          the store holds PDBs only: COUNT PDB downloads + local cache compiles
#   50 ms latency, caches     the fault server's /delay/ (tests/cli/faultserver.py): each request
#                             answered after 50 ms, as a distant server would
# Inputs: COUNT synthetic Portable PDBs (ilmap_gen_pdb --size-mb SIZE --seed i); fetch asks for
# each one's cache, then its PDB. Usage:
#   bench/fetch-parallel.sh [--build DIR] [--count 100] [--size-mb 1] [--runs 5] [--write FILE]
# DIR (default build/release) must hold tools/ilmap and bench/ilmap_gen_pdb; work files go to
# DIR/fetch-bench/. Needs nginx and python3. Prints a Markdown table; --write FILE replaces the
# section fetch-parallel of FILE (<!-- fetch-parallel:begin/end -->) with it, stamped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/bench-lib.sh"
build=$root/build/release count=100 size=1 runs=5 write=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --size-mb) size=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --write) write=$(realpath "$2"); shift 2 ;;
    *) echo "usage: $0 [--build DIR] [--count N] [--size-mb M] [--runs N] [--write FILE]" >&2; exit 1 ;;
  esac
done
build=$(cd "$build" && pwd)
ilmap=$build/tools/ilmap gen=$build/bench/ilmap_gen_pdb
[[ -x $ilmap && -x $gen ]] || { echo "build ilmap and ilmap_gen_pdb in $build first" >&2; exit 1; }
work=$build/fetch-bench
rm -rf "$work/nginx" "$work/faultserver" "$work/c"
mkdir -p "$work/in" && cd "$work"
for i in $(seq 1 "$count"); do
  [[ -f in/m$i.pdb ]] || "$gen" --size-mb "$size" --seed "$i" -o "in/m$i.pdb" >/dev/null
done
if [[ ! -d www ]]; then
  "$ilmap" store add www in >/dev/null
  cp -r www www-pdb && find www-pdb -name '*.ilmap' -delete
  mkdir -p both && ln -s ../www both/caches && ln -s ../www-pdb both/pdbs
fi
. "$root/tests/cli/nginx.sh"
. "$root/tests/cli/faultserver.sh"
start_nginx "$work/both"
nginx_pid=$NGINX_PID
start_fault_server "$work/both" 3600
trap 'kill $nginx_pid $FAULT_PID 2>/dev/null; wait 2>/dev/null' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
measure() {  # measure URL JOBS -> median seconds
  local url=$1 jobs=$2 r t0 t1
  for r in $(seq 1 "$runs"); do
    rm -rf c
    t0=$(date +%s%N)
    "$ilmap" fetch -j "$jobs" --symbol-path "srv*c*$url" in/*.pdb >/dev/null
    t1=$(date +%s%N)
    [[ $(find c -name '*.ilmap' | wc -l) -eq $count ]] || { echo "fetch left out modules" >&2; exit 1; }
    echo "$(( (t1 - t0) / 1000000 ))"
  done | median
}
mb=$(du -sm in | cut -f1)
load_before=$(bench_load)
rows=()
for row in "nginx, caches served|$URL/caches" "nginx, PDBs only (compiled locally)|$URL/pdbs" \
           "50 ms latency, caches served|$FAULT_URL/delay/caches"; do
  name=${row%%|*} url=${row#*|}
  one=$(measure "$url" 1) eight=$(measure "$url" 8)
  rows+=("| $name | $one | $eight | $(awk -v a="$one" -v b="$eight" 'BEGIN {printf "%.1fx", a / b}') |")
done
{
  bench_stamp "bench/fetch-parallel.sh --build $(bench_rel "$build") --count $count --size-mb $size --runs $runs" "$load_before"
  echo
  echo "$count modules, $mb MB of PDBs; wall clock of one whole \`ilmap fetch -j N\`, median of $runs runs, in ms."
  echo
  echo "| server | -j 1 | -j 8 | speed-up |"
  echo "| --- | ---: | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
} > "$work/section.md"
cat "$work/section.md"
[[ -z $write ]] || bench_write "$write" fetch-parallel "$work/section.md"
