# cmake/toolchain-linux-x64-glibc231.cmake - builds ilmap's released linux-x64 artefacts (the
# program, libilmap.so) so that they need glibc 2.31 or newer (Debian 11, Ubuntu 20.04 and every
# later release) instead of the build host's 2.36: Debian 12's GCC 12 with --sysroot naming a
# Debian 11 sysroot made by scripts/sysroot-bullseye.sh (default build/sysroot-bullseye-amd64;
# ILMAP_SYSROOT in the environment names another). scripts/check-glibc-floor.sh checks the result.
#
#   scripts/sysroot-bullseye.sh
#   cmake -S . -B build/glibc231 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-linux-x64-glibc231.cmake \
#         -DCMAKE_BUILD_TYPE=Release -DILMAP_BUILD_TESTS=OFF -DILMAP_BUILD_BENCH=OFF
#   cmake --build build/glibc231 --target ilmap ilmap_shared
#   scripts/check-glibc-floor.sh build/glibc231/tools/ilmap build/glibc231/reader/libilmap.so 2.31
#
# What each setting answers (issue 42 item 1):
#   - glibc 2.31's headers and libraries come from the sysroot; zstd, xxHash, libdeflate and
#     libcrypto are the sysroot's static archives (compiled against 2.31); GCC 12's libstdc++
#     headers and the header-only packages are the host's, copied into the sysroot by the script.
#   - the sysroot's library folders (and start files, -B) come first on the link line (-L): GCC's own folder holds
#     relative links into the host's /usr/lib, which would link the host's glibc.
#   - Debian 12's libstdc++.a is linked statically as before; it references __libc_single_threaded
#     (glibc 2.32) and arc4random (2.36), which cmake/glibc231-compat.c defines (hidden), linked
#     into every program and shared library as an object.
#   - its libgcc_eh.a references _dl_find_object (2.35): libgcc is linked shared (-shared-libgcc;
#     CMakeLists.txt leaves out -static-libgcc when ILMAP_SHARED_LIBGCC is set), so the unwinder
#     is the target's own libgcc_s.so.1, part of every base system.
#   - glibc 2.31 keeps pthread_* and dlopen in libpthread and libdl: -lpthread -ldl.
# The programs also run on the build host (its glibc is newer), so nothing here is a cross build
# and the tests could run as usual; they are not built by default in this configuration only
# because their test-only dependencies are not in the sysroot.
if(DEFINED ENV{ILMAP_SYSROOT})
  set(_ilmap_sysroot "$ENV{ILMAP_SYSROOT}")
else()
  set(_ilmap_sysroot "${CMAKE_CURRENT_LIST_DIR}/../build/sysroot-bullseye-amd64")
endif()
get_filename_component(_ilmap_sysroot "${_ilmap_sysroot}" ABSOLUTE)
if(NOT EXISTS "${_ilmap_sysroot}/.ilmap-sysroot")
  message(FATAL_ERROR "no Debian 11 sysroot at ${_ilmap_sysroot}: run scripts/sysroot-bullseye.sh first")
endif()
set(_ilmap_libdir "${_ilmap_sysroot}/usr/lib/x86_64-linux-gnu")

set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_SYSROOT "${_ilmap_sysroot}")
set(CMAKE_LIBRARY_ARCHITECTURE x86_64-linux-gnu)
set(ILMAP_SHARED_LIBGCC ON CACHE BOOL "Link libgcc shared (set by the glibc 2.31 toolchain)" FORCE)

# -B: the start files (Scrt1.o, crti.o, crtn.o) from the sysroot too; GCC's default folder for
# them is the host's, whose Scrt1.o calls __libc_start_main@GLIBC_2.34.
set(_ilmap_link "-B${_ilmap_libdir} -L${_ilmap_libdir} -shared-libgcc")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_ilmap_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_ilmap_link}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${_ilmap_link}")
# At the end of every link line, after the project's own libraries (-lpthread -ldl must follow
# the static archives that call into them).
set(CMAKE_C_STANDARD_LIBRARIES_INIT "${_ilmap_libdir}/ilmap-glibc231-compat.o -lpthread -ldl")
set(CMAKE_CXX_STANDARD_LIBRARIES_INIT "${_ilmap_libdir}/ilmap-glibc231-compat.o -lpthread -ldl")

# Libraries, headers and packages from the sysroot only; programs (flatc) from the host.
set(CMAKE_FIND_ROOT_PATH "${_ilmap_sysroot}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${_ilmap_sysroot}")
set(ENV{PKG_CONFIG_LIBDIR} "${_ilmap_libdir}/pkgconfig:${_ilmap_sysroot}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
