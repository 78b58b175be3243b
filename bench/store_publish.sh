#!/usr/bin/env bash
# bench/store_publish.sh - publishing COUNT Portable PDBs with their caches (`ilmap store add`)
# into a folder store and into an S3 bucket (a one-node OpenStack Swift with s3api, started
# here by tests/s3/swift.sh), by 1 publisher against 8: one process -j 1, one process -j 8, and
# 8 processes -j 1 at once, each publishing its eighth of the inputs (8 build agents). Every run
# starts with an empty store (a new folder, a new bucket prefix); whole process, wall clock,
# median of RUNS runs. Each finished store is checked (`store verify`: COUNT files and caches).
# Writes the section "store add: 1,000 PDBs, 1 publisher against 8" of BENCHMARKS.md with
# --update (else prints it). Never a ctest test.
#
#   bench/store_publish.sh [--build DIR] [--count N] [--runs N] [--no-s3] [--update | --write FILE]
#     --build DIR   a Release build with the targets ilmap and ilmap_gen_pdb (default build/release)
#     --count N     PDBs (default 1000: the corpus PDBs, then synthetic ones of 2,000-41,000 points)
#     --runs N      runs per median (default 3)
#     --no-s3       the folder store only (also when Swift is not installed)
#     --update      replace the section store-publish of BENCHMARKS.md (<!-- store-publish:begin/end -->,
#                   scripts/bench-write.py); --write FILE: of FILE
# Work files go to DIR/publish-bench/.
set -euo pipefail
export LC_ALL=C
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bench-lib.sh"
BUILD="$ROOT/build/release" COUNT=1000 RUNS=3 S3=1 UPDATE=0 WRITE="$ROOT/BENCHMARKS.md"
load_before=$(bench_load)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift ;;
    --count) COUNT="$2"; shift ;;
    --runs) RUNS="$2"; shift ;;
    --no-s3) S3=0 ;;
    --update) UPDATE=1 ;;
    --write) UPDATE=1; WRITE="$(realpath "$2")"; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "store_publish.sh: unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
BUILD=$(cd "$BUILD" && pwd)
ILMAP="$BUILD/tools/ilmap" GEN="$BUILD/bench/ilmap_gen_pdb"
[[ -x $ILMAP && -x $GEN ]] || { echo "store_publish.sh: build the targets ilmap and ilmap_gen_pdb in $BUILD first" >&2; exit 1; }
W="$BUILD/publish-bench"
rm -rf "$W/st" "$W/swift"
mkdir -p "$W"
cd "$W"

