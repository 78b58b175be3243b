#!/usr/bin/env bash
# scripts/bench.sh - builds Release, builds the System.Reflection.Metadata oracle (when dotnet is
# present), generates synthetic PDBs and runs every benchmark of BENCHMARKS.md side by side with
# its baseline, then prints a summary.
#
#   scripts/bench.sh [--quick] [--build DIR] [--repeat N] [--runs N] [--proc-runs N] [--warmup-ms MS]
#                    [--no-oracle] [--jobs N]
#
#   --quick         skip the 100 MB and 500 MB synthetic PDBs (the growth tables stop at 10 MB)
#   --build DIR     build directory (default build/bench-release)
#   --repeat N      timed iterations per median for compile / lookup replays (default 20)
#   --runs N        process runs for the one-shot CLI timing (default 200)
#   --proc-runs N   process runs per PDB for the whole-process compile timing (default 30; inputs
#                   over 20 MB: 10, over 200 MB: 3; N also caps those)
#   --warmup-ms MS  SRM decode-all warm-up before its timed iterations (default 3000, --quick: 1000)
#   --no-oracle     do not build or run the C# oracle baselines
#   --jobs N        parallel build jobs (default 2)
#
# Everything generated (synthetic PDBs, caches, query files, raw outputs) stays under the build
# directory; raw outputs are in DIR/results/, the summary is DIR/results/summary.txt.
# Benchmarks are never ctest tests. The machine may be shared: numbers are medians.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build/bench-release"
SHARED="${ILMAP_SHARED_DIR:-$ROOT/../shared}"
QUICK=0
REPEAT=20
RUNS=200
PROC_RUNS=30
WARMUP_MS=""
USE_ORACLE=1
JOBS=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --build) BUILD="$2"; shift ;;
    --repeat) REPEAT="$2"; shift ;;
    --runs) RUNS="$2"; shift ;;
    --proc-runs) PROC_RUNS="$2"; shift ;;
    --warmup-ms) WARMUP_MS="$2"; shift ;;
    --no-oracle) USE_ORACLE=0 ;;
    --jobs) JOBS="$2"; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
if [[ -z $WARMUP_MS ]]; then
  if [[ $QUICK == 1 ]]; then WARMUP_MS=1000; else WARMUP_MS=3000; fi
fi
BUILD="$(mkdir -p "$BUILD" && cd "$BUILD" && pwd)"
GEN="$BUILD/gen"
RES="$BUILD/results"
mkdir -p "$GEN" "$RES"
SUMMARY="$RES/summary.txt"
: > "$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
log() { echo "[bench] $*" >&2; }

# --- build ------------------------------------------------------------------------------------
log "building Release in $BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DILMAP_BUILD_TESTS=OFF -DILMAP_BUILD_BENCH=ON \
  -DILMAP_SHARED_DIR="$SHARED" > "$RES/cmake-configure.log"
cmake --build "$BUILD" -j"$JOBS" --target ilmap ilmap_gen_pdb ilmap_gen_queries ilmap_bench_compile \
  ilmap_bench_lookup > "$RES/cmake-build.log"
ILMAP="$BUILD/tools/ilmap"
GENPDB="$BUILD/bench/ilmap_gen_pdb"
GENQ="$BUILD/bench/ilmap_gen_queries"
BCOMPILE="$BUILD/bench/ilmap_bench_compile"
BLOOKUP="$BUILD/bench/ilmap_bench_lookup"

ORACLE=""
if [[ $USE_ORACLE == 1 ]] && command -v dotnet > /dev/null; then
  log "building the SRM oracle"
  if ORACLE="$("$ROOT/tests/oracle/build.sh" "$BUILD/oracle" | tail -1)" && [[ -x "$ORACLE" ]]; then :; else
    log "oracle build failed (see $BUILD/oracle/build.log); baselines skipped"; ORACLE=""
  fi
else
  log "no dotnet (or --no-oracle): SRM baselines skipped"
fi

if ! command -v hyperfine > /dev/null && command -v apt-get > /dev/null && [[ $(id -u) == 0 ]]; then
  log "installing hyperfine (Debian package)"
  apt-get install -y hyperfine > "$RES/apt-hyperfine.log" 2>&1 || log "hyperfine not installed; using a bash timing loop"
