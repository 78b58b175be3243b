#!/usr/bin/env bash
# scripts/bench-symbolicate.sh - the symbolicate figures of BENCHMARKS.md ("symbolicate"):
# generates a ~100 MB CoreCLR trace of 1,000,000 frames over 50 modules (copies of the corpus PEs
# and PDBs), runs `ilmap symbolicate` once to compile the caches (first use), then RUNS times
# with the caches in place (whole process: elapsed, CPU, peak RSS), a 10 MB slice of the same log
# for the memory comparison, sparse.log (the same number of lines of ordinary log text, one in
# 1,000 a frame), the Google Benchmark program (ilmap_bench_symbolicate: median of 3
# repetitions), and `dotnet-stack symbolicate` (10.0.750501, installed with `dotnet tool install`
# into BUILD_DIR/bench-tools when dotnet is present) side by side with ilmap on 10 MB slices of
# both logs (median of RUNS whole-process runs each, interleaved).
#
#   scripts/bench-symbolicate.sh [--runs N] [--frames N] [--write FILE] [BUILD_DIR]
#     BUILD_DIR     a Release build (default build/release)
#     --runs N      whole-process runs per measure (default 3)
#     --frames N    frames in the generated trace (default 1000000)
#     --write FILE  replace the sections symbolicate and symbolicate-peer of FILE (between the
#                   lines <!-- NAME:begin --> and <!-- NAME:end -->) with Markdown tables of the
#                   figures (scripts/bench-write.py); without it the figures are only printed
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/bench-lib.sh"
runs=3 frames=1000000 write="" build=$root/build/release
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --frames) frames=$2; shift ;;
    --write) write=$(realpath "$2"); shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "bench-symbolicate.sh: unknown option $1" >&2; exit 1 ;;
    *) build=$1 ;;
  esac
  shift
done
build=$(cd "$build" && pwd)
ilmap=$build/tools/ilmap
bench=$build/bench/ilmap_bench_symbolicate
dir=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-bench-sym.XXXXXX")
trap 'rm -rf "$dir"' EXIT
load_before=$(bench_load)
"$bench" --make "$dir" --corpus "$root/corpus/out" --frames "$frames" > /dev/null
tsv=$dir/figures.tsv  # measure<TAB>wall s<TAB>user s<TAB>sys s<TAB>peak KiB, one line per run
t() {  # t LABEL CMD...: one whole-process run, stdout discarded
  local label=$1; shift
  /usr/bin/time -o "$dir/time.out" -f "%e %U %S %M" "$@" > /dev/null 2> "$dir/cmd.err" ||
    { cat "$dir/cmd.err" >&2; return 1; }
  printf '%s\t%s\n' "$label" "$(tr ' ' '\t' < "$dir/time.out")" >> "$tsv"
  echo "$label: $(cat "$dir/time.out") (wall s, user s, sys s, peak KiB)"
}
sym=("$ilmap" symbolicate --search "$dir/modules" --cache-dir "$dir/cache")
t first "${sym[@]}" "$dir/trace.log"
for i in $(seq "$runs"); do t dense "${sym[@]}" "$dir/trace.log"; done
head -c 10000000 "$dir/trace.log" > "$dir/small.log"
t slice "${sym[@]}" "$dir/small.log"
for i in $(seq "$runs"); do t sparse "${sym[@]}" "$dir/sparse.log"; done
"$bench" --dir "$dir" --benchmark_min_time=0.5 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_out="$dir/gbench.json" --benchmark_out_format=json

# The peer on the same text: dotnet-stack reads a file and writes the symbolicated copy.
peer=""
tools=$build/bench-tools
if ! command -v dotnet > /dev/null; then peer="skipped: dotnet not found"
elif [[ ! -x $tools/dotnet-stack ]] &&
     ! dotnet tool install dotnet-stack --version 10.0.750501 --tool-path "$tools" > /dev/null; then
  peer="skipped: dotnet tool install dotnet-stack failed"