# Inputs (kept between runs of the script when COUNT is unchanged): in/ all, part/0..7 the eighths.
if [[ ! -f in.count || $(cat in.count) != "$COUNT" ]]; then
  rm -rf in part in.count
  mkdir in
  n=0
  for p in "$ROOT"/corpus/out/*/*.pdb; do
    [[ $n -lt $COUNT ]] || break
    cp "$p" "in/$(printf 'c%04d' $n)-$(basename "$p")"
    n=$((n + 1))
  done
  i=0
  while [[ $n -lt $COUNT ]]; do
    "$GEN" --points $((2000 + (i * 7919) % 39000)) --seed $((1000 + i)) -o "in/$(printf 's%04d' $i).pdb" >/dev/null
    i=$((i + 1))
    n=$((n + 1))
  done
  for k in 0 1 2 3 4 5 6 7; do mkdir -p part/$k; done
  i=0
  for f in in/*.pdb; do
    ln "$f" "part/$((i % 8))/$(basename "$f")"
    i=$((i + 1))
  done
  echo "$COUNT" >in.count
fi
files=$(find in -type f | wc -l)
bytes=$(du -sb in | cut -f1)

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# check STORE: the store holds COUNT PDBs and COUNT caches, and verifies.
check() {
  local out
  out=$("$ILMAP" store verify "$1" "${@:2}") || { echo "store_publish.sh: store verify $1 failed: $out" >&2; exit 1; }
  [[ $out == "$files files, $files caches checked, "* ]] || { echo "store_publish.sh: $1: $out (want $files files and caches)" >&2; exit 1; }
}
# one MODE STORE [ARGS...] -> seconds of one publishing run (MODE: j1, j8, p8)
one() {
  local mode=$1 store=$2 t0 t1 k pids=()
  shift 2
  t0=$(now)
  case $mode in
    j1) "$ILMAP" store add -q -j 1 "$store" in "$@" ;;
    j8) "$ILMAP" store add -q -j 8 "$store" in "$@" ;;
    p8)
      for k in 0 1 2 3 4 5 6 7; do "$ILMAP" store add -q -j 1 "$store" part/$k "$@" & pids+=($!); done
      for k in "${pids[@]}"; do wait "$k" || { echo "store_publish.sh: a publisher failed" >&2; exit 1; }; done ;;
  esac
  t1=$(now)
  check "$store" "$@"
  echo "$t1 - $t0" | bc
}
# measure KIND MODE -> median seconds (KIND: folder, s3)
run_id=0
measure() {
  local kind=$1 mode=$2 ts=() r
  for r in $(seq "$RUNS"); do
    run_id=$((run_id + 1))
    if [[ $kind == folder ]]; then
      rm -rf st
      sync
      ts+=("$(one "$mode" "$W/st/$run_id")")
      rm -rf st
    else
      ts+=("$(one "$mode" "s3://bench/r$run_id")")
    fi
  done
  printf '%s\n' "${ts[@]}" | median
}
row() {  # row WHAT SECONDS BASE
  awk -v n="$1" -v s="$2" -v b="$3" -v f="$files" \
    'BEGIN { printf "| %s | %.2f s | %.0f PDBs/s | %.1fx |\n", n, s, f / s, b / s }'
}

folder_j1=$(measure folder j1)
folder_j8=$(measure folder j8)
folder_p8=$(measure folder p8)
s3_note=""
if [[ $S3 == 1 ]]; then
  # shellcheck source=../tests/s3/swift.sh
  source "$ROOT/tests/s3/swift.sh"
  trap 'swift_stop || true' EXIT
  set +e
  swift_start "$W/swift" >swift.out 2>&1
  rc=$?
  set -e
  if [[ $rc -ne 0 ]]; then
    s3_note="Swift did not start here ($(head -n 1 swift.out)): no bucket rows."
    S3=0
  else
    swift_bucket bench >/dev/null || { echo "store_publish.sh: cannot create the bucket" >&2; exit 1; }
    export AWS_ACCESS_KEY_ID=$SWIFT_KEY_ID AWS_SECRET_ACCESS_KEY=$SWIFT_SECRET AWS_ENDPOINT_URL=$SWIFT_S3_URL
    s3_j1=$(measure s3 j1)
    s3_j8=$(measure s3 j8)
    s3_p8=$(measure s3 p8)
  fi
fi
load=$(cut -d' ' -f1-3 /proc/loadavg)

cmd="bench/store_publish.sh --build $(bench_rel "$BUILD") --count $COUNT --runs $RUNS"
[[ $S3 == 1 ]] || cmd+=" --no-s3"
section=$(
  bench_stamp "$cmd" "$load_before"
  echo
  echo "$files Portable PDBs ($bytes bytes; the corpus PDBs, then \`ilmap_gen_pdb\` ones of 2,000-41,000 points), each"
  echo "published with its cache (\`ilmap store add -q\`) into an empty store: a folder, and a bucket of a"
  echo "one-node OpenStack Swift with s3api on this machine (\`tests/s3/swift.sh\`; each file claimed,"
  echo "written and read back: docs/symbol-stores.md \"S3 buckets\"). One process \`-j 1\`, one process"
  echo "\`-j 8\`, and 8 processes \`-j 1\` at once, each with an eighth of the files (8 build agents)."
  echo "Whole process, wall clock, median of $RUNS runs; every store verified after its run."
  echo
  echo "| store, publishers | time | PDBs/s | speed-up |"
  echo "| --- | ---: | ---: | ---: |"
  row "folder, 1 process -j 1" "$folder_j1" "$folder_j1"
  row "folder, 1 process -j 8" "$folder_j8" "$folder_j1"
  row "folder, 8 processes -j 1" "$folder_p8" "$folder_j1"
  if [[ $S3 == 1 ]]; then
    row "Swift bucket, 1 process -j 1" "$s3_j1" "$s3_j1"
    row "Swift bucket, 1 process -j 8" "$s3_j8" "$s3_j1"
    row "Swift bucket, 8 processes -j 1" "$s3_p8" "$s3_j1"
  fi
  [[ -z $s3_note ]] || { echo; echo "$s3_note"; }
)
if [[ $UPDATE == 1 ]]; then
  bench_write "$WRITE" store-publish <(echo "$section")
fi
echo "$section"
