#!/usr/bin/env bash
# scripts/bench.sh - every figure of BENCHMARKS.md in one run. Builds Release, builds the
# System.Reflection.Metadata oracle (when dotnet is present), generates the synthetic PDBs, runs
# each part and, with --write, replaces each part's sections of BENCHMARKS.md (the text between
# <!-- NAME:begin --> and <!-- NAME:end -->, scripts/bench-write.py), each stamped with the date,
# the commit, the load average before and after it and the command that reproduces it; last the
# goals table ("Against the goals", scripts/bench-goals.py) from the figures of this run.
#
#   scripts/bench.sh [--write | --write-to FILE] [--quick] [--only PARTS] [--symbolic-src DIR]
#                    [--with-services] [--build DIR] [--repeat N] [--runs N] [--proc-runs N]
#                    [--warmup-ms MS] [--no-oracle] [--jobs N]
#
#   --write           write the sections into BENCHMARKS.md (--write-to FILE: into FILE)
#   --quick           skip the 100 MB and 500 MB synthetic PDBs (growth stops at 10 MB)
#   --only PARTS      run only these parts (comma-separated; the goals table needs every part)
#   --symbolic-src D  a checkout of getsentry/symbolic (tag 13.9.0): runs bench/symbolic_compare.sh
#   --with-services   also the service and store parts (bench/serve_load.sh, bench/store_publish.sh,
#                     bench/fetch-parallel.sh, bench/store_add.sh: nginx, wrk, Swift; slow)
#   --build DIR       build directory (default build/bench-release)
#   --repeat N        timed iterations per median for compile / lookup replays (default 20)
#   --runs N          process runs for the one-shot CLI and process-start timings (default 200)
#   --proc-runs N     process runs per PDB for whole-process compiles (default 30; over 20 MB at most
#                     10, over 200 MB at most 3)
#   --warmup-ms MS    SRM decode-all warm-up before its timed iterations (default 3000, --quick 1000)
#   --no-oracle       do not build or run the C# oracle (SRM) baselines
#   --jobs N          parallel build jobs (default 2)
#
# Parts, in order (--only names): machine, inputs, compile, process, lookup, oneshot, growth,
# plain (bench/lookup_vs_plain.sh), size (bench/size_table.sh), memory (bench/memory_table.sh:
# peak resident memory of whole-process compiles; --quick skips its 400 MB PDB), symbolic, symbolicate
# (scripts/bench-symbolicate.sh), guard (scripts/perf-guard.sh), dotnet
# (integrations/dotnet/bench.sh), services; then goals.
# Everything generated stays under the build directory (DIR/gen: synthetic PDBs, deterministic and
# reused; DIR/results: raw outputs, DIR/results/parts/*.md: the sections, DIR/results/figures.tsv:
# the figures the goals table reads). Benchmarks are never ctest tests.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bench-lib.sh"
BUILD="$ROOT/build/bench-release"
SHARED="${ILMAP_SHARED_DIR:-$ROOT/../shared}"
QUICK=0 REPEAT=20 RUNS=200 PROC_RUNS=30 WARMUP_MS="" USE_ORACLE=1 JOBS=2
WRITE="" ONLY="" SYMSRC="" SERVICES=0
ARGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --write) WRITE="$ROOT/BENCHMARKS.md" ;;
    --write-to) WRITE="$(realpath "$2")"; shift ;;
    --quick) QUICK=1; ARGS+=(--quick) ;;
    --only) ONLY=",$2,"; shift ;;
    --symbolic-src) SYMSRC="$(cd "$2" && pwd)"; shift ;;
    --with-services) SERVICES=1 ;;
    --build) BUILD="$2"; shift ;;
    --repeat) REPEAT="$2"; ARGS+=(--repeat "$2"); shift ;;
    --runs) RUNS="$2"; ARGS+=(--runs "$2"); shift ;;
    --proc-runs) PROC_RUNS="$2"; ARGS+=(--proc-runs "$2"); shift ;;
    --warmup-ms) WARMUP_MS="$2"; ARGS+=(--warmup-ms "$2"); shift ;;
    --no-oracle) USE_ORACLE=0; ARGS+=(--no-oracle) ;;
    --jobs) JOBS="$2"; shift ;;
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
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
PARTS="$RES/parts"
rm -rf "$PARTS"
mkdir -p "$GEN" "$RES" "$PARTS"
export BENCH_COMMIT="$(bench_commit)"
export BENCH_FIGURES="$RES/figures.tsv"
[[ -n $ONLY ]] || : > "$BENCH_FIGURES"
log() { echo "[bench $(date -u +%H:%M:%S)] $*" >&2; }
want() { [[ -z $ONLY || $ONLY == *",$1,"* ]]; }
# the command that reproduces one part of this run
part_cmd() { echo "scripts/bench.sh --only $1 --build $(bench_rel "$BUILD")${ARGS[*]:+ ${ARGS[*]}}"; }
emit() {  # emit NAME FILE: a section of BENCHMARKS.md (written with --write, else printed)
  if [[ -n $WRITE ]]; then bench_write "$WRITE" "$1" "$2"; else echo; echo "=== $1"; cat "$2"; fi
}
median_of() { sort -g | awk '{a[NR]=$1} END{if(NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
kv() { tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }  # kv KEY < "k=v k=v"
fig() { bench_figure "$@"; }
[[ -z $WRITE || -f $WRITE ]] || { echo "bench.sh: $WRITE: no such file" >&2; exit 1; }
T_START=$(date +%s)
LOAD0=$(bench_load)

# --- build ------------------------------------------------------------------------------------
log "building Release in $BUILD"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DILMAP_BUILD_TESTS=OFF -DILMAP_BUILD_BENCH=ON \
  -DILMAP_SHARED_DIR="$SHARED" > "$RES/cmake-configure.log"
cmake --build "$BUILD" -j"$JOBS" --target ilmap ilmap_shared ilmap_gen_pdb ilmap_gen_queries ilmap_bench_compile \
  ilmap_bench_lookup ilmap_bench_symbolicate ilmap_page_faults > "$RES/cmake-build.log"
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
  apt-get install -y hyperfine > "$RES/apt-hyperfine.log" 2>&1 || true
fi
command -v hyperfine > /dev/null || { echo "bench.sh: hyperfine is needed (apt-get install hyperfine)" >&2; exit 1; }
TRUE_BIN="$(type -P true)"

# --- inputs -------------------------------------------------------------------------------------
gen() {  # gen NAME ARGS...: deterministic, so an existing file is reused
  local name="$1"; shift
  if [[ ! -s "$GEN/$name.pdb" ]]; then "$GENPDB" "$@" -o "$GEN/$name.pdb" > "$GEN/$name.gen.txt"; fi
  echo "$name ilmap_gen_pdb $*" >> "$GEN/inputs.txt"
}
log "generating synthetic PDBs under $GEN"
: > "$GEN/inputs.txt"
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
CORPUS_PDBS=()
for f in "$SHARED"/corpus-public/symbolic_Sentry.Samples.Maui/*.pdb "$SHARED"/corpus-public/asmresolver_LargeIndicesPdb/*.pdb \
         "$ROOT"/corpus/out/cs-manymethods/*.pdb "$ROOT"/corpus/out/cs-bigmethod/*.pdb "$ROOT"/corpus/out/cs-frames/*.pdb; do
  [[ -f "$f" ]] && CORPUS_PDBS+=("$f")
done
# every input compiled alone (copied into an empty folder: no method names), with 100,000 queries
ALONE="$GEN/alone"
mkdir -p "$ALONE"
cache_of() {  # cache_of PDB -> the path of its cache (compiled alone) and its query file (.queries)
  local n; n=$(basename "$1" .pdb)
  if [[ ! -s $ALONE/$n.ilmap || $1 -nt $ALONE/$n.ilmap || $ILMAP -nt $ALONE/$n.ilmap ]]; then
    mkdir -p "$ALONE/$n.d" && cp "$1" "$ALONE/$n.d/$n.pdb"
    "$ILMAP" compile "$ALONE/$n.d/$n.pdb" -o "$ALONE/$n.ilmap" --force -q
    "$GENQ" "$ALONE/$n.ilmap" --count 100000 --seed 1 -o "$ALONE/$n.queries" > /dev/null
  fi
  echo "$ALONE/$n.ilmap"
}
COMPILE_SET=("${CORPUS_PDBS[@]}" "$GEN/syn-100kpts.pdb" "$GEN/syn-ref-1_4mb-100kpts.pdb" "$GEN/syn-1_4mb.pdb" "$GEN/syn-10mb.pdb")

# every part below writes $PARTS/NAME.md; a section begins with bench_stamp
part_begin() { log "part $1"; PART_LOAD=$(bench_load); }
stamp() { bench_stamp "$(part_cmd "$1")" "$PART_LOAD"; echo; }

# --- machine ------------------------------------------------------------------------------------
if want machine; then
  part_begin machine
  {
    stamp machine
    echo "| | |"
    echo "| --- | --- |"
    cpu="$(lscpu | sed -n 's/^Model name: *//p' | head -1) (family $(lscpu | sed -n 's/^CPU family: *//p'), model $(lscpu | sed -n 's/^Model: *//p'))"
    caches=$(for l in LEVEL1_DCACHE LEVEL2_CACHE; do
      b=$(getconf "${l}_SIZE" 2>/dev/null || true); [[ ${b:-0} -gt 0 ]] || continue
      echo "L${l:5:1}$([[ $l == LEVEL1_DCACHE ]] && echo d) $((b / 1024)) KiB"; done | paste -sd, - | sed 's/,/, /g')
    vm=""
    grep -qw hypervisor /proc/cpuinfo && vm="; a virtual machine (the \`hypervisor\` CPU flag)"
    echo "| CPU | $cpu, \`nproc\` = $(nproc), $(lscpu | sed -n 's/^Thread(s) per core: *//p') thread per core; caches (getconf) ${caches:-unknown}$vm |"
    echo "| RAM | $(free -g | awk '/^Mem:/{print $2}') GiB |"
    echo "| OS / compiler | $(. /etc/os-release && echo "$PRETTY_NAME"), $(c++ --version | head -1), $(cmake --version | head -1); CMake Release, \`ILMAP_STATIC_DEPS=ON\` |"
    echo "| baselines | $( [[ -n $ORACLE ]] && echo ".NET SDK $(dotnet --version) (the SRM oracle, \`tests/oracle\`), ")$(hyperfine --version)$(command -v valgrind > /dev/null && echo ", $(valgrind --version)")$( [[ -n $SYMSRC ]] && echo ", $(PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH" rustc --version | cut -d' ' -f1-2)") |"
  } > "$PARTS/machine.md"
  emit machine "$PARTS/machine.md"
fi

# --- inputs -------------------------------------------------------------------------------------
if want inputs; then
  part_begin inputs
  {
    stamp inputs
    echo "| input | generated by | bytes | points | methods | documents | cache bytes |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
    while read -r name cmd; do
      c=$(cache_of "$GEN/$name.pdb")
      info=$("$ILMAP" info --json "$c")
      j() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2], "-"))' "$info" "$1"; }
      printf '| %s | `%s` | %s | %s | %s | %s | %s |\n' "$name" "$cmd" "$(stat -c %s "$GEN/$name.pdb" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" \
        "$(j sequence_points | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" "$(j methods | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" \
        "$(j documents | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" "$(stat -c %s "$c" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')"
    done < "$GEN/inputs.txt"
  } > "$PARTS/inputs.md"
  emit inputs "$PARTS/inputs.md"
fi

# --- compile in process: ilmap compile and decode against SRM decode-all ------------------------
if want compile; then
  part_begin compile
  : > "$RES/compile.tsv"
  for f in "${COMPILE_SET[@]}"; do
    log "compile in process: $(basename "$f")"
    line="$(MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 "$BCOMPILE" --median --repeat "$REPEAT" --pdb "$f")"
    srm="-"
    if [[ -n "$ORACLE" ]]; then
      o="$("$ORACLE" decode-all "$f" --repeat "$REPEAT" --warmup-ms "$WARMUP_MS")"
      srm=$(kv median_ns <<< "$o")
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$f" .pdb)" "$(kv pdb_bytes <<< "$line")" "$(kv points <<< "$line")" \
      "$(kv compile_median_ns <<< "$line")" "$(kv decode_median_ns <<< "$line")" "$srm" >> "$RES/compile.tsv"
  done
  { stamp compile; python3 - "$RES/compile.tsv" "$REPEAT" "$WARMUP_MS" <<'PY'
import os, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
rep, warm = sys.argv[2], sys.argv[3]
fig = open(os.environ["BENCH_FIGURES"], "a")
def t(ns): return f"{ns / 1e3:.1f} µs" if ns < 1e6 else f"{ns / 1e6:.3f} ms"
print(f"Medians of {rep} compiles of the PDB held in memory (`ilmap_bench_compile --median --repeat {rep} --pdb PDB`, "
      "one thread, glibc's mmap and trim thresholds at 1 GiB); SRM: the oracle's `decode-all PDB --repeat "
      f"{rep} --warmup-ms {warm}` at steady state.\n")
print("| PDB | bytes | points | ilmap compile | ns / point | ilmap decode only | compile / decode | SRM decode-all | SRM / ilmap compile |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
ratios = []
for n, b, p, c, d, s in rows:
    b, p, c, d = int(b), int(p), float(c), float(d)
    r = c / d
    ratios.append(r)
    srm = t(float(s)) if s != "-" else "-"
    sr = f"{float(s) / c:.1f}x" if s != "-" else "-"
    print(f"| {n} | {b:,} | {p:,} | {t(c)} | {c / p:.1f} | {t(d)} | **{r:.1f}x** | {srm} | {sr} |")
    fig.write(f"compile.{n}.ns\t{c:.0f}\ncompile.{n}.decode_ns\t{d:.0f}\ncompile.{n}.ratio_decode\t{r:.2f}\n")
    if s != "-":
        fig.write(f"compile.{n}.srm_ratio\t{float(s) / c:.2f}\n")
fig.write(f"compile.ratio_decode_min\t{min(ratios):.2f}\ncompile.ratio_decode_max\t{max(ratios):.2f}\n")
srm = [float(s) / float(c) for n, b, p, c, d, s in rows if s != "-"]
if srm:
    fig.write(f"compile.srm_ratio_min\t{min(srm):.2f}\ncompile.srm_ratio_max\t{max(srm):.2f}\n")
PY
  } > "$PARTS/compile.md"
  emit compile "$PARTS/compile.md"
fi

# --- compile as whole processes (hyperfine), process start, whole against in process ------------
if want process; then
  part_begin process
  PROC_SET=()
  declare -A seen=()
  for f in "${CORPUS_PDBS[@]}" "${GROWTH[@]/#/$GEN/}" "$GEN/syn-100kpts" "$GEN/syn-ref-1_4mb-100kpts"; do
    [[ $f == *.pdb ]] || f="$f.pdb"
    [[ -n ${seen[$f]:-} ]] && continue
    seen[$f]=1; PROC_SET+=("$f")
  done
  PROC="$GEN/proc"
  mkdir -p "$PROC"
  : > "$RES/process.tsv"
  for f in "${PROC_SET[@]}"; do
    name="$(basename "$f" .pdb)"
    size=$(stat -c %s "$f")
    r=$PROC_RUNS
    if ((size > 200000000 && r > 3)); then r=3; elif ((size > 20000000 && r > 10)); then r=10; fi
    log "whole process: $name ($r runs)"
    mkdir -p "$PROC/$name" && cp "$f" "$PROC/$name/$name.pdb"
    cmds=("$ILMAP compile $PROC/$name/$name.pdb -o $PROC/$name/$name.ilmap --force -q" "$TRUE_BIN")
    [[ -n $ORACLE ]] && cmds+=("$ORACLE decode-all $PROC/$name/$name.pdb --once")
    hyperfine -N --style none --warmup 3 --runs "$r" --export-json "$RES/proc-$name.json" "${cmds[@]}" > /dev/null 2> "$RES/proc-$name.err"
    printf '%s\t%s\t%s\t%s\n' "$name" "$size" "$(cache_of "$f" > /dev/null; "$ILMAP" info --json "$(cache_of "$f")" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["sequence_points"])')" "$RES/proc-$name.json" >> "$RES/process.tsv"
  done
  # process start: `ilmap --version` against `true`; whole-process compile against in process
  log "process start and page faults"
  python3 - "$RUNS" "$ILMAP" "$TRUE_BIN" > "$RES/start.txt" <<'PY'
import os, statistics, sys, time
runs, ilmap, true = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def run(argv):
    t = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, {}, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status, ru = os.wait4(pid, 0)
    return (time.perf_counter_ns() - t) / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_minflt
res = {"ilmap": [], "true": []}
for r in range(runs + 5):
    for k, argv in (("ilmap", [ilmap, "--version"]), ("true", [true])):
        x = run(argv)
        if r >= 5: res[k].append(x)
for k, v in res.items():
    print(k, *(f"{statistics.median(c[i] for c in v):.3f}" for i in range(3)))
PY
  bash "$ROOT/scripts/bench-process.sh" --rounds "$PROC_RUNS" "$ILMAP" > "$RES/bench-process.txt"
  log "what a page fault costs"
  "$BUILD/bench/ilmap_page_faults" --mib 16 --rounds 7 > "$RES/page-faults.txt"
  { stamp process; python3 - "$RES/process.tsv" "$RES/start.txt" "$RES/bench-process.txt" "$PROC_RUNS" "$RUNS" "$RES/page-faults.txt" <<'PY'
import json, os, re, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
start = {l.split()[0]: [float(x) for x in l.split()[1:]] for l in open(sys.argv[2])}
bp, proc_runs, runs = open(sys.argv[3]).read(), sys.argv[4], sys.argv[5]
pf = dict(kv.split("=") for kv in open(sys.argv[6]).read().split())
fig = open(os.environ["BENCH_FIGURES"], "a")
def ms(s): return f"{s * 1e3:.2f} ms"
print(f"One process per run, start to exit (`hyperfine -N --warmup 3 --runs {proc_runs}`, at most 10 runs over 20 MB "
      "and 3 over 200 MB, the commands of a PDB interleaved in one hyperfine run): `ilmap compile PDB -o CACHE --force -q` "
      "(reads the PDB, writes the cache over the previous one), the SRM program `Oracle decode-all PDB --once` "
      "(.NET runtime start, JIT, read, decode every point; it writes nothing) and `true`, the floor of any process. "
      "Wall: median; CPU: mean user + system.\n")
have_srm = any(len(json.load(open(r[3]))["results"]) > 2 for r in rows)
print("| PDB | bytes | points | ilmap wall | ilmap CPU | `true` wall | " + ("SRM program wall | SRM / ilmap |" if have_srm else ""))
print("| --- | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if have_srm else ""))
for n, b, p, j in rows:
    h = json.load(open(j))["results"]
    i, t = h[0], h[1]
    line = f"| {n} | {int(b):,} | {int(p):,} | {ms(i['median'])} | {ms(i['user'] + i['system'])} | {ms(t['median'])} |"
    if len(h) > 2:
        s = h[2]
        line += f" {ms(s['median'])} | **{s['median'] / i['median']:.1f}x** |"
        fig.write(f"process.{n}.srm_ratio\t{s['median'] / i['median']:.2f}\n")
    fig.write(f"process.{n}.wall_ms\t{i['median'] * 1e3:.3f}\nprocess.{n}.true_ms\t{t['median'] * 1e3:.3f}\n")
    print(line)
iv, tv = start["ilmap"], start["true"]
print(f"\nProcess start (`ilmap --version` against `true`, {runs} runs each, alternated, medians; posix_spawn to "
      "wait4, CPU = the child's user + system time, page faults = minor faults; since 2026-11-28 `--version` alone "
      "sets up no command, so this is the process's start and static initialisers; a command's own set-up is part "
      "of the one-shot CLI figures):\n")
print("| program | wall | CPU | page faults |")
print("| --- | ---: | ---: | ---: |")
print(f"| `ilmap --version` | {iv[0]:.3f} ms | {iv[1]:.3f} ms | {iv[2]:.0f} |")
print(f"| `true` | {tv[0]:.3f} ms | {tv[1]:.3f} ms | {tv[2]:.0f} |")
print(f"| **ilmap's own start** (difference) | {iv[0] - tv[0]:.3f} ms | **{iv[1] - tv[1]:.3f} ms** | {iv[2] - tv[2]:.0f} |")
fig.write(f"start.ilmap_cpu_ms\t{iv[1]:.3f}\nstart.true_cpu_ms\t{tv[1]:.3f}\nstart.own_cpu_ms\t{iv[1] - tv[1]:.3f}\n"
          f"start.own_wall_ms\t{iv[0] - tv[0]:.3f}\nstart.own_faults\t{iv[2] - tv[2]:.0f}\n")
print(f"\nWhole process against in process (`scripts/bench-process.sh --rounds {proc_runs} ILMAP`: the compile run "
      "as a process, paired rounds, medians; in process: `ilmap_bench_compile --median --repeat 50`):\n")
print("| input | wall | CPU | page faults | in process | whole / in process |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for m in re.finditer(r"== (\S+) \((\d+) bytes\); in process \(ilmap_bench_compile --median\): (\S+) ms\n.*\n\S+\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\S+)", bp):
    name, b, inproc, wall, wmin, cpu, faults, ratio = m.groups()
    print(f"| {name.removesuffix('.pdb')} ({int(b):,} bytes) | {wall} ms | {cpu} ms | {int(faults):,} | {inproc} ms | **{ratio}** |")
print(f"\nWhat a page fault costs here (`ilmap_page_faults --mib 16 --rounds 7`: 16 MiB of fresh anonymous memory "
      f"touched once per 4 KiB page, medians of 7 rounds): an ordinary 4 KiB fault **{float(pf['fault_4k_us']):.2f} µs**; "
      f"a 2 MiB-aligned mapping with huge-page advice, as the compiler's large buffers are (support/HugePages.h), "
      f"{float(pf['huge_2mib_us']):.1f} µs per 2 MiB ({float(pf['huge_2mib_us']) / 512:.2f} µs per 4 KiB; "
      f"{pf['huge_faults']} faults for the {int(pf['pages']):,} pages). So `ilmap --version`'s {iv[2] - tv[2]:.0f} faults "
      f"more than `true` account for about {(iv[2] - tv[2]) * float(pf['fault_4k_us']) / 1e3:.2f} ms of its "
      f"{iv[1] - tv[1]:.2f} ms.")
fig.write(f"machine.fault_4k_us\t{pf['fault_4k_us']}\nmachine.huge_2mib_us\t{pf['huge_2mib_us']}\n")
PY
  } > "$PARTS/process.md"
  emit process "$PARTS/process.md"
fi

# --- lookup: Google Benchmark on two caches, replay against SRM's per-lookup path ----------------
if want lookup; then
  part_begin lookup
  LK_SET=("$GEN/syn-100kpts.pdb")
  for f in "${CORPUS_PDBS[@]}"; do case "$f" in *Maui*|*ManyMethods*) LK_SET+=("$f") ;; esac; done
  : > "$RES/lookup.tsv"
  for f in "${LK_SET[@]}"; do
    n=$(basename "$f" .pdb); c=$(cache_of "$f"); q="${c%.ilmap}.queries"
    log "lookup: $n"
    "$BLOOKUP" --cache "$c" --queries "$q" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
      --benchmark_min_time=0.2 --benchmark_out="$RES/lookup-$n.json" --benchmark_out_format=json > /dev/null 2>&1
    rep="$("$BLOOKUP" --cache "$c" --queries "$q" --replay --repeat "$REPEAT")"
    o="-"
    [[ -n $ORACLE ]] && o="$("$ORACLE" lookup-bench "$f" --queries "$q" --repeat "$REPEAT")"
    printf '%s\t%s\t%s\t%s\n' "$n" "$RES/lookup-$n.json" "$rep" "$o" >> "$RES/lookup.tsv"
  done
  { stamp lookup; python3 - "$RES/lookup.tsv" "$REPEAT" <<'PY'
import json, os, re, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
rep = sys.argv[2]
fig = open(os.environ["BENCH_FIGURES"], "a")
kv = lambda s: dict(re.findall(r"(\w+)=(\S+)", s))
names = [r[0] for r in rows]
bench = {}
order = []
for n, j, _, _ in rows:
    for b in json.load(open(j))["benchmarks"]:
        if b.get("aggregate_name") != "median": continue
        k = b["run_name"]
        if k not in order: order.append(k)
        unit = {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
        bench[(k, n)] = b["cpu_time"] * unit
def t(ns): return f"{ns:.1f} ns" if ns < 1e4 else f"{ns / 1e3:.2f} µs"
print("In process, Google Benchmark (`ilmap_bench_lookup --cache CACHE --queries QUERIES --benchmark_repetitions=5 "
      "--benchmark_min_time=0.2`): median CPU time per operation. Each cache is compiled from its PDB alone; QUERIES: "
      "100,000 from `ilmap_gen_queries --seed 1` (90% hits). `lookup/` = `Cache::lookup`, `plain/` = the same "
      "queries on plain sorted arrays per method (`bench/plain_arrays.h`), `lines/` = source line -> IL, `open/` = "
      "`Cache::open` + validation.\n")
print("| benchmark | " + " | ".join(names) + " |")
print("| --- |" + " ---: |" * len(names))
for k in order:
    print(f"| `{k}` | " + " | ".join(t(bench[(k, n)]) if (k, n) in bench else "-" for n in names) + " |")
for n in names:
    if ("lookup/random_hit", n) in bench:
        fig.write(f"lookup.{n}.random_hit_ns\t{bench[('lookup/random_hit', n)]:.1f}\n")
print(f"\nThe same query file replayed in one process, median of {rep} passes: ilmap (`ilmap_bench_lookup --replay`) against "
      "System.Reflection.Metadata's per-lookup path (the oracle's `lookup-bench`: `GetMethodDebugInformation(row)."
      "GetSequencePoints()` and the runtime's rule per query, at steady state).\n")
print("| cache | queries | ilmap hits | ilmap ns / query | SRM hits | SRM ns / query | SRM / ilmap |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for n, _, r, o in rows:
    a, b = kv(r), kv(o)
    ia = float(a["ns_per_query"])
    fig.write(f"lookup.{n}.replay_ns\t{ia:.1f}\n")
    if b:
        sa = float(b["ns_per_query"])
        fig.write(f"lookup.{n}.srm_ratio\t{sa / ia:.2f}\n")
        print(f"| {n} | {int(a['queries']):,} | {int(a['hits']):,} | {ia:.1f} | {int(b['hits']):,} | {sa:.1f} | **{sa / ia:.1f}x** |")
    else:
        print(f"| {n} | {int(a['queries']):,} | {int(a['hits']):,} | {ia:.1f} | - | - | - |")
PY
  } > "$PARTS/lookup.md"
  emit lookup "$PARTS/lookup.md"
fi

# --- one-shot CLI -------------------------------------------------------------------------------
first_hit() {  # first_hit CACHE QUERIES -> "ROW IL" of the first query that answers
  local row il
  while read -r row il; do
    if "$ILMAP" lookup "$1" "$row" "$il" > /dev/null 2>&1; then echo "$row $il"; return; fi
  done < "$2"
}
if want oneshot; then
  part_begin oneshot
  : > "$RES/oneshot.tsv"
  for n in syn-100kpts "${GROWTH[-1]}"; do
    c=$(cache_of "$GEN/$n.pdb")
    read -r row il < <(first_hit "$c" "${c%.ilmap}.queries")
    hyperfine -N --style none --warmup 20 --runs "$RUNS" --export-json "$RES/oneshot-$n.json" \
      "$ILMAP lookup $c $row $il" "$TRUE_BIN" > /dev/null 2>&1
    printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$(stat -c %s "$c")" "$row $il" "$("$ILMAP" lookup "$c" "$row" "$il")" "$RES/oneshot-$n.json" >> "$RES/oneshot.tsv"
  done
  { stamp oneshot; python3 - "$RES/oneshot.tsv" "$RUNS" <<'PY'
import json, os, sys
fig = open(os.environ["BENCH_FIGURES"], "a")
print(f"`ilmap lookup CACHE METHOD IL` (a hit), process start to answer: median of {sys.argv[2]} runs "
      "(`hyperfine -N --warmup 20`), with `true` in the same hyperfine run as the floor of any process.\n")
print("| cache | bytes | query | answer | ilmap lookup | `true` |")
print("| --- | ---: | --- | --- | ---: | ---: |")
for l in open(sys.argv[1]):
    n, b, q, a, j = l.rstrip("\n").split("\t")
    h = json.load(open(j))["results"]
    print(f"| {n} | {int(b):,} | `{q}` | `{a}` | **{h[0]['median'] * 1e3:.2f} ms** | {h[1]['median'] * 1e3:.2f} ms |")
    fig.write(f"oneshot.{n}.ms\t{h[0]['median'] * 1e3:.3f}\noneshot.true_ms\t{h[1]['median'] * 1e3:.3f}\n")
PY
  } > "$PARTS/oneshot.md"
  emit oneshot "$PARTS/oneshot.md"
fi

# --- growth -------------------------------------------------------------------------------------
if want growth; then
  part_begin growth
  : > "$RES/growth.tsv"
  for name in "${GROWTH[@]}"; do
    f="$GEN/$name.pdb"
    size=$(stat -c %s "$f")
    r=$REPEAT
    if ((size > 200000000)); then r=3; elif ((size > 20000000)); then r=5; fi
    log "growth: $name"
    line="$(MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 "$BCOMPILE" --median --repeat "$r" --pdb "$f")"
    line2="$(MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 "$BCOMPILE" --median --repeat "$r" --threads 2 --pdb "$f")"
    c=$(cache_of "$f")
    lr="$("$BLOOKUP" --cache "$c" --queries "${c%.ilmap}.queries" --replay --repeat "$REPEAT")"
    srm="-"
    [[ -n $ORACLE ]] && srm=$(kv median_ns <<< "$("$ORACLE" decode-all "$f" --repeat "$r" --warmup-ms "$WARMUP_MS")")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$size" "$(kv points <<< "$line")" "$(kv compile_median_ns <<< "$line")" \
      "$(kv compile_median_ns <<< "$line2")" "$(stat -c %s "$c")" "$(kv ns_per_query <<< "$lr")" "$srm" >> "$RES/growth.tsv"
  done
  { stamp growth; python3 - "$RES/growth.tsv" "$REPEAT" "$QUICK" <<'PY'
import os, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
rep, quick = sys.argv[2], sys.argv[3] == "1"
fig = open(os.environ["BENCH_FIGURES"], "a")
print(f"Compile = in-memory median ({rep} repetitions; 5 above 20 MB, 3 above 200 MB), one thread and two (`--threads 2`); "
      f"lookup = replay of 100,000 queries (90% hits) drawn for that cache, median of {rep} passes; SRM = decode-all at "
      "steady state." + (" This run stops at 10 MB (`--quick`: the 100 MB and 500 MB synthetic PDBs are skipped)." if quick else "") + "\n")
print("| PDB | bytes | points | compile | ns / point | MB/s | 2 threads | cache bytes | lookup ns | SRM decode-all | SRM / ilmap | SRM / ilmap 2 threads |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
def t(ns): return f"{ns / 1e6:.3f} ms" if ns < 1e9 else f"{ns / 1e6:,.0f} ms"
nspp, look = [], []
for n, b, p, c, c2, cb, lk, s in rows:
    b, p, c, c2 = int(b), int(p), float(c), float(c2)
    nspp.append((b, c / p)); look.append(float(lk))
    srm = "-" if s == "-" else t(float(s))
    r1 = "-" if s == "-" else f"{float(s) / c:.1f}x"
    r2 = "-" if s == "-" else f"{float(s) / c2:.1f}x"
    print(f"| {n} | {b:,} | {p:,} | {t(c)} | {c / p:.1f} | {b / 1048576 / (c / 1e9):.0f} | {t(c2)} | {int(cb):,} | {float(lk):.1f} | {srm} | {r1} | {r2} |")
big = [x for b, x in nspp if b >= 100000]
fig.write(f"growth.largest_mb\t{nspp[-1][0] / 1e6:.0f}\ngrowth.nspp_min\t{min(big):.1f}\ngrowth.nspp_max\t{max(big):.1f}\n"
          f"growth.lookup_first\t{look[0]:.1f}\ngrowth.lookup_last\t{look[-1]:.1f}\n")
PY
  } > "$PARTS/growth.md"
  emit growth "$PARTS/growth.md"
fi

# --- the parts with scripts of their own --------------------------------------------------------
W_ARGS=()
[[ -n $WRITE ]] && W_ARGS=(--write "$WRITE")
if want plain; then
  part_begin plain
  bash "$ROOT/bench/lookup_vs_plain.sh" --build "$BUILD" --repeat "$REPEAT" "${W_ARGS[@]}" > "$RES/lookup-plain.log" 2>&1 ||
    { tail -5 "$RES/lookup-plain.log" >&2; exit 1; }
fi
if want size; then
  part_begin size
  if [[ -n $WRITE ]]; then bash "$ROOT/bench/size_table.sh" --build "$BUILD" --write "$WRITE"
  else bash "$ROOT/bench/size_table.sh" --build "$BUILD"; fi > "$RES/size-table.log"
fi
if want memory; then
  part_begin memory
  M_ARGS=(--build "$BUILD")
  [[ $QUICK == 1 ]] && M_ARGS+=(--quick)
  bash "$ROOT/bench/memory_table.sh" "${M_ARGS[@]}" "${W_ARGS[@]}" > "$RES/memory.log" 2>&1 ||
    { tail -5 "$RES/memory.log" >&2; exit 1; }
fi
if want symbolic; then
  if [[ -n $SYMSRC ]]; then
    part_begin symbolic
    bash "$ROOT/bench/symbolic_compare.sh" --symbolic-src "$SYMSRC" --build "$BUILD" --work "$BUILD/symbolic" \
      --repeat "$REPEAT" --rounds 3 --runs "$PROC_RUNS" "${W_ARGS[@]}" > "$RES/symbolic.log" 2>&1 ||
      { tail -5 "$RES/symbolic.log" >&2; exit 1; }
  else
    log "symbolic: skipped (no --symbolic-src); its section keeps its date"
  fi
fi
if want symbolicate; then
  part_begin symbolicate
  bash "$ROOT/scripts/bench-symbolicate.sh" --runs 3 "${W_ARGS[@]}" "$BUILD" > "$RES/symbolicate.log" 2>&1 ||
    { tail -5 "$RES/symbolicate.log" >&2; exit 1; }
fi

# --- the instruction counts of the guard --------------------------------------------------------
if want guard; then
  part_begin guard
  if command -v valgrind > /dev/null; then
    bash "$ROOT/scripts/perf-guard.sh" --build "$BUILD" > "$RES/perf-guard.txt" 2>&1 && gst=0 || gst=$?
    { stamp guard; python3 - "$RES/perf-guard.txt" "$ROOT/bench/instruction-baseline.tsv" "$gst" <<'PY'
import os, re, sys
out, base, status = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
fig = open(os.environ["BENCH_FIGURES"], "a")
rows = re.findall(r"^(\S+/\S+)\s+(\d+)\s+baseline\s+(\d+)\s+(\S+)%\s+(.*)$", out, re.M)
comment = ""
for l in open(base):
    if l.startswith("#"): comment = l.strip("# \n")
print("`scripts/perf-guard.sh --build BUILD` in this run: valgrind's callgrind instruction counts of fixed workloads "
      "(the same for one binary and input however busy the machine is) against the baseline committed in "
      "`bench/instruction-baseline.tsv`; `scripts/test.sh` runs the guard and fails when a count grows more than 15%.\n")
print("| workload | instructions now | baseline | change | verdict |")
print("| --- | ---: | ---: | ---: | --- |")
now = {}
for k, n, b, pct, v in rows:
    now[k] = int(n)
    print(f"| `{k}` | {int(n):,} | {int(b):,} | {pct}% | {v} |")
    fig.write(f"guard.{k}\t{n}\n")
verdict = re.findall(r"^perf-guard: .*$", out, re.M)
print(f"\n{verdict[-1] if verdict else 'perf-guard: no verdict (see the raw output)'} (exit {status}).")
fig.write(f"guard.status\t{status}\n")
pairs = [(k.split("/", 1)[1], k) for k in now if k.startswith("compile-names/") and "compile/" + k.split("/", 1)[1] in now]
if pairs:
    print("\nMethod names (`compile-names/X`: the DLL with its PDB beside it) against the PDB alone (`compile/X`): " +
          "; ".join(f"{n} **{now[k] / now['compile/' + n]:.2f}x** ({now[k] / 1e6:.1f}M against {now['compile/' + n] / 1e6:.1f}M)" for n, k in pairs) + ".")
    for n, k in pairs:
        fig.write(f"guard.names_ratio.{n}\t{now[k] / now['compile/' + n]:.2f}\n")
for k in ("lookup/Ilmap.Corpus.ManyMethods", "lookup/synthetic-100k"):
    if k in now:
        fig.write(f"guard.per_lookup.{k.split('/')[1]}\t{now[k] / 20000:.0f}\n")
if any(k.startswith("lookup/") for k in now):
    print(f"\nPer lookup (a stream of 20,000): " + ", ".join(f"{k.split('/')[1]} {now[k] / 20000:.0f} instructions" for k in now if k.startswith("lookup/")) + ".")
PY
    } > "$PARTS/guard.md"
    emit guard "$PARTS/guard.md"
  else
    log "guard: skipped (no valgrind)"
  fi
fi

# --- .NET: the Ilmap library against SRM --------------------------------------------------------
if want dotnet; then
  if command -v dotnet > /dev/null; then
    part_begin dotnet
    c=$(cache_of "$GEN/syn-100kpts.pdb")
    : > "$RES/dotnet.txt"
    ok=1
    for reader in managed native; do
      log "dotnet: $reader reader"
      if ! bash "$ROOT/integrations/dotnet/bench.sh" "$BUILD/capi/libilmap.so" "$BUILD/dotnet/bench" "$c" "$GEN/syn-100kpts.pdb" \
           --queries "${c%.ilmap}.queries" --repeat 9 --warmup-ms 500 --reader "$reader" > "$RES/dotnet-$reader.txt" 2>&1; then
        log "dotnet bench failed (see $RES/dotnet-$reader.txt)"; ok=0
      fi
    done
    { stamp dotnet; python3 - "$RES" "$ok" <<'PY'
import os, re, sys
res, ok = sys.argv[1], sys.argv[2] == "1"
if not ok:
    print("Not measured in this run: `integrations/dotnet/bench.sh` failed (its output is in the build's results folder)."); sys.exit(0)
kv = {r: dict(re.findall(r"(\w+)=(\S+)", open(f"{res}/dotnet-{r}.txt").read())) for r in ("managed", "native")}
m = kv["managed"]
print(f"`integrations/dotnet/bench.sh LIBILMAP OUT CACHE PDB --queries QUERIES --repeat 9 --warmup-ms 500 --reader managed|native` "
      f"on syn-100kpts ({int(m['queries']):,} queries, {int(m['hits']):,} hits; {m['methods']} methods, {int(m['points']):,} points): "
      "one .NET process answers the same queries through the Ilmap library (`IlmapCache.TryLookup`; its managed reader, "
      "or P/Invoke into `libilmap.so`) and through System.Reflection.Metadata's per-lookup path "
      "(`GetMethodDebugInformation(row).GetSequencePoints()` and the runtime's rule; once more making the file name a "
      "string, as `SourceLocation.File` has it); each warmed up, then interleaved passes, median pass / queries. "
      "Source lines: up to 1,000 (document, line) queries through `IlmapCache.Lines` against a scan of every method's "
      "points with SRM (it has no line index). Open: `IlmapCache.Open` + `Dispose` against "
      "`MetadataReaderProvider.FromPortablePdbStream` + `GetMetadataReader`.\n")
print("| reader | IL lookup | SRM per lookup | SRM + file name | SRM / Ilmap | source line (`Lines`) | SRM scan per line | open + close | SRM open | allocated per pass |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r, v in kv.items():
    g = lambda k: float(v.get(k, "nan"))
    print(f"| {r} | {g('ilmap_pinvoke_ns_per_query'):.1f} ns | {g('srm_per_lookup_ns_per_query'):.1f} ns | "
          f"{g('srm_per_lookup_with_file_name_ns_per_query'):.1f} ns | **{g('ratio_srm_over_ilmap'):.1f}x** | "
          f"{g('ilmap_lines_ns_per_query') / 1e3:.2f} µs | {g('srm_scan_lines_ns_per_query') / 1e6:.2f} ms | "
          f"{g('ilmap_open_close_us'):.1f} µs | {g('srm_open_us'):.1f} µs | {v.get('ilmap_bytes_allocated_per_pass', '-')} bytes |")
print("\n(The key `ilmap_pinvoke_ns_per_query` of the program names both readers' lookups.)")
PY
    } > "$PARTS/dotnet.md"
    emit dotnet "$PARTS/dotnet.md"
  else
    log "dotnet: skipped (dotnet not found)"
  fi
fi

# --- services and stores (slow; --with-services) ------------------------------------------------
if [[ $SERVICES == 1 ]] && want services; then
  part_begin services
  bash "$ROOT/bench/store_add.sh" --build "$BUILD" --runs 3 "${W_ARGS[@]}" > "$RES/store-add.log" 2>&1 || log "store_add.sh failed"
  bash "$ROOT/bench/fetch-parallel.sh" --build "$BUILD" --runs 3 "${W_ARGS[@]}" > "$RES/fetch-parallel.log" 2>&1 || log "fetch-parallel.sh failed"
  bash "$ROOT/bench/store_publish.sh" --build "$BUILD" --runs 1 ${WRITE:+--update} > "$RES/store-publish.log" 2>&1 || log "store_publish.sh failed"
  bash "$ROOT/bench/serve_load.sh" --build "$BUILD" --duration 10 --soak 60 "${W_ARGS[@]}" > "$RES/serve-load.log" 2>&1 || log "serve_load.sh failed"
fi

# --- against the goals --------------------------------------------------------------------------
if [[ -z $ONLY ]]; then
  log "goals"
  { bench_stamp "scripts/bench.sh --build $(bench_rel "$BUILD")${ARGS[*]:+ ${ARGS[*]}}${SYMSRC:+ --symbolic-src SYMBOLIC-SOURCES}" "$LOAD0"
    echo "Run time: $(( ($(date +%s) - T_START) / 60 )) min. Every figure is this run's (the sections above); \"met?\" is computed from it."
    echo
    python3 "$ROOT/scripts/bench-goals.py" "$BENCH_FIGURES"; } > "$PARTS/goals.md"
  emit goals "$PARTS/goals.md"
fi
log "done in $(( ($(date +%s) - T_START) / 60 )) min $(( ($(date +%s) - T_START) % 60 )) s; raw outputs in $RES"
