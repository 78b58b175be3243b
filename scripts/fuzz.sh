#!/usr/bin/env bash
# Build the libFuzzer targets (clang, ASan+UBSan) and run each for a fixed time.
# Usage: scripts/fuzz.sh [TARGET...]      (default: all of them, ILMAP_JOBS of them at once)
# Env:   ILMAP_FUZZ_SECONDS (default 60 per target), ILMAP_FUZZ_MSF_SECONDS (fuzz_msf's
#        budget, default 20, at most ILMAP_FUZZ_SECONDS), ILMAP_JOBS (default 2),
#        ILMAP_SHARED_DIR (default ../shared; its corpus-public/ seeds the PDB targets),
#        ILMAP_FUZZ_KEEP=1 keeps the work directory (corpora, logs, crash files),
#        ILMAP_FUZZ_BUILD_ONLY=1 builds the targets and runs none.
# Exits 0 (with a message) when clang or libFuzzer is missing; non-zero on any crash, leak,
# timeout, out-of-memory or sanitizer report. Seeds are corpus/out and corpus-public, copied
# into a temporary directory at run time (never committed), plus fuzz/seeds/ when present.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds="${ILMAP_FUZZ_SECONDS:-60}"
jobs="${ILMAP_JOBS:-2}"
shared="${ILMAP_SHARED_DIR:-$root/../shared}"
build="$root/build/fuzz"
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(fuzz_pdb fuzz_pe fuzz_cache fuzz_roundtrip fuzz_msf fuzz_msfz fuzz_msym fuzz_names fuzz_batch fuzz_s3_xml)

if ! command -v clang++ >/dev/null 2>&1 || ! command -v clang >/dev/null 2>&1; then
  echo "fuzz: clang not found; skipping (scripts/install-deps.sh --fuzz installs it)"
  exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$probe/p.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1; then
  echo "fuzz: clang cannot link -fsanitize=fuzzer (libclang-rt-*-dev missing?); skipping"
  exit 0
fi

echo "fuzz: building ${targets[*]} in $build"
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DILMAP_SANITIZE=ON -DILMAP_BUILD_FUZZ=ON -DILMAP_BUILD_TESTS=OFF -DILMAP_BUILD_BENCH=OFF \
  -DILMAP_SHARED_DIR="$shared" \
  -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
# One target at a time: parallel make invocations on shared libraries race.
# The instrumented CLI only compiles cache seeds where the Release program is not built.
build_targets=("${targets[@]}")
[[ -x $root/build/release/tools/ilmap ]] || build_targets+=(ilmap)
for t in "${build_targets[@]}"; do cmake --build "$build" -j"$jobs" --target "$t" >/dev/null; done
# ILMAP_FUZZ_BUILD_ONLY=1: stop here (scripts/test.sh builds the targets while other work runs).
if [[ "${ILMAP_FUZZ_BUILD_ONLY:-}" == "1" ]]; then echo "fuzz: built ${build_targets[*]}"; exit 0; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-fuzz.XXXXXX")
if [[ "${ILMAP_FUZZ_KEEP:-}" == "1" ]]; then
  echo "fuzz: work directory $work (kept)"
else
  trap 'rm -rf "$probe" "$work"' EXIT
fi

# --- seed corpora -----------------------------------------------------------------------------
mkdir -p "$work/seeds/pdb" "$work/seeds/pe" "$work/seeds/cache" "$work/seeds/msf" "$work/seeds/msfz" "$work/seeds/msym" "$work/seeds/json" "$work/seeds/s3"
# Batch requests (fuzz_batch): a few shapes, written here rather than committed.
printf '%s' '{"stacktraces":[{"frames":[{"function_id":"0x1","instruction_addr":"0x0","addr_mode":"rel:0"},{},1]}],"modules":[{"type":"pe_dotnet","debug_id":"00000000-0000-0000-0000-000000000000-00000001"},{}]}' >"$work/seeds/json/batch1.json"
printf '%s' '{ "modules" : [ ], "stacktraces" : [ { "x" : [1, 2.5e1, "\u00e9"], "frames" : [ ] , "frames": [{"lineno":1,"lineno":null}] } ] }' >"$work/seeds/json/batch2.json"
# S3 answers: a ListObjectsV2 page (truncated, with entities) and an error.
printf '%s' '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name><Prefix>p/</Prefix><IsTruncated>true</IsTruncated><NextContinuationToken>1a&amp;2</NextContinuationToken><Contents><Key>p/a.pdb/0/a&lt;b.pdb</Key><Size>3</Size></Contents><Contents><Key>p/x</Key></Contents></ListBucketResult>' \
  >"$work/seeds/s3/list.xml"