fi

# --- machine ----------------------------------------------------------------------------------
say "== machine"
say "nproc: $(nproc)"
lscpu | head -20 | grep -E 'Model name|^CPU\(s\)|Thread|MHz|L2|L3|Architecture' | sed 's/  */ /g' | while read -r l; do say "$l"; done
say "compiler: $( (c++ --version || g++ --version) 2>/dev/null | head -1)"
say "load before: $(uptime | sed 's/.*load average/load average/')"
[[ -n "$ORACLE" ]] && say "dotnet: $(dotnet --version 2>/dev/null | head -1)"

# --- synthetic inputs ---------------------------------------------------------------------------
gen() {  # gen NAME ARGS...: deterministic, so an existing file is reused
  local name="$1"; shift
  if [[ ! -s "$GEN/$name.pdb" ]]; then "$GENPDB" "$@" -o "$GEN/$name.pdb" > "$GEN/$name.gen.txt"; fi
}
log "generating synthetic PDBs under $GEN"
gen syn-1kb --size-mb 0.001 --seed 1
gen syn-100kb --size-mb 0.1 --seed 2
gen syn-100kpts --points 100000 --seed 3
# DESIGN's reference input: 100k points in a 1.4 MB PDB (the same points as syn-100kpts, plus an
# unreferenced blob standing in for the scopes, imports and CDI that compilers also write).
gen syn-ref-1_4mb-100kpts --points 100000 --seed 3 --pad-to 1468006
gen syn-1_4mb --size-mb 1.4 --seed 4
gen syn-10mb --size-mb 10 --seed 5
GROWTH=(syn-1kb syn-100kb syn-1_4mb syn-10mb)
if [[ $QUICK == 0 ]]; then
  gen syn-100mb --size-mb 100 --seed 6
  gen syn-500mb --size-mb 500 --seed 7
  GROWTH+=(syn-100mb syn-500mb)
fi

median_of() { sort -g | awk '{a[NR]=$1} END{if(NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
kv() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }  # kv KEY < "k=v k=v"

