#!/usr/bin/env bash
# bench/memory_table.sh - the memory a whole-process compile holds (issue 47's measure): the peak
# resident memory and the minor page faults of one `ilmap compile PDB -o CACHE --force -q`
# process, medians of several runs, for synthetic PDBs of 1, 10 and 100 MB (and 400 MB unless
# --quick) and the largest real PDBs of corpus/out and ../shared/corpus-public, with what that
# peak is over input + output (the goal: at most 64 MiB on the synthetic PDBs, 16 MiB on real
# ones; docs/architecture.md, "Memory") and the growth per point between the synthetic PDBs.
# symbolic-ppdb's converter beside it when bench/symbolic_compare.sh has built it (its --once).
# BENCHMARKS.md "Memory".
#
#   bench/memory_table.sh [--build DIR] [--ilmap PATH] [--symbolic PATH] [--runs N] [--quick]
#                         [--write FILE]
#     --build DIR      a Release build with ilmap and ilmap_gen_pdb (default build/release)
#     --ilmap PATH     the ilmap program to measure (default DIR/tools/ilmap); e.g. an older build
#     --symbolic PATH  symbolic-ppdb's bench program (default DIR/symbolic/rust/target/release/
#                      ilmap-symbolic-bench, when present: what scripts/bench.sh --symbolic-src builds)
#     --runs N         runs per input (default 5; 3 over 50 MB and 1 over 200 MB)
#     --quick          skip the 400 MB synthetic PDB
#     --write FILE     replace the section `memory` of FILE (scripts/bench-write.py) instead of
#                      printing it
# Synthetic PDBs go to DIR/gen (deterministic, reused). Never a ctest test (the guard is ctest
# memory.compile_100mb). A shared machine: the 400 MB PDB takes about 1.5 GB and 10 s per run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bench-lib.sh"
ARGS=("$@")
BUILD="$ROOT/build/release"
ILMAP="" SYM="" RUNS=5 QUICK=0 WRITE=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift ;;
    --ilmap) ILMAP="$2"; shift ;;
    --symbolic) SYM="$2"; shift ;;
    --runs) RUNS="$2"; shift ;;
    --quick) QUICK=1 ;;
    --write) WRITE="$(realpath "$2")"; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "memory_table.sh: unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
ILMAP="${ILMAP:-$BUILD/tools/ilmap}"
GENPDB="$BUILD/bench/ilmap_gen_pdb"
SYM="${SYM:-$BUILD/symbolic/rust/target/release/ilmap-symbolic-bench}"
[[ -x $SYM ]] || SYM=""
for t in "$ILMAP" "$GENPDB"; do [[ -x $t ]] || { echo "memory_table.sh: $t is missing (build ilmap and ilmap_gen_pdb)" >&2; exit 1; }; done
GEN="$BUILD/gen"
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-memory-table.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$GEN"
load_before=$(bench_load)

inputs=()
for mb in 1 10 100 400; do
  [[ $mb == 400 && $QUICK == 1 ]] && continue
  f="$GEN/syn-mem-${mb}mb.pdb"
  [[ -s $f ]] || "$GENPDB" --size-mb "$mb" --seed 5 -o "$f" > "$f.gen.txt"
  inputs+=("$f")
done
# The three largest real PDBs, each copied alone (no DLL beside it: no method names).
while IFS= read -r f; do
  mkdir -p "$work/real/$(basename "$f" .pdb)"
  cp "$f" "$work/real/$(basename "$f" .pdb)/"
  inputs+=("$work/real/$(basename "$f" .pdb)/$(basename "$f")")
done < <({ find "$ROOT/corpus/out" -name '*.pdb' 2>/dev/null; find "$ROOT/../shared/corpus-public" -name '*.pdb' 2>/dev/null; } |
         xargs -r stat -c '%s %n' | sort -rn | head -3 | cut -d' ' -f2-)

