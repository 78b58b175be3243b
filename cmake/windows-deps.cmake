# cmake/windows-deps.cmake - the win-x64 build's dependencies (cmake/toolchain-windows-x64.cmake),
# as the same imported targets the Linux build gets from pkg-config and Debian's CMake packages,
# so that no layer's CMakeLists.txt knows which platform it builds for:
#   PkgConfig::ZSTD, PkgConfig::DEFLATE   static archives of scripts/windows-deps.sh
#   PkgConfig::XXHASH                     header-only (XXH_INLINE_ALL): no library to build
#   flatbuffers::flatbuffers, CLI11::CLI11, nlohmann_json::nlohmann_json   header-only
#   OpenSSL::Crypto                       Windows' bcrypt.dll (SHA-2 in support/Sha2.cpp)
#   PkgConfig::CURL, PkgConfig::LIBZIP    static archives of scripts/windows-deps.sh, linked (on
#                                         Linux both are loaded at run time); symbols/ links
#                                         them because they are static libraries here
set(_deps "${ILMAP_WINDOWS_DEPS}")
if(NOT EXISTS "${_deps}/lib/libzstd.a" OR NOT EXISTS "${_deps}/lib/libdeflate.a"
   OR NOT EXISTS "${_deps}/lib/libcurl.a" OR NOT EXISTS "${_deps}/lib/libzip.a")
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
# libcurl (HTTP/HTTPS with Schannel: Windows' sockets, certificate store and TLS) and libzip
# (over Debian's mingw zlib). The *_LINKED definitions make symbols/ take their functions from
# the archives instead of loading a DLL that Windows does not have.
_ilmap_windows_dep(PkgConfig::CURL LIB libcurl.a DEFS "CURL_STATICLIB;ILMAP_CURL_LINKED"
                   LINK "ws2_32;crypt32;bcrypt;advapi32;winmm")
_ilmap_windows_dep(PkgConfig::LIBZIP LIB libzip.a DEFS "ZIP_STATIC;ILMAP_LIBZIP_LINKED"
                   LINK "/usr/x86_64-w64-mingw32/lib/libz.a;advapi32")
# Other pkg-config modules (libmicrohttpd: serve/, not built for Windows yet): headers only, as
# before; CURL and LIBZIP exist already.
function(ilmap_require_pkgconfig var module debian_pkg)
  if(NOT TARGET PkgConfig::${var})
    add_library(PkgConfig::${var} INTERFACE IMPORTED GLOBAL)
    set_target_properties(PkgConfig::${var} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${ILMAP_WINDOWS_DEPS}/include")
  endif()
endfunction()
