#!/usr/bin/env bash
# Build the win-x64 libraries ilmap needs that Debian ships no mingw-w64 package for, from
# Debian's own source packages, into build/windows-deps/ (once: a stamp names what was built).
# Usage: scripts/windows-deps.sh [DIR]   (default $ILMAP_WINDOWS_DEPS, else build/windows-deps;
#        scripts/build.sh windows runs it; the toolchain file reads the same variable)
#
# What goes where (DIR/include, DIR/lib; cmake/toolchain-windows-x64.cmake reads both):
#   zstd        Debian's `libzstd` source package, lib/ only, a static archive (make, mingw gcc)
#   libdeflate  Debian's `libdeflate` source package, a static archive (its Makefile)
#   libcurl     Debian's `curl` source package, a static archive (CMake): HTTP and HTTPS only,
#               TLS by Windows' Schannel, no other protocol, no zlib/brotli/IDN/SSH/HTTP2, so it
#               needs nothing but Windows' DLLs (ws2_32, crypt32, bcrypt, advapi32, winmm)
#   libzip      Debian's `libzip` source package over Debian's mingw zlib, a static archive
#               (CMake): no encryption, bzip2 or lzma (a NuGet package is deflate or stored)
#   xxHash, FlatBuffers' runtime, CLI11, nlohmann-json: header-only; the host's Debian headers
#               are copied (xxhash.h is used with XXH_INLINE_ALL, so no library is needed)
#   zlib        not built here: Debian's libz-mingw-w64-dev (scripts/install-deps.sh)
#   SHA-2       not built: Windows' own bcrypt.dll (support/Sha2.cpp)
# Sources come from the deb-src entry scripts/install-deps.sh adds for the same Debian mirror as
# the system's deb entries (apt-get source: no other download). Each library has its own stamp
# (DIR/stamps/NAME: its source version and the compiler's), so a new version of one rebuilds that
# one only; DIR/.stamp joins them all.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${ILMAP_WINDOWS_DEPS:-build/windows-deps}}"
mkdir -p "$out"
out=$(realpath "$out")
cc=x86_64-w64-mingw32-gcc-posix
command -v "$cc" >/dev/null || { echo "windows-deps: $cc not found: scripts/install-deps.sh installs g++-mingw-w64-x86-64-posix" >&2; exit 1; }