# --- compile throughput vs SRM decode-all -------------------------------------------------------
say ""
say "== compile: ilmap decode+build_cache (in memory) vs SRM decode-all, medians of $REPEAT"
say "   SRM measured at steady state (tiered JIT warmed up: decode-all --warmup-ms $WARMUP_MS, i.e. >= $WARMUP_MS ms and >= 3 untimed decodes first)"
declare -A IN_ILMAP_NS=() IN_SRM_NS=()
CORPUS_PDBS=()
for f in "$SHARED"/corpus-public/symbolic_Sentry.Samples.Maui/*.pdb "$SHARED"/corpus-public/asmresolver_LargeIndicesPdb/*.pdb \
         "$ROOT"/corpus/out/cs-manymethods/*.pdb "$ROOT"/corpus/out/cs-bigmethod/*.pdb; do
  [[ -f "$f" ]] && CORPUS_PDBS+=("$f")
done
COMPILE_SET=("${CORPUS_PDBS[@]}" "$GEN/syn-100kpts.pdb" "$GEN/syn-ref-1_4mb-100kpts.pdb" "$GEN/syn-1_4mb.pdb" "$GEN/syn-10mb.pdb")
printf '%-32s %10s %9s %12s %12s %11s %12s %8s\n' file pdb_bytes points ilmap_us decode_us ilmap_MB/s srm_us srm/ilmap | tee -a "$SUMMARY"
for f in "${COMPILE_SET[@]}"; do
  line="$("$BCOMPILE" --median --repeat "$REPEAT" --pdb "$f")"
  echo "$line" >> "$RES/compile-median.txt"
  size=$(kv pdb_bytes <<< "$line"); pts=$(kv points <<< "$line")
  cns=$(kv compile_median_ns <<< "$line"); dns=$(kv decode_median_ns <<< "$line")
  IN_ILMAP_NS[$(basename "$f")]=$cns
  srm="-"; ratio="-"
  if [[ -n "$ORACLE" ]]; then
    o="$("$ORACLE" decode-all "$f" --repeat "$REPEAT" --warmup-ms "$WARMUP_MS")"
    echo "$(basename "$f") $o" >> "$RES/oracle-decode-all.txt"
    srm_ns=$(kv median_ns <<< "$o")
    IN_SRM_NS[$(basename "$f")]=$srm_ns
    srm=$(awk -v n="$srm_ns" 'BEGIN{printf "%.1f", n/1000}')
    ratio=$(awk -v a="$srm_ns" -v b="$cns" 'BEGIN{printf "%.1fx", a/b}')
  fi
  printf '%-32s %10s %9s %12.1f %12.1f %11.1f %12s %8s\n' "$(basename "$f")" "$size" "$pts" \
    "$(awk -v n="$cns" 'BEGIN{print n/1000}')" "$(awk -v n="$dns" 'BEGIN{print n/1000}')" \
    "$(awk -v s="$size" -v n="$cns" 'BEGIN{print s/1048576/(n/1e9)}')" "$srm" "$ratio" | tee -a "$SUMMARY"
done
log "Google Benchmark compile run (corpus + synthetic)"
"$BCOMPILE" $(for f in "${COMPILE_SET[@]}"; do echo --pdb "$f"; done) --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 > "$RES/bench-compile.txt" 2>&1 || true

# --- lookup latency on the 100k-point cache -----------------------------------------------------
say ""
say "== lookup on a 100k-point cache (syn-100kpts)"
C100="$GEN/syn-100kpts.ilmap"
"$ILMAP" compile "$GEN/syn-100kpts.pdb" -o "$C100" --force > /dev/null
Q100="$GEN/syn-100kpts.queries"
"$GENQ" "$C100" --count 100000 --seed 1 -o "$Q100" > /dev/null
"$BLOOKUP" --cache "$C100" --queries "$Q100" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_min_time=0.2 > "$RES/bench-lookup.txt" 2>&1 || true
grep -E '_median' "$RES/bench-lookup.txt" | awk '{printf "  %-40s %10s %s\n", $1, $2, $3}' | tee -a "$SUMMARY"
rep="$("$BLOOKUP" --cache "$C100" --queries "$Q100" --replay --repeat "$REPEAT")"
say "  ilmap replay of the query file (90% hits):  $rep"
if [[ -n "$ORACLE" ]]; then
  o="$("$ORACLE" lookup-bench "$GEN/syn-100kpts.pdb" --queries "$Q100" --repeat "$REPEAT")"
  say "  SRM lookup-bench, same query file:          $o"
  say "  SRM/ilmap per-lookup ratio: $(awk -v a="$(kv ns_per_query <<< "$o")" -v b="$(kv ns_per_query <<< "$rep")" 'BEGIN{printf "%.0fx", a/b}')"
fi

# --- one-shot CLI -------------------------------------------------------------------------------
oneshot() {  # oneshot CACHE ROW IL -> median ms
  local cache="$1" row="$2" il="$3"
  if command -v hyperfine > /dev/null; then
    hyperfine -N --runs "$RUNS" --warmup 20 --export-csv "$RES/hyperfine.csv" "$ILMAP lookup $cache $row $il" > /dev/null 2>&1
    awk -F, 'NR==2{printf "%.3f", $4*1000}' "$RES/hyperfine.csv"
  else
    local i t0 t1
    for ((i = 0; i < RUNS; i++)); do
      t0=$(date +%s%N); "$ILMAP" lookup "$cache" "$row" "$il" > /dev/null; t1=$(date +%s%N)
      echo $(((t1 - t0)))
    done | median_of | awk '{printf "%.3f", $1/1e6}'
  fi
}
first_hit() {  # first_hit CACHE QUERIES -> "ROW IL" of the first query that answers
  local row il
  while read -r row il; do
    if "$ILMAP" lookup "$1" "$row" "$il" > /dev/null 2>&1; then echo "$row $il"; return; fi
  done < "$2"
}
say ""
say "== one-shot CLI: ilmap lookup CACHE METHOD IL, process start to answer, median of $RUNS runs ($(command -v hyperfine > /dev/null && echo hyperfine -N || echo bash loop))"
read -r row il < <(first_hit "$C100" "$Q100")
say "  100k-point cache ($row $il -> $("$ILMAP" lookup "$C100" "$row" "$il" || true)): $(oneshot "$C100" "$row" "$il") ms"
TRUE_BIN="$(command -v true)"
if command -v hyperfine > /dev/null; then
  hyperfine -N --runs "$RUNS" --warmup 20 --export-csv "$RES/hyperfine-true.csv" "$TRUE_BIN" > /dev/null 2>&1
  say "  process start floor ($TRUE_BIN): $(awk -F, 'NR==2{printf "%.3f", $4*1000}' "$RES/hyperfine-true.csv") ms"
fi

# --- cache size ---------------------------------------------------------------------------------
say ""
say "== cache size (ilmap compile, ilmap info): every corpus and shared PDB"
SIZES="$GEN/sizes"
mkdir -p "$SIZES"
printf '%-64s %9s %9s %7s %9s %7s %7s %6s\n' pdb pdb_bytes cache points pt_bytes B/pt file_B/pt cache/pdb | tee -a "$SUMMARY"
tot_pts=0; tot_ptb=0; tot_pdb=0; tot_cache=0
ALL_PDBS=()
for f in "$ROOT"/corpus/out/*/*.pdb "$SHARED"/corpus-public/*/*.pdb; do
  [[ -f "$f" ]] || continue
  case "$f" in */corpus-public/win_*) continue ;; esac
  ALL_PDBS+=("$f")
