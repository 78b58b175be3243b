#!/usr/bin/env bash
# scripts/bench-process.sh - whole-process `ilmap compile` against the same compile in process,
# paired: the programs run alternately, round after round, so that a busy machine slows them
# alike (BENCHMARKS.md "Compile").
#
#   scripts/bench-process.sh [--rounds N] [--in-process BENCH] [--pdb FILE]... ILMAP [ILMAP2...]
#
#   ILMAP...         one or more ilmap programs (e.g. a build of main and one of a branch)
#   --pdb FILE       inputs (default: the 100k-point synthetic PDBs that scripts/bench.sh makes,
#                    generated here with ilmap_gen_pdb beside BENCH when absent)
#   --rounds N       process runs per program and PDB (default 200; 3 untimed warm-up runs)
#   --in-process B   ilmap_bench_compile (default: beside ILMAP in ../bench): the in-process
#                    compile median (PDB in memory, warm) of the same file
#
# Per program and PDB: wall time median and minimum (posix_spawn to wait4), CPU time median
# (the child's user+system from wait4, kernel time included) and minor page faults median.
# The output cache is written with --force -q to a scratch directory, so every run compiles,
# writes a temporary file and renames it over the previous run's cache.
set -euo pipefail
ROUNDS=200
BENCH=""
PDBS=()
PROGS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift ;;
    --in-process) BENCH="$2"; shift ;;
    --pdb) PDBS+=("$2"); shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "bench-process.sh: unknown option $1" >&2; exit 1 ;;
    *) PROGS+=("$1") ;;
  esac
  shift
done
[[ ${#PROGS[@]} -gt 0 ]] || { echo "usage: bench-process.sh [options] ILMAP [ILMAP2...]" >&2; exit 1; }
command -v python3 > /dev/null || { echo "bench-process.sh: python3 is needed" >&2; exit 1; }
[[ -n $BENCH ]] || BENCH="$(dirname "${PROGS[0]}")/../bench/ilmap_bench_compile"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
if [[ ${#PDBS[@]} -eq 0 ]]; then
  GEN="$(dirname "$BENCH")/ilmap_gen_pdb"
  "$GEN" --points 100000 --seed 3 -o "$WORK/syn-100kpts.pdb" > /dev/null
  # DESIGN's reference input: the same points in a 1.4 MB PDB (System.Private.CoreLib's size)
  "$GEN" --points 100000 --seed 3 --pad-to 1468006 -o "$WORK/syn-ref-1_4mb-100kpts.pdb" > /dev/null
  PDBS=("$WORK/syn-100kpts.pdb" "$WORK/syn-ref-1_4mb-100kpts.pdb")
fi
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS paired rounds, medians"
for pdb in "${PDBS[@]}"; do
  name="$(basename "$pdb")"
  inproc="-"
  if [[ -x $BENCH ]]; then
    inproc=$("$BENCH" --median --repeat 50 --pdb "$pdb" | sed -n 's/.*compile_median_ns=\([0-9]*\).*/\1/p' |
             awk '{printf "%.3f", $1/1e6}')
  fi
  echo "== $name ($(stat -c %s "$pdb") bytes); in process (ilmap_bench_compile --median): $inproc ms"
  python3 - "$ROUNDS" "$pdb" "$WORK" "$inproc" "${PROGS[@]}" <<'PY'
import os, statistics, sys, time
rounds, pdb, work, inproc = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
progs = sys.argv[5:]
res = {p: ([], [], []) for p in progs}
def run(i, prog):
    argv = [prog, "compile", pdb, "-o", os.path.join(work, f"out{i}.ilmap"), "--force", "-q"]
    t = time.perf_counter_ns()
    pid = os.posix_spawn(prog, argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - t) / 1e6
    if status != 0:
        sys.exit(f"{' '.join(argv)}: status {status}")
    return wall, (ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_minflt
for r in range(rounds + 3):
    for i, p in enumerate(progs):
        w, c, f = run(i, p)
        if r >= 3:
            res[p][0].append(w); res[p][1].append(c); res[p][2].append(f)
print(f"{'program':<44} {'wall_med':>9} {'wall_min':>9} {'cpu_med':>8} {'faults':>7} {'wall/in-process':>16}")
for p in progs:
    w, c, f = res[p]
    ratio = f"{statistics.median(w) / float(inproc):.1f}x" if inproc != "-" else "-"
    print(f"{p[-44:]:<44} {statistics.median(w):9.3f} {min(w):9.3f} {statistics.median(c):8.3f} "
          f"{int(statistics.median(f)):7d} {ratio:>16}")
PY
done
