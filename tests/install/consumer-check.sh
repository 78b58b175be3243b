#!/usr/bin/env bash
# consumer-check.sh CMAKE PREFIX ILMAP CACHE_TESTS_DIR CORPUS_DIR [TOOLCHAIN RUN...] - a user's CMake project
# (consumer/) finds the installed ilmap with find_package(ilmap CONFIG) (PREFIX on
# CMAKE_PREFIX_PATH; "" for a system install such as the Debian package) and builds the C test
# program against the shared and the static library and a C++ program of the cache.h API. The
# C programs run through c_api_test.sh; the C++ one must give the line the .NET runtime printed
# for the first frame of corpus/runtime-frames.tsv, on a cache the installed ilmap compiles.
# TOOLCHAIN: a CMake toolchain file for a cross build (the package is then found through
# ilmap_DIR, as a toolchain may set CMAKE_PREFIX_PATH itself), RUN: the command its programs run
# with (qemu-aarch64-static -L SYSROOT); ILMAP, the host's program, compiles the caches.
# Exit 0 pass, 1 fail, 77 skip (corpus files absent).
set -euo pipefail
export LC_ALL=C
cmake=$1 prefix=$2 ilmap=$3 tests=$4 corpus=$5 toolchain=${6:-}
run=("${@:7}")
here=$(cd "$(dirname "$0")" && pwd)
tsv=$corpus/runtime-frames.tsv
[[ -f $tsv ]] || { echo "SKIP: $tsv not found"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

args=(-S "$here/consumer" -B "$work/build" -DTESTS="$tests" -DCMAKE_BUILD_TYPE=Release)
if [[ -n $toolchain ]]; then
  config=$(find "$prefix" -name ilmapConfig.cmake | head -n1)
  args+=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -Dilmap_DIR="$(dirname "$config")")
elif [[ -n $prefix ]]; then
  args+=(-DCMAKE_PREFIX_PATH="$prefix")
fi
"$cmake" "${args[@]}" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "find_package(ilmap CONFIG) project did not configure"; }
"$cmake" --build "$work/build" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "the consumer project did not build"; }
readelf -d "$work/build/c_api_shared" | grep 'NEEDED.*\[libilmap\.so\.1\]' >/dev/null || fail "ilmap::ilmap does not link libilmap.so.1"
if readelf -d "$work/build/c_api_static" | grep 'NEEDED.*libilmap' >/dev/null; then fail "ilmap::ilmap_static links libilmap.so"; fi
[[ -n $prefix ]] && export LD_LIBRARY_PATH=$(dirname "$(find "$prefix" -name libilmap.so.1 | head -n1)")
# c_api_test.sh runs its program directly, so a RUN command goes into a wrapper.
wrap() {
  if [[ ${#run[@]} -eq 0 ]]; then echo "$work/build/$1"; return; fi
  { printf '#!/bin/sh\nexec'; printf ' %q' "${run[@]}" "$work/build/$1"; printf ' "$@"\n'; } >"$work/run-$1"
  chmod +x "$work/run-$1"
  echo "$work/run-$1"
}
"$tests/c_api_test.sh" "$ilmap" "$(wrap c_api_shared)" "$corpus"
"$tests/c_api_test.sh" "$ilmap" "$(wrap c_api_static)" "$corpus"

# The C++ API: the runtime's answer for its first frame with a line.
IFS=$'\t' read -r asm token il file line column < <(awk -F'\t' '
  NR == 1 { sub(/^#/, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
  $c["file"] != "" && $c["line"] + 0 > 0 {
    print $c["assembly"] "\t" $c["token"] "\t" $c["il_offset"] "\t" $c["file"] "\t" $c["line"] "\t" $c["column"]; exit }' "$tsv")
dll=$(find "$corpus/out" -name "$asm.dll" | head -n1)
[[ -n $dll ]] || { echo "SKIP: $asm.dll not in $corpus/out"; exit 77; }
"$ilmap" compile -q "$dll" -o "$work/frames.ilmap"
got=$("$(wrap cpp_lookup)" "$work/frames.ilmap" "$token" "$il") || fail "cpp_lookup $token $il: no answer"
[[ $got == "$file:$line:$column" ]] || fail "cpp_lookup $token $il gave $got, the runtime printed $file:$line:$column"
echo "ok: find_package(ilmap CONFIG): C API shared and static, C++ API ($got)"
