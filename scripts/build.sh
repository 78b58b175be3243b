#!/usr/bin/env bash
# Configure and build one configuration of ilmap.
# Usage: scripts/build.sh [release|debug|sanitize|dist|arm64|windows]   (build dir: build/<config>)
#   release, debug, sanitize   against this machine's libraries, with the tests (Debian 12 here)
#   dist    the released linux-x64 program and libraries, built against glibc 2.31 and needing
#           2.28 or newer (ILMAP_GLIBC_FLOOR, checked at the end)
#           (cmake/toolchain-linux-x64-glibc231.cmake), Release, without tests and benchmarks;
#           scripts/package.sh packages it, tests/dist runs it in a Debian 11 chroot
#   arm64   the same for linux-arm64, cross-compiled (cmake/toolchain-linux-arm64-glibc231.cmake);
#           tests/arm64 (in the Release build's ctest) runs it under qemu-user against the x64 build
#   windows the win-x64 ilmap.exe, cross-compiled with mingw-w64 (cmake/toolchain-windows-x64.cmake)
#           after scripts/windows-deps.sh (zstd, libdeflate, libcurl, libzip from Debian's sources: once);
#           tests/windows (in the Release build's ctest) runs it under Wine against the Linux build
# dist and arm64 first make their Debian 11 sysroot (scripts/sysroot-bullseye.sh: once, about a
# minute; needs root and debootstrap) and end with scripts/check-glibc-floor.sh on what they built.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-release}"
jobs="${ILMAP_JOBS:-2}"
case "$config" in
  release)  args=(-DCMAKE_BUILD_TYPE=Release) ;;
  debug)    args=(-DCMAKE_BUILD_TYPE=Debug) ;;
  sanitize) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DILMAP_SANITIZE=ON -DILMAP_BUILD_BENCH=OFF) ;;
  dist|arm64)
    arch=amd64 name=x64
    if [[ $config == arm64 ]]; then arch=arm64 name=arm64; fi
    bash scripts/sysroot-bullseye.sh --arch "$arch" >/dev/null
    # With ccache's CCACHE_BASEDIR, CMake's compiler checks (whose output names the sysroot's
    # include folders) could be answered from another checkout's sysroot; absolute paths here.
    unset CCACHE_BASEDIR
    args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-linux-$name-glibc231.cmake"
          -DILMAP_BUILD_TESTS=OFF -DILMAP_BUILD_BENCH=OFF) ;;
  windows)
    bash scripts/windows-deps.sh
    args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchain-windows-x64.cmake"
          -DILMAP_BUILD_TESTS=OFF -DILMAP_BUILD_BENCH=OFF) ;;
  *) echo "usage: scripts/build.sh [release|debug|sanitize|dist|arm64|windows]" >&2; exit 1 ;;
esac
werror=OFF
if [[ "${CI:-}" == "true" ]]; then werror=ON; fi
cmake -S . -B "build/$config" -DILMAP_WERROR="$werror" "${args[@]}" >/dev/null
cmake --build "build/$config" -j"$jobs"
if [[ $config == dist || $config == arm64 ]]; then
  floor=$(sed -n 's/^ILMAP_GLIBC_FLOOR:[A-Z]*=//p' "build/$config/CMakeCache.txt")
  bash scripts/check-glibc-floor.sh "build/$config/tools/ilmap" "build/$config/capi/libilmap.so.1" "$floor"
fi