# peak PROGRAM ARGS...: "max_rss_kb minor_faults wall_seconds" of one run. GNU time (Debian's `time`) forks a
# process of about 2 MB and reports the child's own rusage; without it python3 spawns the child,
# whose ru_maxrss then counts python's pages shared until exec (about 13 MB: small PDBs read high).
TIME_BIN=/usr/bin/time
[[ -x $TIME_BIN ]] || TIME_BIN=""
peak() {
  if [[ -n $TIME_BIN ]]; then
    "$TIME_BIN" -f '%M %R %e' -o "$work/time.out" "$@" > /dev/null || return 1
    tail -n 1 "$work/time.out"
    return
  fi
  python3 - "$@" <<'PY'
import os, sys, time
t0 = time.monotonic()
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
_, status, ru = os.wait4(pid, 0)
if status != 0:
    sys.exit(f"{' '.join(sys.argv[1:])}: status {status}")
print(ru.ru_maxrss, ru.ru_minflt, f"{time.monotonic() - t0:.3f}")
PY
}
median() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
: > "$work/rows.tsv"
for f in "${inputs[@]}"; do
  size=$(stat -c %s "$f")
  n=$RUNS
  if ((size > 200000000)); then n=1; elif ((size > 50000000)); then n=$((RUNS < 3 ? RUNS : 3)); fi
  : > "$work/ilmap.runs"; : > "$work/sym.runs"
  for ((i = 0; i < n; i++)); do
    peak "$ILMAP" compile "$f" -o "$work/out.ilmap" --force -q >> "$work/ilmap.runs"
    [[ -n $SYM ]] && peak "$SYM" --once "$f" -o "$work/out.symcache" >> "$work/sym.runs"
  done
  points=$("$ILMAP" info --json "$work/out.ilmap" | python3 -c 'import json,sys; print(json.load(sys.stdin)["sequence_points"])' 2>/dev/null || echo 0)
  srss=- sflt=- swall=-
  if [[ -n $SYM ]]; then
    srss=$(cut -d' ' -f1 "$work/sym.runs" | median); sflt=$(cut -d' ' -f2 "$work/sym.runs" | median)
    swall=$(cut -d' ' -f3 "$work/sym.runs" | median)
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$f" .pdb)" "$size" "$(stat -c %s "$work/out.ilmap")" "$points" \
    "$(cut -d' ' -f1 "$work/ilmap.runs" | median)" "$(cut -d' ' -f2 "$work/ilmap.runs" | median)" \
    "$(cut -d' ' -f3 "$work/ilmap.runs" | median)" "$srss" "$sflt" "$swall" "$n" >> "$work/rows.tsv"
done

# Every real PDB (corpus/out, ../shared's corpus-public and corpus-more: Portable, Windows and
# MSFZ), one run each, alone in a folder: the largest excess over input + output, and those over
# the 16 MiB goal.
: > "$work/all.tsv"
while IFS= read -r f; do
  d="$work/all/$(printf '%03d' "$(wc -l < "$work/all.tsv")")"
  mkdir -p "$d" && cp "$f" "$d/"
  g="$d/$(basename "$f")"
  if r=$(peak "$ILMAP" compile "$g" -o "$d/out.ilmap" --force -q 2>/dev/null); then
    printf '%s\t%s\t%s\t%s\n' "${f#"$ROOT/"}" "$(stat -c %s "$g")" "$(stat -c %s "$d/out.ilmap")" "${r%% *}" >> "$work/all.tsv"
  else
    printf '%s\t%s\t-\t-\n' "${f#"$ROOT/"}" "$(stat -c %s "$g")" >> "$work/all.tsv"
  fi
  rm -rf "$d"
done < <({ find "$ROOT/corpus/out" -name '*.pdb' 2>/dev/null
           find "$ROOT/../shared/corpus-public" "$ROOT/../shared/corpus-more" \( -name '*.pdb' -o -name '*.pdz' \) 2>/dev/null; } | sort)

