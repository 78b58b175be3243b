#!/usr/bin/env bash
# Build the win-x64 libraries ilmap needs that Debian ships no mingw-w64 package for, from
# Debian's own source packages, into build/windows-deps/ (once: a stamp names what was built).
# Usage: scripts/windows-deps.sh [DIR]   (default $ILMAP_WINDOWS_DEPS, else build/windows-deps;
#        scripts/build.sh windows runs it; the toolchain file reads the same variable)
#
# What goes where (DIR/include, DIR/lib; cmake/toolchain-windows-x64.cmake reads both):
#   zstd        Debian's `libzstd` source package, lib/ only, a static archive (make, mingw gcc)
#   libdeflate  Debian's `libdeflate` source package, a static archive (its Makefile)
#   xxHash, FlatBuffers' runtime, CLI11, nlohmann-json: header-only; the host's Debian headers
#               are copied (xxhash.h is used with XXH_INLINE_ALL, so no library is needed)
#   libcurl, libzip: their headers only (loaded at run time, like on Linux)
#   zlib        not built here: Debian's libz-mingw-w64-dev (scripts/install-deps.sh)
#   SHA-2       not built: Windows' own bcrypt.dll (support/Sha2.cpp)
# Sources come from the deb-src entry scripts/install-deps.sh adds for the same Debian mirror as
# the system's deb entries (apt-get source: no other download).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-${ILMAP_WINDOWS_DEPS:-build/windows-deps}}"
mkdir -p "$out"
out=$(realpath "$out")
cc=x86_64-w64-mingw32-gcc-posix
command -v "$cc" >/dev/null || { echo "windows-deps: $cc not found: scripts/install-deps.sh installs g++-mingw-w64-x86-64-posix" >&2; exit 1; }

# The stamp names the source versions; a newer Debian source package rebuilds.
zstd_ver=$(apt-cache showsrc libzstd 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
deflate_ver=$(apt-cache showsrc libdeflate 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
if [[ -z $zstd_ver || -z $deflate_ver ]]; then
  echo "windows-deps: apt-cache showsrc knows no libzstd/libdeflate source: add Debian's deb-src entry (scripts/install-deps.sh)" >&2
  exit 1
fi
stamp="zstd $zstd_ver, libdeflate $deflate_ver, $($cc -dumpfullversion)"
if [[ -f $out/.stamp && $(cat "$out/.stamp") == "$stamp" ]]; then
  echo "windows-deps: up to date in $out ($stamp)"
  exit 0
fi
start=$SECONDS
rm -rf "$out/src" "$out/include" "$out/lib"
mkdir -p "$out/src" "$out/include" "$out/lib"
(cd "$out/src" && apt-get source -qq --download-only libzstd libdeflate 2>&1 | grep -v 'unsandboxed as root' >&2 || true; \
  ls *.dsc >/dev/null && \
  for dsc in *.dsc; do
    # apt-get source checked the files against the mirror's signed index; dpkg-source's own
    # check wants the uploader's key, which is not installed: its warning is noise here.
    dpkg-source -x "$dsc" >dpkg-source.log 2>&1 || { cat dpkg-source.log >&2; exit 1; }
  done)

# zstd: the library's Makefile builds the static archive (multithreaded, as Debian's).
zsrc=$(find "$out/src" -maxdepth 1 -type d -name 'libzstd-*' | head -n 1)
make -s -C "$zsrc/lib" CC="$cc" AR=x86_64-w64-mingw32-ar ZSTD_LEGACY_SUPPORT=0 \
  CFLAGS="-O2" libzstd.a-mt -j"${ILMAP_JOBS:-2}" >/dev/null
cp "$zsrc/lib/libzstd.a" "$out/lib/"
cp "$zsrc/lib/zstd.h" "$zsrc/lib/zstd_errors.h" "$zsrc/lib/zdict.h" "$out/include/"

# libdeflate (1.14: a Makefile; for a mingw compiler its static library is libdeflatestatic.lib,
# an ar archive like any other).
dsrc=$(find "$out/src" -maxdepth 1 -type d -name 'libdeflate-*' | head -n 1)
make -s -C "$dsrc" CC="$cc" AR=x86_64-w64-mingw32-ar CFLAGS="-O2" libdeflatestatic.lib -j"${ILMAP_JOBS:-2}" >/dev/null
cp "$dsrc/libdeflatestatic.lib" "$out/lib/libdeflate.a"
cp "$dsrc/libdeflate.h" "$out/include/"

# Header-only libraries: the host's Debian headers, copied so that the Windows build's include
# path holds nothing of the host's glibc.
cp -r /usr/include/flatbuffers /usr/include/CLI /usr/include/nlohmann "$out/include/"
cp /usr/include/xxhash.h "$out/include/"
# libcurl's and libzip's headers (symbols/ loads the libraries at run time, on Windows too).
cp -r "/usr/include/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/curl" "$out/include/"
cp /usr/include/zip.h /usr/include/zipconf.h "$out/include/"

rm -rf "$out/src"
echo "$stamp" >"$out/.stamp"
echo "windows-deps: built $stamp into $out in $((SECONDS - start)) s"
