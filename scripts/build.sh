#!/usr/bin/env bash
# Configure and build one configuration of ilmap.
# Usage: scripts/build.sh [release|debug|sanitize|arm64]   (build dir: build/<config>)
# arm64: the program and libilmap.so for linux-arm64, cross-compiled (cmake/toolchain-linux-arm64.cmake;
# scripts/install-deps.sh installs the toolchain), Release, without tests and benchmarks: tests/arm64
# (in the Release build's ctest) runs them under qemu-user against the x64 build.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-release}"
jobs="${ILMAP_JOBS:-2}"
case "$config" in
  release)  args=(-DCMAKE_BUILD_TYPE=Release) ;;
  debug)    args=(-DCMAKE_BUILD_TYPE=Debug) ;;
  sanitize) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DILMAP_SANITIZE=ON -DILMAP_BUILD_BENCH=OFF) ;;
  arm64)    args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-linux-arm64.cmake"
                  -DILMAP_BUILD_TESTS=OFF -DILMAP_BUILD_BENCH=OFF) ;;
  *) echo "usage: scripts/build.sh [release|debug|sanitize|arm64]" >&2; exit 1 ;;
esac
werror=OFF
if [[ "${CI:-}" == "true" ]]; then werror=ON; fi
cmake -S . -B "build/$config" -DILMAP_WERROR="$werror" "${args[@]}" >/dev/null
targets=()
if [[ $config == arm64 ]]; then targets=(--target ilmap ilmap_shared); fi  # what tests/arm64 runs
cmake --build "build/$config" -j"$jobs" "${targets[@]}"
