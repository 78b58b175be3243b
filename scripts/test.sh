#!/usr/bin/env bash
# The whole test suite: install dependencies, build Release (and the released linux-x64 and
# linux-arm64 builds with their glibc 2.31 floor, for tests/dist and tests/arm64, and the win-x64
# build, for tests/windows under Wine) and the
# ASan+UBSan configuration,
# run every ctest test in both (the sanitizer build leaves out labels "oracle" and "dotnet"; tests
# needing dotnet or ../shared skip where those are absent),
# the instruction-count guard on the Release build (scripts/perf-guard.sh), then the fuzz targets for a fixed time when clang's libFuzzer is available.
# A test that fails in a configuration's parallel run is run once more alone (when at most 5
# failed); the run passes only if it passes then, and the log ends with every such test and the
# end of its first output.
#
# scripts/test.sh --quick: the contributor's loop (CONTRIBUTING.md). No dependency installation,
# no sanitizer or arm64 build, no guard, no fuzzing: the Release build of the program and of the
# unit test binaries only, then the ctest tests labelled `unit` or `cli` (the end-to-end `cli`
# cases and the three `hostile` CLI checks). Exit 0 when they all pass (or skip).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${ILMAP_JOBS:-2}"
if [[ ${1:-} == --quick ]]; then
  # The targets those labels run: the program, the golden bad files the CLI cases read, and one
  # GoogleTest binary per layer (tests/CMakeLists.txt ilmap_layer_tests, with msf, names and
  # sentry). Building only these keeps a header change from rebuilding benchmarks and fuzzers.
  quick_targets=(ilmap ilmap_make_golden ilmap_support_tests ilmap_decode_tests ilmap_msf_tests
                 ilmap_names_tests ilmap_compiler_tests ilmap_symbols_tests ilmap_symbolicate_tests
                 ilmap_sentry_tests ilmap_serve_tests)
  start=$SECONDS
  # -Werror as CI builds; otherwise the build folder keeps the setting it was configured with
  # (changing it would recompile every file).
  werror=()
  if [[ "${CI:-}" == "true" ]]; then werror=(-DILMAP_WERROR=ON); fi
  cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release "${werror[@]}" >/dev/null
  cmake --build build/release -j"$jobs" --target "${quick_targets[@]}"
  printf '== quick build took %dm%02ds\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60))
  rc=0
  ctest --test-dir build/release --output-on-failure -j"$jobs" -L '^(unit|cli)$' || rc=1
  printf '== quick: all took %dm%02ds\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60))
  exit $rc