done
for f in "${ALL_PDBS[@]}"; do
  rel="${f#"$ROOT"/}"; rel="${rel#"$SHARED"/}"
  out="$SIZES/$(echo "$rel" | tr '/' '_').ilmap"
  if ! "$ILMAP" compile "$f" -o "$out" --force > /dev/null 2>&1; then
    printf '%-64s %s\n' "$rel" "compile failed" | tee -a "$SUMMARY"; continue
  fi
  info="$("$ILMAP" info "$out")"
  g() { awk -v k="$1:" '$1==k{print $2}' <<< "$info"; }
  pts=$(g sequence_points); dir=$(g section_method_directory_bytes); blk=$(g section_point_blocks_bytes)
  csize=$(g file_size); psize=$(stat -c %s "$f")
  ptb=$((dir + blk))
  tot_pts=$((tot_pts + pts)); tot_ptb=$((tot_ptb + ptb)); tot_pdb=$((tot_pdb + psize)); tot_cache=$((tot_cache + csize))
  printf '%-64s %9s %9s %7s %9s %7s %7s %6s\n' "$rel" "$psize" "$csize" "$pts" "$ptb" "$(g bytes_per_sequence_point)" \
    "$(g file_bytes_per_sequence_point)" "$(awk -v a="$csize" -v b="$psize" 'BEGIN{printf "%.2f", a/b}')" | tee -a "$SUMMARY"
done
say "aggregate: ${#ALL_PDBS[@]} PDBs, $tot_pts points, point sections $tot_ptb bytes = $(awk -v a="$tot_ptb" -v b="$tot_pts" 'BEGIN{printf "%.2f", a/b}') bytes/point; whole caches $tot_cache bytes = $(awk -v a="$tot_cache" -v b="$tot_pts" 'BEGIN{printf "%.2f", a/b}') bytes/point; PDBs $tot_pdb bytes"
say "reference: Sentry symbolic-ppdb cache of Sentry.Samples.Maui.pdb (63,752 bytes): 111,975 bytes, 16 bytes/point"