printf '%s' '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Authorization: AWS4-HMAC-SHA256 Credential=AKIAFUZZ/20240101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0123abcd</Message></Error>' \
  >"$work/seeds/s3/error.xml"
n=0
add_seed() {  # kind file
  n=$((n + 1))
  cp "$2" "$work/seeds/$1/$n-$(basename "$2")"
}
while IFS= read -r -d '' f; do add_seed pdb "$f"; done < <(find corpus/out "$shared/corpus-public" -name '*.pdb' -print0 2>/dev/null)
# Windows (MSF) PDBs also seed fuzz_msf (recognised by their magic, e.g. corpus-public/win_*).
while IFS= read -r -d '' f; do
  if [[ "$(head -c 24 "$f" | tr -d '\0')" == "Microsoft C/C++ MSF 7.00" ]]; then add_seed msf "$f"; fi
done < <(find corpus/out "$shared/corpus-public" -name '*.pdb' -print0 2>/dev/null)
while IFS= read -r -d '' f; do add_seed pe "$f"; done < <(find corpus/out "$shared/corpus-public" \( -name '*.dll' -o -name '*.exe' \) -print0 2>/dev/null)
# MSFZ PDBs (.pdz, e.g. corpus-more/msfz_*) seed fuzz_msfz and fuzz_msf (both read them).
while IFS= read -r -d '' f; do add_seed msfz "$f"; add_seed msf "$f"; done < <(find "$shared/corpus-more" -name '*.pdz' -print0 2>/dev/null)
# Mono AOT .msym files (tests/decode/data, written by mono --aot=msym-dir) seed fuzz_msym.
while IFS= read -r -d '' f; do add_seed msym "$f"; done < <(find tests/decode/data -name '*.msym' -print0 2>/dev/null)
for kind in pdb pe cache msf s3; do
  if [[ -d fuzz/seeds/$kind ]]; then
    while IFS= read -r -d '' f; do add_seed "$kind" "$f"; done < <(find "fuzz/seeds/$kind" -type f -print0)
  fi
