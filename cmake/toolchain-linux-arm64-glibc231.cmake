# cmake/toolchain-linux-arm64-glibc231.cmake - ilmap's released linux-arm64 build, needing glibc 2.31
# or newer: scripts/build.sh arm64 (after scripts/sysroot-bullseye.sh --arch arm64).
# What it does and why: cmake/glibc231-toolchain.cmake.
set(_ilmap_floor_arch arm64)
include("${CMAKE_CURRENT_LIST_DIR}/glibc231-toolchain.cmake")