{
  bench_stamp "bench/memory_table.sh --build $(bench_rel "$BUILD") --runs $RUNS$( ((QUICK)) && echo " --quick")" "$load_before"
  echo
  python3 - "$work/rows.tsv" "$([[ -n $SYM ]] && echo 1 || echo 0)" "$([[ -n $TIME_BIN ]] && echo 1 || echo 0)" "$RUNS" "$work/all.tsv" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
sym = sys.argv[2] == "1"
gnu_time = sys.argv[3] == "1"
runs = int(sys.argv[4])
MiB = 1 << 20
print("One process per run (`ilmap compile PDB -o CACHE --force -q`; the PDB alone, no DLL beside it): peak resident "
      "memory (the child's `ru_maxrss`, " + ("GNU time" if gnu_time else "spawned by python3, whose own pages count in") +
      f") and minor page faults, medians of {runs} runs ({min(runs, 3)} over 50 MB, 1 over 200 MB). "
      "Over in + out: the peak less the input's and the cache's bytes (the goal: at most 64 MiB on the synthetic "
      "PDBs, 16 MiB on real ones). Growth: the peak's growth per point from the previous synthetic row. "
      "Wall: the median run's elapsed time (GNU time's 10 ms steps; a timing beside the counts, not a guard)."
      + (" symbolic: symbolic-ppdb's converter (`--once PDB -o OUT`) on the same PDB in the same loop; "
         "sym / ilmap: its wall time over ilmap's." if sym else "") + "\n")
head = "| PDB | bytes | points | cache bytes | ilmap peak | over in + out | page faults | growth / point | ilmap wall |"
line = "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
if sym:
    head += " symbolic peak | symbolic faults | symbolic wall | sym / ilmap |"
    line += " ---: | ---: | ---: | ---: |"
print(head)
print(line)
prev = None
def wall(t):
    t = float(t)
    return f"{t * 1000:.0f} ms" if t < 10 else f"{t:.1f} s"
for n, b, o, p, rss, flt, iwall, srss, sflt, swall, runs in rows:
    b, o, p, peak = int(b), int(o), int(p), int(rss) * 1024
    growth = "-"
    if n.startswith("syn-") and prev and p > prev[0]:
        growth = f"{(peak - prev[1]) / (p - prev[0]):.1f} B"
    if n.startswith("syn-"):
        prev = (p, peak)
    cells = f"| {n} | {b:,} | {p:,} | {o:,} | {peak / MiB:.1f} MiB | {(peak - b - o) / MiB:+.1f} MiB | {int(flt):,} | {growth} | {wall(iwall)} |"
    if sym:
        ratio = f"**{float(swall) / float(iwall):.1f}x**" if srss != "-" and float(iwall) > 0 else "-"
        cells += " - | - | - | - |" if srss == "-" else f" {int(srss) * 1024 / MiB:.1f} MiB | {int(sflt):,} | {wall(swall)} | {ratio} |"
    print(cells)
all_rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[5])]
done = [(n, int(b), int(o), int(r) * 1024) for n, b, o, r in all_rows if o != "-"]
if done:
    worst = max(done, key=lambda t: t[3] - t[1] - t[2])
    over = [t for t in done if t[3] - t[1] - t[2] > 16 * MiB]
    refused = [n for n, b, o, r in all_rows if o == "-"]
    print(f"\nEvery real PDB, one run each ({len(done)} compiled of {len(all_rows)}: corpus/out and ../shared's corpus-public "
          f"and corpus-more, Portable, Windows and MSFZ): the largest peak over in + out is "
          f"{(worst[3] - worst[1] - worst[2]) / MiB:+.1f} MiB (`{worst[0].split('/')[-1]}`, {worst[3] / MiB:.1f} MiB); "
          + (f"{len(over)} over the 16 MiB goal: " + ", ".join(f"`{t[0].split('/')[-1]}`" for t in over) if over else "none over the 16 MiB goal")
          + "." + (f" Not compiled (refused as inputs, as they should be): {len(refused)}." if refused else ""))
PY
} > "$work/memory.md"
if [[ -n $WRITE ]]; then bench_write "$WRITE" memory "$work/memory.md"; else cat "$work/memory.md"; fi
