#!/usr/bin/env bash
# pkgconfig-check.sh PKG_CONFIG CC CXX ILMAP CACHE_TESTS_DIR CORPUS_DIR [RUN...] - a user's C and
# C++ programs built against an installed ilmap through pkg-config alone, as its docs say:
#   cc  c_api_test.c  $(pkg-config --cflags --libs ilmap)            needs libilmap.so.1
#   cc  c_api_test.c  $(pkg-config --static --cflags --libs ilmap)   has libilmap.a inside
#   c++ cpp_lookup.cpp $(pkg-config --static --cflags --libs ilmap)  has libilmap.a inside
# and each one run: the C programs through c_api_test.sh, the C++ one must give the line the
# .NET runtime printed for the first frame of corpus/runtime-frames.tsv. The caller points
# PKG_CONFIG_PATH/PKG_CONFIG_LIBDIR at the installation (nothing for a system install) and sets
# LD_LIBRARY_PATH when the shared library is not on the loader's path. RUN: a command the
# programs are run with (a cross build's: qemu-aarch64-static -L SYSROOT). ILMAP compiles the
# caches. CONSUMER_FLAGS (environment): more compiler flags, e.g. a sanitizer build's -fsanitize
# flags, which programs linking its libraries need too. Exit 0 pass, 1 fail, 77 skip (corpus files absent).
set -euo pipefail
export LC_ALL=C
pkg_config=$1 cc=$2 cxx=$3 ilmap=$4 tests=$5 corpus=$6
shift 6
run=("$@")
here=$(cd "$(dirname "$0")" && pwd)
tsv=$corpus/runtime-frames.tsv
[[ -f $tsv ]] || { echo "SKIP: $tsv not found"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-pkgconfig.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
read -ra extra <<<"${CONSUMER_FLAGS:-}"

# Assigned first, so that a failing pkg-config stops the script (set -e).
cflags_text=$("$pkg_config" --cflags ilmap)
libs_text=$("$pkg_config" --libs ilmap)
static_text=$("$pkg_config" --static --libs ilmap)
read -ra cflags <<<"$cflags_text"
read -ra libs <<<"$libs_text"
read -ra static_libs <<<"$static_text"
"$cc" -std=c11 -Wall -Wextra -Werror "${extra[@]}" "$tests/c_api_test.c" "${cflags[@]}" "${libs[@]}" -o "$work/c_shared" ||
  fail "cc c_api_test.c \$(pkg-config --cflags --libs ilmap)"
"$cc" -std=c11 -Wall -Wextra -Werror "${extra[@]}" "$tests/c_api_test.c" "${cflags[@]}" "${static_libs[@]}" -o "$work/c_static" ||
  fail "cc c_api_test.c \$(pkg-config --static --cflags --libs ilmap)"
"$cxx" -std=c++20 -Wall -Wextra -Werror "${extra[@]}" "$here/consumer/cpp_lookup.cpp" "${cflags[@]}" "${static_libs[@]}" -o "$work/cpp_static" ||
  fail "c++ cpp_lookup.cpp \$(pkg-config --static --cflags --libs ilmap)"
readelf -d "$work/c_shared" | grep 'NEEDED.*\[libilmap\.so\.1\]' >/dev/null || fail "pkg-config --libs ilmap: the program does not need libilmap.so.1"
if [[ ${#run[@]} -eq 0 ]]; then
  ldd "$work/c_shared" | grep 'libilmap\.so\.1 => /' >/dev/null || fail "the loader does not find libilmap.so.1: $(ldd "$work/c_shared" | grep libilmap)"
fi
for p in c_static cpp_static; do
  if readelf -d "$work/$p" | grep 'NEEDED.*libilmap' >/dev/null; then
    fail "pkg-config --static --libs ilmap ($static_text): $p needs libilmap.so"
  fi
done

# Run each. c_api_test.sh runs its program directly, so a RUN command goes into a wrapper.
wrap() {
  if [[ ${#run[@]} -eq 0 ]]; then echo "$work/$1"; return; fi
  { printf '#!/bin/sh\nexec'; printf ' %q' "${run[@]}" "$work/$1"; printf ' "$@"\n'; } >"$work/run-$1"
  chmod +x "$work/run-$1"
  echo "$work/run-$1"
}
"$tests/c_api_test.sh" "$ilmap" "$(wrap c_shared)" "$corpus"
"$tests/c_api_test.sh" "$ilmap" "$(wrap c_static)" "$corpus"
IFS=$'\t' read -r asm token il file line column < <(awk -F'\t' '
  NR == 1 { sub(/^#/, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
  $c["file"] != "" && $c["line"] + 0 > 0 {
    print $c["assembly"] "\t" $c["token"] "\t" $c["il_offset"] "\t" $c["file"] "\t" $c["line"] "\t" $c["column"]; exit }' "$tsv")
dll=$(find "$corpus/out" -name "$asm.dll" | head -n1)
[[ -n $dll ]] || { echo "SKIP: $asm.dll not in $corpus/out"; exit 77; }
"$ilmap" compile -q "$dll" -o "$work/frames.ilmap"
got=$("$(wrap cpp_static)" "$work/frames.ilmap" "$token" "$il") || fail "cpp_lookup (pkg-config --static) $token $il: no answer"
[[ $got == "$file:$line:$column" ]] || fail "cpp_lookup (pkg-config --static) $token $il gave $got, the runtime printed $file:$line:$column"
echo "ok: pkg-config: C shared, C and C++ static ($got)"
