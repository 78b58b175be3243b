# cmake/toolchain-windows-x64.cmake - ilmap for win-x64, cross-compiled with Debian's mingw-w64
# (GCC 12, POSIX threads: g++-mingw-w64-x86-64-posix): scripts/build.sh windows, tested under Wine
# by tests/windows from the Release build.
#
# What each setting answers:
#   - the libraries Debian has no mingw package for (zstd, libdeflate) and the header-only ones
#     are in ILMAP_WINDOWS_DEPS (default build/windows-deps, made by scripts/windows-deps.sh);
#     CMakeLists.txt makes the same imported targets of them as pkg-config does on Linux
#     (cmake/windows-deps.cmake).
#   - one self-contained ilmap.exe: libstdc++, libgcc and winpthread linked statically, so the
#     program needs only Windows' own DLLs (kernel32, msvcrt, bcrypt, shell32).
#   - programs (flatc) run from the host; libraries and headers from the mingw sysroot only.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
if(DEFINED ENV{ILMAP_WINDOWS_DEPS})
  set(ILMAP_WINDOWS_DEPS "$ENV{ILMAP_WINDOWS_DEPS}" CACHE PATH "scripts/windows-deps.sh's output")
else()
  set(ILMAP_WINDOWS_DEPS "${CMAKE_CURRENT_LIST_DIR}/../build/windows-deps" CACHE PATH "scripts/windows-deps.sh's output")
endif()
get_filename_component(ILMAP_WINDOWS_DEPS "${ILMAP_WINDOWS_DEPS}" ABSOLUTE)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 "${ILMAP_WINDOWS_DEPS}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Static runtime: no libstdc++-6.dll, libgcc_s_seh-1.dll or libwinpthread-1.dll beside ilmap.exe.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