fi
: > "$dir/peer.tsv"
if [[ -z $peer ]]; then
  # dotnet-stack finds a module's PDB by the name in the PE's CodeView entry, so both tools get the
  # slices with the modules' original names (modules.tsv) and search originals/. dotnet-stack
  # 10.0.750501 searches its working folder (and the folders below it) whatever -d says, so it runs
  # in originals/.
  rename=$(awk -F'\t' '{ printf "s/ in %s\\.dll:/ in %s.dll:/;", $1, $2 }' "$dir/modules.tsv")
  slice() { head -c 10000000 "$1" | sed '$d' | sed "$rename" > "$2"; }  # 10 MB, whole lines
  slice "$dir/trace.log" "$dir/dense10.log"
  slice "$dir/sparse.log" "$dir/sparse10.log"
  for log in dense10 sparse10; do
    nframes=$(grep -c '^   at ' "$dir/$log.log")
    : > "$dir/ilmap.times"; : > "$dir/peer.times"
    for i in $(seq "$runs"); do
      /usr/bin/time -a -o "$dir/ilmap.times" -f "%e %U %M" "$ilmap" symbolicate --search "$dir/originals" \
        --cache-dir "$dir/cache" "$dir/$log.log" > "$dir/ilmap.out" 2> /dev/null
      (cd "$dir/originals" && /usr/bin/time -a -o "$dir/peer.times" -f "%e %U %M" "$tools/dotnet-stack" symbolicate \
        -d "$dir/originals" -o "$dir/peer.out" "$dir/$log.log" > /dev/null 2>&1)
    done
    # A frame line the peer changed is right when it equals ilmap's (whose answers the ground-truth
    # tests check against the runtime), wrong otherwise; one it left as it was is unresolved.
    verdict=$(paste -d '\n' "$dir/$log.log" "$dir/ilmap.out" "$dir/peer.out" | awk '
      NR % 3 == 1 { in_ = $0; next } NR % 3 == 2 { ours = $0; next }
      in_ ~ /^   at / { if ($0 == in_) u++; else if ($0 == ours) r++; else w++ }
      END { printf "%d\t%d\t%d", r, w, u }')
    for who in ilmap peer; do
      resolved=$(grep -c ':line [0-9]' "$dir/$who.out" || true)
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$log" "$(stat -c %s "$dir/$log.log")" "$nframes" "$who" "$resolved" \
        "$verdict" "$(awk '{w = w " " $1; u = u " " $2; m = m " " $3} END {print w "\t" u "\t" m}' "$dir/$who.times")" >> "$dir/peer.tsv"
    done
  done
fi
load_after=$(bench_load)
cat "$tsv"; cat "$dir/peer.tsv"
[[ -n $write ]] || exit 0

cmd="scripts/bench-symbolicate.sh --runs $runs --frames $frames $(bench_rel "$build")"
stamp=$(bench_stamp "$cmd" "$load_before" "$load_after")
python3 - "$dir" "$stamp" "$frames" "$peer" <<'PY'
import json, os, statistics, sys
d, stamp, frames, peer = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
fig = open(os.environ["BENCH_FIGURES"], "a") if os.environ.get("BENCH_FIGURES") else None
def figure(k, v):
    if fig: fig.write(f"{k}\t{v}\n")
runs = {}
for l in open(f"{d}/figures.tsv"):
    k, *v = l.split("\t")
    runs.setdefault(k, []).append([float(x) for x in v])
def med(k, i): return statistics.median(r[i] for r in runs[k])
size = lambda f: os.path.getsize(f"{d}/{f}")
gb = {b["run_name"]: b for b in json.load(open(f"{d}/gbench.json"))["benchmarks"] if b.get("aggregate_name") == "median"}
def g(name, key): return gb[name][key] if name in gb and key in gb[name] else float("nan")
n = len(runs["dense"])
rows = [
    ("whole process, caches in place, the whole trace", f"{med('dense', 0):.2f} s wall, {med('dense', 1):.2f} s user + {med('dense', 2):.2f} s sys: "
     f"**{frames / (med('dense', 1) + med('dense', 2)) / 1e6:.2f} million frames/s of CPU**, peak RSS {med('dense', 3) / 1024:.1f} MiB"),
    ("first run of the whole trace (caches compiled: 10 compiled, 40 reused)", f"{runs['first'][0][0]:.2f} s wall, peak RSS {runs['first'][0][3] / 1024:.1f} MiB"),
    ("whole process, 10 MB slice", f"{runs['slice'][0][0]:.2f} s wall, peak RSS {runs['slice'][0][3] / 1024:.1f} MiB"),
    (f"whole process, `sparse.log` ({size('sparse.log') / 1e6:.0f} MB)", f"{med('sparse', 0):.2f} s wall, {med('sparse', 1):.2f} s user + {med('sparse', 2):.2f} s sys: "
     f"**{size('sparse.log') / 1e6 / med('sparse', 0):.0f} MB/s** wall, peak RSS {med('sparse', 3) / 1024:.1f} MiB"),
    ("in process, dense trace (`symbolicate/frames`)", f"**{g('symbolicate/frames', 'items_per_second') / 1e6:.2f} million frames/s**, {g('symbolicate/frames', 'bytes_per_second') / 1e6:.0f} MB/s, one core"),
    ("in process, behind a journald prefix (`symbolicate/prefixed`)", f"{g('symbolicate/prefixed', 'items_per_second') / 1e6:.2f} million frames/s, {g('symbolicate/prefixed', 'bytes_per_second') / 1e6:.0f} MB/s"),
    ("in process, JSON log lines (`symbolicate/json`)", f"{g('symbolicate/json', 'items_per_second') / 1e6:.2f} million frames/s, {g('symbolicate/json', 'bytes_per_second') / 1e6:.0f} MB/s"),
    ("in process, sparse log (`symbolicate/sparse`)", f"**{g('symbolicate/sparse', 'bytes_per_second') / 1e9:.2f} GB/s** of log text"),
    ("first use of a module (`symbolicate/first_use`: find, compile with names, write, map)", f"{g('symbolicate/first_use', 'real_time'):.2f} ms wall, {g('symbolicate/first_use', 'cpu_time'):.2f} ms CPU"),
]
figure("symbolicate.dense_fps", f"{g('symbolicate/frames', 'items_per_second'):.0f}")
figure("symbolicate.sparse_Bps", f"{g('symbolicate/sparse', 'bytes_per_second'):.0f}")
figure("symbolicate.sparse_process_MBps", f"{size('sparse.log') / 1e6 / med('sparse', 0):.0f}")
out = [stamp, "", f"Trace: {size('trace.log') / 1e6:.0f} MB, {frames:,} frames; whole-process figures are medians of {n} runs; "
       "in-process figures the medians of 3 Google Benchmark repetitions.", "", "| measure | result |", "| --- | --- |"]
out += [f"| {a} | {b} |" for a, b in rows]
open(f"{d}/symbolicate.md", "w").write("\n".join(out) + "\n")
out = [stamp, ""]
if peer:
    out.append(f"dotnet-stack was not measured in this run ({peer}).")
else:
    speed = []
    out += ["| log | tool | wall | user CPU | peak RSS | frames given a line |", "| --- | --- | ---: | ---: | ---: | --- |"]
    for l in open(f"{d}/peer.tsv"):
        log, b, nf, who, resolved, right, wrong, unres, walls, users, rss = l.rstrip("\n").split("\t")
        m = lambda s: statistics.median(float(x) for x in s.split())
        label = f"{'dense' if log.startswith('dense') else 'sparse'}, {int(b) / 1e6:.1f} MB, {int(nf):,} frames" if who == "ilmap" else ""
        given = f"{int(resolved):,} of {int(nf):,}" if who == "ilmap" else f"{int(right) + int(wrong):,}: {int(right):,} right, **{int(wrong):,} wrong**, {int(unres):,} unresolved"
        out.append(f"| {label} | {'ilmap' if who == 'ilmap' else 'dotnet-stack'} | {m(walls):.2f} s | {m(users):.2f} s | {m(rss) / 1024:.1f} MiB | {given} |")
        if who == "ilmap": iw, irss = m(walls), m(rss)
        else:
            speed.append(f"{'dense' if log.startswith('dense') else 'sparse'} {m(walls) / iw:.1f}x faster in wall time "
                         f"with {irss / m(rss):.2f} of the peak memory")
            figure(f"symbolicate.peer_speedup_{log}", f"{m(walls) / iw:.1f}")
    out += ["", "ilmap against dotnet-stack: " + "; ".join(speed) + "."]
open(f"{d}/symbolicate-peer.md", "w").write("\n".join(out) + "\n")
PY
bench_write "$write" symbolicate "$dir/symbolicate.md"
bench_write "$write" symbolicate-peer "$dir/symbolicate-peer.md"
