# cmake/glibc231-toolchain.cmake - the body of cmake/toolchain-linux-x64-glibc231.cmake and
# cmake/toolchain-linux-arm64-glibc231.cmake (each sets _ilmap_floor_arch and includes this):
# builds ilmap's released Linux artefacts (the program, libilmap.so, libilmap.a) so that they
# need glibc 2.31 or newer (Debian 11, Ubuntu 20.04 and every later release, RHEL 9, Amazon Linux
# 2023) instead of the build host's 2.36. Debian 12's GCC 12 (native or aarch64-linux-gnu) with
# --sysroot naming a Debian 11 sysroot made by scripts/sysroot-bullseye.sh (default
# build/sysroot-bullseye-<arch>; ILMAP_SYSROOT in the environment names another).
# scripts/build.sh dist and arm64 use them; scripts/check-glibc-floor.sh checks the result.
#
# What each setting answers:
#   - glibc 2.31's headers and libraries come from the sysroot; xxHash, libdeflate and libcrypto
#     are the sysroot's static archives (compiled against 2.31), zstd is Debian 12's (the same
#     cache bytes as the tested build: scripts/sysroot-bullseye.sh says why); GCC 12's libstdc++
#     headers and the header-only packages are the host's (copied into the sysroot by the script
#     where GCC looks for them there).
#   - the sysroot's library folders (and its start files, -B) come first on the link line: GCC's
#     own folders hold links into the host's glibc, and the host's Scrt1.o calls
#     __libc_start_main@GLIBC_2.34.
#   - the cross compiler searches its own target folder (/usr/aarch64-linux-gnu/include, glibc
#     2.36's headers for arm64) before the sysroot's: -nostdinc and the compiler's own list
#     without that folder, in the same order.
#   - Debian 12's libstdc++.a is linked statically as before; it references
#     __libc_single_threaded (glibc 2.32) and arc4random (2.36), and its headers
#     pthread_cond_clockwait (2.30), which cmake/glibc231-compat.c defines (hidden), linked into
#     every program and shared library as an object; the binaries then need glibc 2.28 (RHEL 8).
#   - its libgcc_eh.a references _dl_find_object (2.35): libgcc is linked shared (-shared-libgcc;
#     CMakeLists.txt leaves out -static-libgcc when ILMAP_SHARED_LIBGCC is set), so the unwinder is
#     the target's own libgcc_s.so.1, part of every base system.
#   - glibc 2.31 keeps pthread_* and dlopen in libpthread and libdl: -lpthread -ldl.
if(_ilmap_floor_arch STREQUAL "amd64")
  set(_ilmap_triple x86_64-linux-gnu)
  set(CMAKE_C_COMPILER gcc)
  set(CMAKE_CXX_COMPILER g++)
else()
  set(_ilmap_triple aarch64-linux-gnu)
  set(CMAKE_SYSTEM_NAME Linux)
  set(CMAKE_SYSTEM_PROCESSOR aarch64)
  set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
  set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
endif()
if(DEFINED ENV{ILMAP_SYSROOT})
  set(_ilmap_sysroot "$ENV{ILMAP_SYSROOT}")
else()
  set(_ilmap_sysroot "${CMAKE_CURRENT_LIST_DIR}/../build/sysroot-bullseye-${_ilmap_floor_arch}")
endif()
get_filename_component(_ilmap_sysroot "${_ilmap_sysroot}" ABSOLUTE)
if(NOT EXISTS "${_ilmap_sysroot}/.ilmap-sysroot")
  message(FATAL_ERROR "no Debian 11 sysroot at ${_ilmap_sysroot}: run scripts/sysroot-bullseye.sh --arch ${_ilmap_floor_arch}")
endif()
set(_ilmap_libdir "${_ilmap_sysroot}/usr/lib/${_ilmap_triple}")

set(CMAKE_SYSROOT "${_ilmap_sysroot}")
set(CMAKE_LIBRARY_ARCHITECTURE ${_ilmap_triple})
set(ILMAP_SHARED_LIBGCC ON CACHE BOOL "Link libgcc shared (set by the glibc 2.31 toolchain)" FORCE)
# The newest glibc symbol version the binaries may need (scripts/build.sh checks it): 2.28, below
# the sysroot's 2.31, since the compat object stands in for the few newer symbols libstdc++ uses.
set(ILMAP_GLIBC_FLOOR 2.28 CACHE STRING "The newest glibc symbol version the binaries may need" FORCE)
# For tests/dist and tests/arm64, which compile the C API test program as this build links and
# run the programs on this sysroot's glibc.
set(ILMAP_SYSROOT "${_ilmap_sysroot}" CACHE PATH "The Debian 11 sysroot of this build" FORCE)

# The compiler's include folders (as `-E -v` lists them, with the sysroot), less its own target
# folder outside the sysroot, passed back in order after -nostdinc. Nothing changes for the
# native compiler, whose list is all under the sysroot or GCC's own folders.
function(_ilmap_include_flags compiler lang out)
  execute_process(COMMAND ${compiler} --sysroot=${_ilmap_sysroot} -x ${lang} -E -v -
                  INPUT_FILE /dev/null OUTPUT_QUIET ERROR_VARIABLE _err RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${compiler} -E -v failed: ${_err}")
  endif()
  string(REGEX REPLACE ".*#include <...> search starts here:\n(.*)End of search list.*" "\\1" _list "${_err}")
  string(REPLACE "\n" ";" _list "${_list}")
  set(_flags "-nostdinc")
  foreach(_dir IN LISTS _list)
    string(STRIP "${_dir}" _dir)
    if(_dir STREQUAL "")
      continue()
    endif()
    get_filename_component(_dir "${_dir}" REALPATH)
    if(_dir STREQUAL "/usr/${_ilmap_triple}/include")
      continue()
    endif()
    string(APPEND _flags " -isystem ${_dir}")
  endforeach()
  set(${out} "${_flags}" PARENT_SCOPE)
endfunction()
if(_ilmap_floor_arch STREQUAL "arm64")
  _ilmap_include_flags(${CMAKE_C_COMPILER} c _c_inc)
  _ilmap_include_flags(${CMAKE_CXX_COMPILER} c++ _cxx_inc)
  set(CMAKE_C_FLAGS_INIT "${_c_inc}")
  set(CMAKE_CXX_FLAGS_INIT "${_cxx_inc}")
endif()

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

# arm64 programs run here under qemu-user with the sysroot's glibc 2.31 as their system.
if(_ilmap_floor_arch STREQUAL "arm64")
  find_program(ILMAP_QEMU_AARCH64 qemu-aarch64-static)
  if(ILMAP_QEMU_AARCH64)
    set(CMAKE_CROSSCOMPILING_EMULATOR "${ILMAP_QEMU_AARCH64};-L;${_ilmap_sysroot}")
  endif()
endif()
