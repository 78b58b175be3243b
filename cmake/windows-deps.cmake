# cmake/windows-deps.cmake - the win-x64 build's dependencies (cmake/toolchain-windows-x64.cmake),
# as the same imported targets the Linux build gets from pkg-config and Debian's CMake packages,
# so that no layer's CMakeLists.txt knows which platform it builds for:
#   PkgConfig::ZSTD, PkgConfig::DEFLATE   static archives of scripts/windows-deps.sh
#   PkgConfig::XXHASH                     header-only (XXH_INLINE_ALL): no library to build
#   flatbuffers::flatbuffers, CLI11::CLI11, nlohmann_json::nlohmann_json   header-only
#   OpenSSL::Crypto                       Windows' bcrypt.dll (SHA-2 in support/Sha2.cpp)
set(_deps "${ILMAP_WINDOWS_DEPS}")
if(NOT EXISTS "${_deps}/lib/libzstd.a" OR NOT EXISTS "${_deps}/lib/libdeflate.a")
  message(FATAL_ERROR "no win-x64 libraries in ${_deps}: run scripts/windows-deps.sh")
endif()
find_program(FLATC flatc)
if(NOT FLATC)
  message(FATAL_ERROR "flatc not found: install the Debian package 'flatbuffers-compiler' (scripts/install-deps.sh)")
endif()
function(_ilmap_windows_dep target)
  cmake_parse_arguments(A "" "LIB" "DEFS;LINK" ${ARGN})
  if(A_LIB)
    add_library(${target} STATIC IMPORTED GLOBAL)
    set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${_deps}/lib/${A_LIB}")
  else()
    add_library(${target} INTERFACE IMPORTED GLOBAL)
  endif()
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_deps}/include"
                        INTERFACE_COMPILE_DEFINITIONS "${A_DEFS}" INTERFACE_LINK_LIBRARIES "${A_LINK}")
endfunction()
_ilmap_windows_dep(PkgConfig::ZSTD LIB libzstd.a)
_ilmap_windows_dep(PkgConfig::DEFLATE LIB libdeflate.a)
_ilmap_windows_dep(PkgConfig::XXHASH DEFS XXH_INLINE_ALL)
_ilmap_windows_dep(flatbuffers::flatbuffers)
_ilmap_windows_dep(CLI11::CLI11)
_ilmap_windows_dep(nlohmann_json::nlohmann_json)
_ilmap_windows_dep(OpenSSL::Crypto LINK bcrypt)
set(CMAKE_THREAD_PREFER_PTHREAD ON)
find_package(Threads REQUIRED)
# libcurl and libzip: their headers only, as on Linux (symbols/ loads both at run time through
# support/SharedLibrary.h; a Windows system without them says so when a command needs them).
function(ilmap_require_pkgconfig var module debian_pkg)
  add_library(PkgConfig::${var} INTERFACE IMPORTED GLOBAL)
  set_target_properties(PkgConfig::${var} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${ILMAP_WINDOWS_DEPS}/include")
endfunction()