done
# Caches: compile the small PDB seeds with the Release program when it is built (the clang
# build's CLI dies in CLI11's option set-up under ASan: a bad-free in CLI::Range's constructor,
# in the header, before any ilmap code runs), else with the instrumented one.
compiler="$root/build/release/tools/ilmap"
[[ -x $compiler ]] || compiler="$build/tools/ilmap"
for f in "$work"/seeds/pdb/*; do
  [[ $(stat -c %s "$f") -le 65536 ]] || continue
  "$compiler" compile "$f" -o "$work/seeds/cache/$(basename "$f").ilmap" >/dev/null 2>&1 || true
done
if [[ $(ls "$work/seeds/cache" | wc -l) -eq 0 ]]; then
  echo "fuzz: no cache seed could be compiled (with $compiler); fuzz_cache starts from fuzz/seeds/cache only" >&2
fi
echo "fuzz: seeds: $(ls "$work/seeds/pdb" | wc -l) PDB ($(ls "$work/seeds/msf" | wc -l) MSF), $(ls "$work/seeds/pe" | wc -l) PE, $(ls "$work/seeds/cache" | wc -l) cache"

# --- run --------------------------------------------------------------------------------------
# Each target is one process on one core: ILMAP_JOBS of them run at once, and their results are
# printed in the order of the targets.
run_target() {  # target -> writes $work/$t.rc
  local t=$1 seeds dict max_len budget corpus log rc=0
  case "$t" in
    fuzz_pdb)       seeds=pdb;   dict=pdb.dict;   max_len=65536 ;;
    fuzz_roundtrip) seeds=pdb;   dict=pdb.dict;   max_len=65536 ;;
    fuzz_pe)        seeds=pe;    dict=pe.dict;    max_len=300000 ;;
    fuzz_names)     seeds=pe;    dict=pe.dict;    max_len=300000 ;;
    fuzz_cache)     seeds=cache; dict=cache.dict; max_len=65536 ;;
    fuzz_msf)       seeds=msf;   dict=msf.dict;   max_len=65536 ;;
    fuzz_msfz)      seeds=msfz;  dict=msfz.dict;  max_len=65536 ;;
    fuzz_msym)      seeds=msym;  dict=msym.dict;  max_len=16384 ;;
    fuzz_batch)     seeds=json;  dict=batch.dict; max_len=65536 ;;
    fuzz_s3_xml)    seeds=s3;    dict=s3.dict;    max_len=65536 ;;
  esac
  budget=$seconds
  if [[ $t == fuzz_msf || $t == fuzz_msfz ]]; then  # a short run keeps CI fast; raise it for a soak
    budget="${ILMAP_FUZZ_MSF_SECONDS:-20}"
    (( budget > seconds )) && budget=$seconds
  fi
  corpus="$work/corpus-$t"
  mkdir -p "$corpus" "$work/artifacts-$t"
  log="$work/$t.log"
  echo "$budget $max_len" > "$work/$t.plan"
  # Leak detection stays on (libFuzzer reports leaks at exit of each input run with ASan).
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}" \
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
  "$build/fuzz/$t" "$corpus" "$work/seeds/$seeds" \
    -dict="fuzz/$dict" -max_len="$max_len" -max_total_time="$budget" \
    -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -print_final_stats=1 -print_funcs=0 \
    -artifact_prefix="$work/artifacts-$t/" >"$log" 2>&1 || rc=$?
  echo "$rc" > "$work/$t.rc"
}
for t in "${targets[@]}"; do
  case "$t" in
    fuzz_pdb|fuzz_roundtrip|fuzz_pe|fuzz_names|fuzz_cache|fuzz_msf|fuzz_msfz|fuzz_msym|fuzz_batch|fuzz_s3_xml) ;;
    *) echo "fuzz: unknown target $t" >&2; exit 1 ;;
  esac
done
echo "fuzz: running ${#targets[@]} targets, $jobs at a time (${seconds}s each, fuzz_msf ${ILMAP_FUZZ_MSF_SECONDS:-20}s)"
running=0
for t in "${targets[@]}"; do
  if (( running >= jobs )); then wait -n || true; running=$((running - 1)); fi
  run_target "$t" &
  running=$((running + 1))
done
wait

status=0
for t in "${targets[@]}"; do
  log="$work/$t.log"
  corpus="$work/corpus-$t"
  rc=$(cat "$work/$t.rc" 2>/dev/null || echo "missing")
  read -r budget max_len < "$work/$t.plan"
  artifacts=$(ls "$work/artifacts-$t" | wc -l)
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  if [[ $rc != 0 || $artifacts -ne 0 ]] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
    echo "fuzz: $t FAILED after ${budget}s (exit $rc, $artifacts artifact(s)); log tail:" >&2
    grep -vE '^#[0-9]+|NEW_FUNC' "$log" | tail -40 >&2
    for a in "$work/artifacts-$t"/*; do
      [[ -e "$a" ]] || continue
      mkdir -p "$root/build/fuzz-artifacts"
      cp "$a" "$root/build/fuzz-artifacts/$t-$(basename "$a")"
      echo "fuzz: reproducer saved to build/fuzz-artifacts/$t-$(basename "$a")" >&2
    done
    status=1
  else
    echo "fuzz: $t ok (${budget}s, max_len $max_len, $runs runs, corpus $(ls "$corpus" | wc -l) new units)"
  fi
done
exit $status