elif [[ $# -gt 0 ]]; then
  echo "usage: scripts/test.sh [--quick]" >&2
  exit 1
fi
# As root (CI), packages.deb may install and remove the Debian package system-wide
# (tests/packages/CMakeLists.txt).
if [[ $(id -u) -eq 0 ]]; then export ILMAP_SYSTEM_INSTALL_TESTS=1; fi
status=0
rm -f build/failures-release.txt build/failures-sanitize.txt
phase_start=$SECONDS
phase() {  # name: ends the phase before (printing its minutes) and starts this one
  if [[ -n ${phase_name:-} ]]; then
    printf '== %s took %dm%02ds\n' "$phase_name" $(((SECONDS - phase_start) / 60)) $(((SECONDS - phase_start) % 60))
  fi
  phase_name=$1; phase_start=$SECONDS
  [[ -n $1 ]] && echo "== $1"
  return 0
}
phase "install dependencies"
bash scripts/install-deps.sh --fuzz
# The Debian 11 sysroots of the released builds and tests/dist's chroot are fetched while the
# Release build compiles (debootstrap waits mostly on the network; several minutes in all);
# "build dist" waits for them. Their output: build/sysroots.log.
sysroots_pid=""
if [[ $(id -u) -eq 0 ]] && command -v debootstrap >/dev/null; then
  mkdir -p build
  ( rc=0
    bash scripts/sysroot-bullseye.sh --arch amd64 || rc=1
    if command -v aarch64-linux-gnu-gcc >/dev/null; then bash scripts/sysroot-bullseye.sh --arch arm64 || rc=1; fi
    bash scripts/sysroot-bullseye.sh --chroot || true  # tests/dist skips, saying why, without it
    exit $rc ) >build/sysroots.log 2>&1 &
  sysroots_pid=$!
fi
# The win-x64 build's libraries (zstd, libdeflate, libcurl, libzip from Debian's sources: about 4
# minutes, most of it libcurl's configure probes, one compile at a time) are built the same way,
# beside the Release build; "build windows" waits for them. Their output: build/windows-deps.log.
windeps_pid=""
if command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
  mkdir -p build
  ILMAP_JOBS=1 bash scripts/windows-deps.sh >build/windows-deps.log 2>&1 &
  windeps_pid=$!
fi
# Builds that run in the background at nice 19: they take only the CPU the foreground leaves
# idle (the link steps of the other builds, which run one at a time; the tests waiting on
# servers, Wine and dotnet), each waited for by its own phase. The sanitizer build starts at
# once, beside every Release build and the Release tests; the fuzz targets beside the
# sanitizer tests.
background_build() {  # NAME LOG COMMAND...: starts COMMAND; its pid in bg_pid
  local name=$1 log=$2; shift 2
  echo "== $name starts in the background (its output: $log)"
  mkdir -p "$(dirname "$log")"
  nice -n 19 "$@" >"$log" 2>&1 &
  bg_pid=$!
}
wait_build() {  # PID LOG: 0 when the build succeeded, else prints its log's tail
  if wait "$1"; then return 0; fi
  echo "== the build failed:"; tail -n 40 "$2"
  return 1
}
# report_failures CONFIG: the tests that failed in build/CONFIG's last ctest run, each with the
# last 25 lines of its output, written to build/failures-CONFIG.txt, which the end of the run
# prints again (a CI log is often read from its end).
report_failures() {
  local tmp="build/$1/Testing/Temporary" out="build/failures-$1.txt"
  [[ -f $tmp/LastTestsFailed.log ]] || return 0
  { echo "== $1: failed in the parallel run: $(cut -d: -f2 "$tmp/LastTestsFailed.log" | tr '\n' ' ')"
    cut -d: -f2 "$tmp/LastTestsFailed.log" | while read -r name; do
      echo "-- $name, the end of its output:"
      awk -v t="$name" '$0 ~ "Test: " t "$" { want = 1; next }
        want && /^Output:$/ { want = 0; on = 1; n = 0; getline; next }
        on && /^<end of output>$/ { on = 0; for (i = (n > 25 ? n - 25 : 0); i < n; i++) print "   " buf[i]; exit }
        on { buf[n++] = $0 }' "$tmp/LastTest.log"
    done; } >"$out"
  cat "$out"
}
background_build "build sanitize" build/sanitize-build.log bash scripts/build.sh sanitize
sanitize_pid=$bg_pid
fuzz_pid=""
for config in release sanitize; do
  phase "build $config"
  if [[ $config == sanitize && -n $sanitize_pid ]]; then
    wait_build "$sanitize_pid" build/sanitize-build.log || exit 1
  else
    bash scripts/build.sh "$config"
  fi
  if [[ $config == release ]]; then
    # The released builds, against a Debian 11 sysroot (glibc 2.31 floor): linux-x64 (dist), run in
    # a Debian 11 chroot by tests/dist, and linux-arm64, cross-compiled, run under qemu-user by
    # tests/arm64 (both in the Release tests). Each ends with the floor check
    # (scripts/check-glibc-floor.sh); a failure there fails the run. Making a sysroot needs root
    # and debootstrap; where it cannot be made, the build is skipped, and so are its tests.
    if [[ -z $sysroots_pid ]]; then
      echo "== build dist and arm64 skipped: a Debian 11 sysroot needs root and debootstrap"
    else
      phase "build dist"
      wait "$sysroots_pid" || { echo "== the sysroots could not all be made:"; tail -n 20 build/sysroots.log; }
      bash scripts/build.sh dist || status=1
      if command -v aarch64-linux-gnu-g++ >/dev/null && command -v qemu-aarch64-static >/dev/null; then
        phase "build arm64"
        bash scripts/build.sh arm64 || status=1
      else
        echo "== build arm64 skipped: the cross compiler or qemu-user-static is not installed"
      fi
    fi
    # win-x64 (mingw-w64, its own zstd and libdeflate from Debian's sources): run under Wine by
    # tests/windows in the Release tests.
    if [[ -n $windeps_pid ]]; then
      phase "build windows"
      if wait "$windeps_pid"; then
        bash scripts/build.sh windows || status=1
      else
        echo "== the win-x64 libraries could not be built:"; tail -n 20 build/windows-deps.log
        status=1
      fi
    else
      echo "== build windows skipped: mingw-w64 (g++-mingw-w64-x86-64-posix) is not installed"
    fi
  fi
  if [[ $config == sanitize && -x scripts/fuzz.sh ]]; then
    background_build "build fuzz" build/fuzz-build.log env ILMAP_FUZZ_BUILD_ONLY=1 bash scripts/fuzz.sh
    fuzz_pid=$bg_pid
  fi
  phase "test $config"
  exclude=()
  # Labels oracle and dotnet: answers compared with other programs' (System.Reflection.Metadata,
  # Mono.Cecil, the runtimes, the .NET SDK), which spend most of their time in those programs. The
  # Release run checks the answers; under the sanitizers the same code of ours runs in the
  # corpus, hostile, msf and unit tests.
  if [[ $config == sanitize ]]; then exclude=(-LE 'oracle|dotnet'); fi
  rm -f "build/$config/Testing/Temporary/LastTestsFailed.log"  # ctest leaves an old one after a pass
  if ! ctest --test-dir "build/$config" --output-on-failure -j"$jobs" --timeout 900 "${exclude[@]}"; then
    # A test that fails beside the background builds is run again alone, once: it passes only
    # if it passes then. Both runs' outputs are kept for the summary at the end of the log.
    report_failures "$config"
    failed_log="build/$config/Testing/Temporary/LastTestsFailed.log"
    failed_count=0
    if [[ -f $failed_log ]]; then failed_count=$(wc -l <"$failed_log"); fi
    if [[ $failed_count -eq 0 || $failed_count -gt 5 ]]; then
      # None listed (ctest itself failed), or more than a few: something is broken, not busy.
      # Not run again (it would only add time).
      echo "== test $config: $failed_count tests listed as failed; not run again" | tee -a "build/failures-$config.txt"
      status=1
    elif echo "== test $config: the failed tests, again, one at a time" &&
       ctest --test-dir "build/$config" --output-on-failure -j1 --timeout 900 --rerun-failed "${exclude[@]}"; then
      echo "== test $config: they passed alone (failed only beside the other work)" | tee -a "build/failures-$config.txt"
    else
      echo "== test $config: they failed alone too" | tee -a "build/failures-$config.txt"
      status=1
    fi
  fi
  if [[ $config == release ]]; then
    phase "instruction-count guard"
    # Counts, not timings: callgrind's totals are the same however busy the machine is.
    guard=0
    bash scripts/perf-guard.sh || guard=$?
    if [[ $guard -ne 0 && $guard -ne 77 ]]; then status=1; fi
  fi
done
if [[ -x scripts/fuzz.sh ]]; then
  phase "fuzz"
  # 20 s per target (two at a time) keeps the whole run inside the hour with the Windows build and
  # its Wine tests; scripts/fuzz.sh alone soaks longer (60 s each by default).
  if [[ -n $fuzz_pid ]] && ! wait_build "$fuzz_pid" build/fuzz-build.log; then
    status=1
  else
    ILMAP_FUZZ_SECONDS="${ILMAP_FUZZ_SECONDS:-20}" bash scripts/fuzz.sh || status=1
  fi
fi
phase ""
for f in build/failures-release.txt build/failures-sanitize.txt; do
  if [[ -f $f ]]; then cat "$f"; fi
done
echo "== all took $((SECONDS / 60))m$(printf %02d $((SECONDS % 60)))s"
exit $status
