#!/usr/bin/env bash
# arm64.sh X64_ILMAP ARM64_BUILD_DIR REPO_ROOT SHARED_DIR - the linux-arm64 build (scripts/build.sh
# arm64: cross-compiled) run under qemu-user against the x64 build of the same sources:
#   - the arm64 `ilmap` is an AArch64 program and says the same version;
#   - it compiles every PDB of corpus/out (with its PE where one lies beside it) and of
#     SHARED_DIR/corpus-public into the same bytes as the x64 program;
#   - its lookups of every frame of corpus/runtime-frames.tsv (the .NET runtime's) and its
#     symbolicate of the runtime's recorded trace print what the x64 program prints;
#   - the arm64 libilmap.so, with tests/capi/capi_test.c cross-compiled against it, compiles and
#     symbolicates as the x64 program does;
#   - built against a Debian 11 sysroot (scripts/build.sh arm64), everything runs with that
#     sysroot's glibc 2.31 as its system, and no binary needs one newer than the build's
#     ILMAP_GLIBC_FLOOR (the floor check).
# Exit 0 pass, 1 fail, 77 skip (no arm64 build, no qemu-aarch64-static or cross compiler).
set -uo pipefail
export LC_ALL=C
x64=$(realpath "$1") arm=$2 root=$(realpath "$3") shared=$4
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
[[ -n $qemu ]] || { echo "SKIP: qemu-aarch64-static not installed (Debian qemu-user-static; scripts/install-deps.sh)"; exit 77; }
[[ -x $arm/tools/ilmap && -f $arm/capi/libilmap.so.1 ]] || { echo "SKIP: no linux-arm64 build in $arm (scripts/build.sh arm64)"; exit 77; }
command -v aarch64-linux-gnu-gcc >/dev/null || { echo "SKIP: aarch64-linux-gnu-gcc not installed (scripts/install-deps.sh)"; exit 77; }
arm=$(realpath "$arm")
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-arm64.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/xdg HOME=$work/home
unset _NT_SYMBOL_PATH
# The system the arm64 programs run on: the Debian 11 sysroot the build was made against (glibc
# 2.31, scripts/build.sh arm64), or Debian's cross libraries for a build made without one.
cache() { sed -n "s/^$1:[A-Z]*=//p" "$arm/CMakeCache.txt"; }
sysroot=$(cache ILMAP_SYSROOT)
[[ -n $sysroot ]] || sysroot=/usr/aarch64-linux-gnu
a64() { "$qemu" -L "$sysroot" "$arm/tools/ilmap" "$@"; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [[ -n $(cache ILMAP_SYSROOT) ]]; then
  if floor=$(bash "$root/scripts/check-glibc-floor.sh" "$arm/tools/ilmap" "$arm/capi/libilmap.so.1" "$(cache ILMAP_GLIBC_FLOOR)" 2>&1); then
    echo "ok   floor: $(echo $floor)"
  else
    fail "floor: $floor"
  fi
  echo "     run under qemu-user with $sysroot's glibc $(ls "$sysroot"/lib/aarch64-linux-gnu/libc-*.so | sed 's/.*libc-\(.*\)\.so/\1/')"
fi
machine=$(readelf -h "$arm/tools/ilmap" | awk -F: '/Machine:/ { gsub(/^ +/, "", $2); print $2 }')
[[ $machine == AArch64 ]] || fail "build/arm64's ilmap is a '$machine' program, not AArch64"
[[ $(a64 --version) == "$("$x64" --version)" ]] || fail "versions differ: $(a64 --version) / $("$x64" --version)"

# Compile: the same bytes. A PDB with a same-named PE beside it is compiled from the PE (names).
. "$root/tests/common/same-compile.sh"
corpus_inputs "$root" "$shared"
same_compiles "$x64" a64 arm64

# Lookups of the runtime's frames, on the arm64-compiled cache of their module.
frames_dll=$root/corpus/out/cs-frames/Ilmap.Corpus.Frames.dll
a64 compile -q "$frames_dll" -o "$work/frames.ilmap"
awk -F'\t' 'NR > 1 && !/^#/ && $3 == "Ilmap.Corpus.Frames" { print $4, $5 }' "$root/corpus/runtime-frames.tsv" >"$work/queries"
[[ $(wc -l <"$work/queries") -ge 40 ]] || fail "few runtime frames: $(wc -l <"$work/queries")"
a64 lookup --batch "$work/frames.ilmap" <"$work/queries" >"$work/a64.lookups" 2>&1
"$x64" lookup --batch "$work/frames.ilmap" <"$work/queries" >"$work/x64.lookups" 2>&1
if cmp -s "$work/a64.lookups" "$work/x64.lookups" && [[ -s $work/a64.lookups ]]; then
  echo "ok   $(wc -l <"$work/queries") runtime frames: the same lookups on arm64 and x64"
else
  fail "lookups differ: $(diff "$work/x64.lookups" "$work/a64.lookups" | head -n 4)"
fi
trace=$root/corpus/traces/cs-frames.il-offsets.txt
a64 symbolicate --search "$root/corpus/out/cs-frames" --cache-dir "$work/c-a64" "$trace" >"$work/a64.sym" 2>/dev/null
"$x64" symbolicate --search "$root/corpus/out/cs-frames" --cache-dir "$work/c-x64" "$trace" >"$work/x64.sym" 2>/dev/null
if cmp -s "$work/a64.sym" "$work/x64.sym" && grep -q ':line [0-9]' "$work/a64.sym"; then
  echo "ok   symbolicate of the runtime's trace: the same text on arm64 and x64"
else
  fail "symbolicate differs: $(diff "$work/x64.sym" "$work/a64.sym" | head -n 4)"
fi

# The library: the C API test program, cross-compiled against the arm64 libilmap.so.
# Compiled and linked as the build compiles and links (its sysroot, include and link flags).
# shellcheck disable=SC2046
if aarch64-linux-gnu-gcc ${sysroot:+--sysroot="$sysroot"} $(cache CMAKE_C_FLAGS) $(cache CMAKE_EXE_LINKER_FLAGS) -std=c11 -O1 \
    -I"$root/include" "$root/tests/capi/capi_test.c" -L"$arm/capi" -lilmap -o "$work/capi_test" 2>"$work/cc.err"; then
  rc=0
  LD_LIBRARY_PATH=$arm/capi "$qemu" -L "$sysroot" "$work/capi_test" compile "$frames_dll" "$work/lib.ilmap" \
    >"$work/lib.out" 2>&1 || rc=$?
  "$x64" compile -q "$frames_dll" -o "$work/x64-frames.ilmap"
  [[ $rc -eq 0 ]] && cmp -s "$work/lib.ilmap" "$work/x64-frames.ilmap" \
    || fail "arm64 libilmap.so ilmap_compile: exit $rc, $(head -c 200 "$work/lib.out")"
  LD_LIBRARY_PATH=$arm/capi "$qemu" -L "$sysroot" "$work/capi_test" symbolicate "$root/corpus/out/cs-frames" \
    "$work/c-lib" "$trace" >"$work/lib.sym" 2>/dev/null
  cmp -s "$work/lib.sym" "$work/x64.sym" || fail "arm64 libilmap.so ilmap_symbolicate differs from x64 ilmap symbolicate"
  [[ $fails -eq 0 ]] && echo "ok   arm64 libilmap.so: ilmap_compile and ilmap_symbolicate as the x64 program"
else
  fail "cannot cross-compile tests/capi/capi_test.c: $(head -n 3 "$work/cc.err")"
fi

# The arm64 wheel (scripts/package.sh makes it beside the x64 one): tagged for aarch64 and the
# newest glibc its library needs, as objdump lists it. (It cannot be installed here.)
if /usr/bin/python3 -c 'import setuptools' 2>/dev/null && /usr/bin/python3 -c 'import pip' 2>/dev/null && /usr/bin/python3 -c 'import wheel' 2>/dev/null; then
  wheel=$(bash "$root/integrations/python/build-wheel.sh" "$arm" "$work/wheel" 2>"$work/wheel.err" | tail -n 1)
  need=$(objdump -T "$arm/capi/libilmap.so.1" | grep -o 'GLIBC_[0-9]*\.[0-9]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
  want="ilmap-$("$x64" --version | awk '{ print $2 }')-py3-none-manylinux_${need/./_}_aarch64.whl"
  if [[ ${wheel##*/} == "$want" ]] && /usr/bin/python3 -m zipfile -l "$wheel" | grep 'ilmap/_lib/libilmap.so.1 ' >/dev/null; then
    echo "ok   the arm64 wheel is $want, with its library"
  else
    fail "the arm64 wheel is '${wheel##*/}', want $want: $(head -c 200 "$work/wheel.err")"
  fi
fi

[[ $fails -eq 0 ]] || { echo "$fails failed"; exit 1; }
echo "all passed"