# --- growth -------------------------------------------------------------------------------------
say ""
say "== growth: synthetic PDBs (compile = in-memory decode+build_cache median; lookup = 100k-query replay, 90% hits;"
say "   srm = decode-all at steady state, --warmup-ms $WARMUP_MS; 2t = build_cache with 2 threads, used from 4 MiB of blobs)"
printf '%-12s %11s %10s %12s %9s %9s %12s %9s %10s %8s %9s %8s\n' pdb pdb_bytes points compile_ms ns/point MB/s cache_bytes lookup_ns srm_ms srm/ilmap 2t_ms srm/2t | tee -a "$SUMMARY"
for name in "${GROWTH[@]}"; do
  f="$GEN/$name.pdb"
  size=$(stat -c %s "$f")
  r=$REPEAT
  if ((size > 200000000)); then r=3; elif ((size > 20000000)); then r=5; fi
  line="$("$BCOMPILE" --median --repeat "$r" --pdb "$f")"
  echo "$line" >> "$RES/growth-compile.txt"
  pts=$(kv points <<< "$line"); cns=$(kv compile_median_ns <<< "$line")
  line2="$("$BCOMPILE" --median --repeat "$r" --threads 2 --pdb "$f")"
  echo "threads=2 $line2" >> "$RES/growth-compile.txt"
  cns2=$(kv compile_median_ns <<< "$line2")
  cache="$GEN/$name.ilmap"
  "$ILMAP" compile "$f" -o "$cache" --force > /dev/null
  q="$GEN/$name.queries"
  "$GENQ" "$cache" --count 100000 --seed 1 -o "$q" > /dev/null
  lr="$("$BLOOKUP" --cache "$cache" --queries "$q" --replay --repeat "$REPEAT")"
  echo "$name $lr" >> "$RES/growth-lookup.txt"
  srm="-"; ratio="-"; ratio2="-"
  if [[ -n "$ORACLE" ]]; then
    o="$("$ORACLE" decode-all "$f" --repeat "$r" --warmup-ms "$WARMUP_MS")"
    echo "$name $o" >> "$RES/growth-oracle.txt"
    srm=$(awk -v n="$(kv median_ns <<< "$o")" 'BEGIN{printf "%.2f", n/1e6}')
    ratio=$(awk -v a="$(kv median_ns <<< "$o")" -v b="$cns" 'BEGIN{printf "%.1fx", a/b}')
    ratio2=$(awk -v a="$(kv median_ns <<< "$o")" -v b="$cns2" 'BEGIN{printf "%.1fx", a/b}')
  fi
  printf '%-12s %11s %10s %12.3f %9.1f %9.1f %12s %9s %10s %8s %9.3f %8s\n' "$name" "$size" "$pts" \
    "$(awk -v n="$cns" 'BEGIN{print n/1e6}')" "$(awk -v n="$cns" -v p="$pts" 'BEGIN{print n/p}')" \
    "$(awk -v s="$size" -v n="$cns" 'BEGIN{print s/1048576/(n/1e9)}')" "$(stat -c %s "$cache")" \
    "$(kv ns_per_query <<< "$lr")" "$srm" "$ratio" "$(awk -v n="$cns2" 'BEGIN{print n/1e6}')" "$ratio2" | tee -a "$SUMMARY"
done
big="${GROWTH[-1]}"
read -r row il < <(first_hit "$GEN/$big.ilmap" "$GEN/$big.queries")
say "one-shot CLI on the largest cache ($big.ilmap, $(stat -c %s "$GEN/$big.ilmap") bytes): $(oneshot "$GEN/$big.ilmap" "$row" "$il") ms"

# --- compile, whole process ---------------------------------------------------------------------
# One process per run, start to exit: ilmap compile (reads the PDB, writes the cache; --force so every
# run recompiles) vs the SRM program (decode-all --once: .NET runtime start, JIT, read, decode every
# point; it writes nothing). Runs: PROC_RUNS, 10 over 20 MB, 3 over 200 MB (PROC_RUNS caps them).
proc_median_ms() {  # proc_median_ms RUNS CSV CMD ARG... -> median wall time in ms (3 untimed warm-up runs)
  local runs="$1" csv="$2"; shift 2
  if command -v hyperfine > /dev/null; then
    local cmd
    cmd="$(printf '%q ' "$@")"
    rm -f "$csv"
    if ! hyperfine -N --warmup 3 --runs "$runs" --export-csv "$csv" "${cmd% }" > /dev/null 2>&1; then
      log "hyperfine failed: $cmd"; echo "-"; return 0
    fi
    # the median is the 5th field from the end (the command, first, may be quoted and hold commas)
    awk -F, 'NR==2{printf "%.2f", $(NF-4)*1000}' "$csv"
  else
    local i t0 t1
    for ((i = 0; i < 3; i++)); do "$@" > /dev/null || { log "failed: $*"; echo "-"; return 0; }; done
    for ((i = 0; i < runs; i++)); do
      t0=$(date +%s%N); "$@" > /dev/null; t1=$(date +%s%N)
      echo $((t1 - t0))
    done | median_of | awk '{printf "%.2f", $1/1e6}'
  fi
}
csv_cpu_ms() {  # csv_cpu_ms CSV -> mean user+system CPU ms of the hyperfine run, or "-"
  if [[ -s $1 ]]; then awk -F, 'NR==2{printf "%.2f", ($(NF-3)+$(NF-2))*1000}' "$1"; else echo "-"; fi
}
PROC="$GEN/proc"
mkdir -p "$PROC"
PROC_SET=()
declare -A seen=()
for f in "${CORPUS_PDBS[@]}" "$GEN/syn-100kpts.pdb" "${GROWTH[@]/#/$GEN/}" "${COMPILE_SET[@]}"; do
  [[ $f == *.pdb ]] || f="$f.pdb"
  [[ -n ${seen[$f]:-} ]] && continue
  seen[$f]=1; PROC_SET+=("$f")
