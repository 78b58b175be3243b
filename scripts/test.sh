#!/usr/bin/env bash
# The whole test suite: install dependencies, build Release and the ASan+UBSan configuration,
# run every ctest test in both (tests needing dotnet or ../shared skip where those are absent),
# the instruction-count guard on the Release build (scripts/perf-guard.sh), then the fuzz targets for a fixed time when clang's libFuzzer is available.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --fuzz
jobs="${ILMAP_JOBS:-2}"
# As root (CI), packages.deb may install and remove the Debian package system-wide
# (tests/packages/CMakeLists.txt).
if [[ $(id -u) -eq 0 ]]; then export ILMAP_SYSTEM_INSTALL_TESTS=1; fi
status=0
for config in release sanitize; do
  echo "== build $config"
  bash scripts/build.sh "$config"
  echo "== test $config"
  if ! ctest --test-dir "build/$config" --output-on-failure -j"$jobs" --timeout 900; then
    status=1
  fi
  if [[ $config == release ]]; then
    echo "== instruction-count guard"
    # Counts, not timings: callgrind's totals are the same however busy the machine is.
    guard=0
    bash scripts/perf-guard.sh || guard=$?
    if [[ $guard -ne 0 && $guard -ne 77 ]]; then status=1; fi
  fi
done
if [[ -x scripts/fuzz.sh ]]; then
  echo "== fuzz"
  # 30 s per target keeps the whole run well inside CI's budget; scripts/fuzz.sh alone soaks longer.
  ILMAP_FUZZ_SECONDS="${ILMAP_FUZZ_SECONDS:-30}" bash scripts/fuzz.sh || status=1
fi
exit $status
