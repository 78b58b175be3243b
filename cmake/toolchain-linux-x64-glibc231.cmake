# cmake/toolchain-linux-x64-glibc231.cmake - ilmap's released linux-x64 build, needing glibc 2.31
# or newer: scripts/build.sh dist (after scripts/sysroot-bullseye.sh --arch amd64).
# What it does and why: cmake/glibc231-toolchain.cmake.
set(_ilmap_floor_arch amd64)
include("${CMAKE_CURRENT_LIST_DIR}/glibc231-toolchain.cmake")