# The stamp names the source versions; a newer Debian source package rebuilds. Each library is
# built from the source of the -dev package the Linux build links (so both programs run the same
# library code: zstd's output is part of the cache bytes); without it installed, from the newest
# source apt knows of. (The newest known is not always the one to take: a security update's index
# may list a source the mirror does not serve.)
declare -A dev_pkg=([libzstd]=libzstd-dev [libdeflate]=libdeflate-dev [curl]=libcurl4-openssl-dev [libzip]=libzip-dev)
src_version() {
  local v
  v=$(dpkg-query -W -f '${source:Version}' "${dev_pkg[$1]}:$(dpkg --print-architecture)" 2>/dev/null || true)
  [[ -n $v ]] || v=$(apt-cache showsrc "$1" 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
  echo "$v"
}
libs=(libzstd libdeflate curl libzip)
declare -A ver
for l in "${libs[@]}"; do
  ver[$l]=$(src_version "$l")
  if [[ -z ${ver[$l]} ]]; then
    echo "windows-deps: apt-cache showsrc knows no $l source: add Debian's deb-src entry (scripts/install-deps.sh)" >&2
    exit 1
  fi
done
[[ -f /usr/x86_64-w64-mingw32/lib/libz.a ]] || { echo "windows-deps: no mingw zlib: scripts/install-deps.sh installs libz-mingw-w64-dev" >&2; exit 1; }
zlib_ver=$(dpkg-query -W -f '${Version}' libz-mingw-w64-dev)
gcc_ver=$($cc -dumpfullversion)
declare -A line=([libzstd]="zstd ${ver[libzstd]}" [libdeflate]="libdeflate ${ver[libdeflate]}"
  [curl]="curl ${ver[curl]}" [libzip]="libzip ${ver[libzip]} (zlib $zlib_ver)")
stamp=$(for l in "${libs[@]}"; do printf '%s, ' "${line[$l]}"; done; echo "$gcc_ver")
if [[ -f $out/.stamp && $(cat "$out/.stamp") == "$stamp" ]]; then
  echo "windows-deps: up to date in $out ($stamp)"
  exit 0
fi
start=$SECONDS
mkdir -p "$out/include" "$out/lib" "$out/stamps"
todo=()
for l in "${libs[@]}"; do
  [[ -f $out/stamps/$l && $(cat "$out/stamps/$l") == "${line[$l]}, $gcc_ver" ]] || todo+=("$l")
done
rm -rf "$out/src"
mkdir -p "$out/src"
if [[ ${#todo[@]} -gt 0 ]]; then
  wanted=()
  for l in "${todo[@]}"; do wanted+=("$l=${ver[$l]}"); done
  (cd "$out/src" && apt-get source -qq --download-only "${wanted[@]}" 2>&1 | grep -v 'unsandboxed as root' >&2 || true)
  for l in "${todo[@]}"; do
    [[ -f $out/src/${l}_${ver[$l]#*:}.dsc ]] || {
      echo "windows-deps: could not fetch the source of $l ${ver[$l]} (apt-get source $l=${ver[$l]}; see above)" >&2
      exit 1
    }
  done
  (cd "$out/src" && for dsc in *.dsc; do
      # apt-get source checked the files against the mirror's signed index; dpkg-source's own
      # check wants the uploader's key, which is not installed: its warning is noise here.
      dpkg-source -x "$dsc" >dpkg-source.log 2>&1 || { cat dpkg-source.log >&2; exit 1; }
    done)
fi
jobs=${ILMAP_JOBS:-2}
wants() { [[ " ${todo[*]} " == *" $1 "* ]]; }
srcdir() { find "$out/src" -maxdepth 1 -type d -name "$1-*" | head -n 1; }
# A CMake project cross-compiled with the same compilers as ilmap (no toolchain file of ours: it
# would look for these very libraries), installed into DIR.
cmake_cross() {
  local src=$1 bld=$2; shift 2
  cmake -S "$src" -B "$bld" -G "Unix Makefiles" -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_SYSTEM_PROCESSOR=x86_64 \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_RC_COMPILER=x86_64-w64-mingw32-windres \
    -DCMAKE_FIND_ROOT_PATH=/usr/x86_64-w64-mingw32 -DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=NEVER \
    -DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY -DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$out" -DBUILD_SHARED_LIBS=OFF "$@" >"$bld.log" 2>&1 ||
    { tail -n 30 "$bld.log" >&2; exit 1; }
  cmake --build "$bld" -j"$jobs" >>"$bld.log" 2>&1 || { tail -n 30 "$bld.log" >&2; exit 1; }
  cmake --install "$bld" >>"$bld.log" 2>&1 || { tail -n 30 "$bld.log" >&2; exit 1; }
}
done_lib() { echo "${line[$1]}, $gcc_ver" >"$out/stamps/$1"; echo "windows-deps: built ${line[$1]} ($((SECONDS - start)) s so far)"; }

# zstd: the library's Makefile builds the static archive (multithreaded, as Debian's).
if wants libzstd; then
  zsrc=$(srcdir libzstd)
  make -s -C "$zsrc/lib" CC="$cc" AR=x86_64-w64-mingw32-ar ZSTD_LEGACY_SUPPORT=0 \
    CFLAGS="-O2" libzstd.a-mt -j"$jobs" >/dev/null
  cp "$zsrc/lib/libzstd.a" "$out/lib/"
  cp "$zsrc/lib/zstd.h" "$zsrc/lib/zstd_errors.h" "$zsrc/lib/zdict.h" "$out/include/"
  done_lib libzstd
fi

# libdeflate (1.14: a Makefile; for a mingw compiler its static library is libdeflatestatic.lib,
# an ar archive like any other).
if wants libdeflate; then
  dsrc=$(srcdir libdeflate)
  make -s -C "$dsrc" CC="$cc" AR=x86_64-w64-mingw32-ar CFLAGS="-O2" libdeflatestatic.lib -j"$jobs" >/dev/null
  cp "$dsrc/libdeflatestatic.lib" "$out/lib/libdeflate.a"
  cp "$dsrc/libdeflate.h" "$out/include/"
  done_lib libdeflate
fi

# libcurl: HTTP_ONLY turns every other protocol off; Schannel is Windows' TLS (the system's
# certificate store, no OpenSSL); every optional library off, so configure probes little.
if wants curl; then
  rm -rf "$out/include/curl" "$out/lib/libcurl.a"
  cmake_cross "$(srcdir curl)" "$out/src/curl-build" -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF \
    -DHTTP_ONLY=ON -DCURL_USE_SCHANNEL=ON -DCURL_USE_OPENSSL=OFF -DCURL_ZLIB=OFF -DCURL_BROTLI=OFF \
    -DCURL_ZSTD=OFF -DUSE_NGHTTP2=OFF -DUSE_LIBIDN2=OFF -DUSE_WIN32_IDN=OFF -DCURL_USE_LIBSSH2=OFF \
    -DCURL_USE_LIBSSH=OFF -DCURL_USE_GSSAPI=OFF -DENABLE_UNIX_SOCKETS=OFF -DCURL_DISABLE_LDAP=ON \
    -DCURL_DISABLE_COOKIES=ON -DCURL_DISABLE_ALTSVC=ON -DCURL_DISABLE_HSTS=ON -DCURL_DISABLE_NTLM=ON \
    -DCURL_DISABLE_DOH=ON -DCURL_DISABLE_MQTT=ON -DCURL_DISABLE_NETRC=ON -DENABLE_MANUAL=OFF \
    -DCURL_CA_PATH=none -DCURL_CA_BUNDLE=none -DPICKY_COMPILER=OFF
  done_lib curl
fi

# libzip over Debian's mingw zlib (its static libz.a: find_package(ZLIB) prefers it by name).
if wants libzip; then
  rm -f "$out/include/zip.h" "$out/include/zipconf.h" "$out/lib/libzip.a"
  cmake_cross "$(srcdir libzip)" "$out/src/libzip-build" -DZLIB_LIBRARY=/usr/x86_64-w64-mingw32/lib/libz.a \
    -DENABLE_COMMONCRYPTO=OFF -DENABLE_GNUTLS=OFF -DENABLE_MBEDTLS=OFF -DENABLE_OPENSSL=OFF \
    -DENABLE_WINDOWS_CRYPTO=OFF -DENABLE_BZIP2=OFF -DENABLE_LZMA=OFF -DBUILD_TOOLS=OFF \
    -DBUILD_REGRESS=OFF -DBUILD_EXAMPLES=OFF -DBUILD_DOC=OFF
  done_lib libzip
fi

# Header-only libraries: the host's Debian headers, copied so that the Windows build's include
# path holds nothing of the host's glibc.
cp -r /usr/include/flatbuffers /usr/include/CLI /usr/include/nlohmann "$out/include/"
cp /usr/include/xxhash.h "$out/include/"

rm -rf "$out/src" "$out/lib/pkgconfig" "$out/lib/cmake" "$out/bin" "$out/share"
echo "$stamp" >"$out/.stamp"
echo "windows-deps: built $stamp into $out in $((SECONDS - start)) s"
