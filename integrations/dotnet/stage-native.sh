#!/usr/bin/env bash
# stage-native.sh DIR BUILD [ARM64_BUILD [WINDOWS_BUILD]] - lays out the native files of the NuGet
# packages as their projects take them (-p:IlmapNativeDir=DIR): DIR/ilmap and DIR/libilmap.so from
# the CMake build BUILD (linux-x64), DIR/linux-arm64/ilmap and DIR/linux-arm64/libilmap.so from
# ARM64_BUILD (scripts/build.sh arm64) when it is given, DIR/win-x64/ilmap.exe and
# DIR/win-x64/ilmap.dll from WINDOWS_BUILD (scripts/build.sh windows) when it is given (an empty
# ARM64_BUILD leaves arm64 out). scripts/package.sh and the package tests both use it, so the
# tests pack what is released.
#
# Each libilmap.so is stripped (the Ilmap package copies it into every app that references it, a
# portable app gets every RID's), and its debug information kept apart beside it as
# libilmap.so.debug, which the stripped file names (.gnu_debuglink; the build id, when the link
# wrote one, is the same in both). Ilmap.csproj packs the .debug files into the symbol package
# only. The ilmap programs stay as built: they are build tools, never copied into an app. The
# win-x64 files stay as built too (mingw-w64's strip stamps a new time into the PE header).
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 4 ]; then
    echo "usage: $0 DIR BUILD [ARM64_BUILD [WINDOWS_BUILD]]" >&2
    exit 1
fi
dir=$1
build=$2
arm64=${3:-}
windows=${4:-}

# strip_apart LIB OBJCOPY STRIP: LIB stripped, LIB.debug holding what was taken off.
strip_apart() {
    local lib=$1 objcopy=$2 strip=$3
    command -v "$objcopy" >/dev/null && command -v "$strip" >/dev/null || {
        echo "stage-native.sh: $objcopy and $strip are needed to strip $lib (binutils; scripts/install-deps.sh)" >&2
        exit 1
    }
    "$objcopy" --only-keep-debug "$lib" "$lib.debug"
    "$strip" --strip-unneeded "$lib"
    # The link names the file only (a debugger looks beside the library, then in its debug folders).
    (cd "$(dirname "$lib")" && "$objcopy" --add-gnu-debuglink="$(basename "$lib").debug" "$(basename "$lib")")
}

mkdir -p "$dir"
cp "$build/tools/ilmap" "$dir/ilmap"
cp -L "$build/capi/libilmap.so.1" "$dir/libilmap.so"
chmod u+w "$dir/libilmap.so"
strip_apart "$dir/libilmap.so" objcopy strip
if [[ -n $arm64 ]]; then
    mkdir -p "$dir/linux-arm64"
    cp "$arm64/tools/ilmap" "$dir/linux-arm64/ilmap"
    cp -L "$arm64/capi/libilmap.so.1" "$dir/linux-arm64/libilmap.so"
    chmod u+w "$dir/linux-arm64/libilmap.so"
    strip_apart "$dir/linux-arm64/libilmap.so" aarch64-linux-gnu-objcopy aarch64-linux-gnu-strip
fi
if [[ -n $windows ]]; then
    mkdir -p "$dir/win-x64"
    cp "$windows/tools/ilmap.exe" "$windows/capi/ilmap.dll" "$dir/win-x64/"
fi