done
say ""
say "== compile, whole process: median ms per process, $(command -v hyperfine > /dev/null && echo "hyperfine -N --warmup 3" || echo "bash loop, 3 warm-up runs"), runs $PROC_RUNS (at most 10 over 20 MB, 3 over 200 MB)"
say "   ilmap = ilmap compile PDB -o CACHE --force -q (writes the cache); srm = Oracle decode-all PDB --once (decodes, writes nothing)"
printf '%-32s %11s %10s %10s %10s %7s\n' pdb bytes points ilmap_ms srm_ms ratio | tee -a "$SUMMARY"
for f in "${PROC_SET[@]}"; do
  name="$(basename "$f" .pdb)"
  size=$(stat -c %s "$f")
  r=$PROC_RUNS
  if ((size > 200000000 && r > 3)); then r=3; elif ((size > 20000000 && r > 10)); then r=10; fi
  out="$PROC/$name.ilmap"
  "$ILMAP" compile "$f" -o "$out" --force -q
  pts=$("$ILMAP" info "$out" | awk '$1=="sequence_points:"{print $2}')
  ims=$(proc_median_ms "$r" "$RES/proc-ilmap-$name.csv" "$ILMAP" compile "$f" -o "$out" --force -q)
  sms="-"; ratio="-"
  rm -f "$RES/proc-srm-$name.csv"
  if [[ -n "$ORACLE" ]]; then
    o="$("$ORACLE" decode-all "$f" --once)"
    echo "$name $o" >> "$RES/proc-oracle-once.txt"
    [[ $(kv points <<< "$o") == "$pts" ]] || log "$name: SRM decodes $(kv points <<< "$o") points, ilmap info says $pts"
    sms=$(proc_median_ms "$r" "$RES/proc-srm-$name.csv" "$ORACLE" decode-all "$f" --once)
    if [[ $ims != - && $sms != - ]]; then ratio=$(awk -v a="$sms" -v b="$ims" 'BEGIN{printf "%.1fx", a/b}'); fi
  fi
  echo "$name bytes=$size points=$pts runs=$r ilmap_ms=$ims srm_ms=$sms" \
    "ilmap_cpu_ms=$(csv_cpu_ms "$RES/proc-ilmap-$name.csv") srm_cpu_ms=$(csv_cpu_ms "$RES/proc-srm-$name.csv")" \
    >> "$RES/proc-compile.txt"
  printf '%-32s %11s %10s %10s %10s %7s\n' "$name" "$size" "$pts" "$ims" "$sms" "$ratio" | tee -a "$SUMMARY"
done
if [[ -n "$ORACLE" ]]; then
  say "in process, for comparison (from the compile section; SRM at steady state):"
  for name in syn-100kpts syn-ref-1_4mb-100kpts syn-1_4mb; do
    a=${IN_ILMAP_NS[$name.pdb]:-}; b=${IN_SRM_NS[$name.pdb]:-}
    [[ -n $a && -n $b ]] || continue
    say "$(printf '  %-22s ilmap %8.3f ms   srm %8.3f ms   srm/ilmap %s' "$name" \
      "$(awk -v n="$a" 'BEGIN{print n/1e6}')" "$(awk -v n="$b" 'BEGIN{print n/1e6}')" \
      "$(awk -v a="$b" -v b="$a" 'BEGIN{printf "%.1fx", a/b}')")"
  done
fi

say ""
say "load after: $(uptime | sed 's/.*load average/load average/')"
log "raw outputs in $RES (Google Benchmark: bench-compile.txt, bench-lookup.txt); summary: $SUMMARY"
