#!/usr/bin/env bash
# install-check.sh CMAKE BUILD_DIR CC CXX PKG_CONFIG VERSION CACHE_TESTS_DIR CORPUS_DIR [SANITIZE]
# Installs BUILD_DIR into a temporary prefix (cmake --install --prefix), checks the layout
# (bin/ilmap, include/ilmap/*.h, lib/libilmap.so.1 with its SONAME and only the C API exported,
# lib/ilmap/libilmap.a, lib/pkgconfig/ilmap.pc naming that prefix), then builds C and C++ programs
# against the installed library via pkg-config alone (pkgconfig-check.sh) - shared, and static
# with `pkg-config --static` - and runs them with the installed ilmap: real lookups on a cache of a
# corpus PDB; then a
# CMake project finds the same prefix with find_package(ilmap CONFIG) (consumer-check.sh; not in
# a sanitizer build, whose libraries need the sanitizer flags the consumer does not set).
# SANITIZE=1 (a build with ILMAP_SANITIZE): the libraries hold ASan/UBSan code, so the programs
# are built with the same -fsanitize flags (the sanitizer runtime must come first).
# Exit 0 pass, 1 fail, 77 skip (no pkg-config, or corpus files absent).
set -euo pipefail
export LC_ALL=C
cmake=$1 build=$2 cc=$3 cxx=$4 pkg_config=$5 version=$6 tests=$7 corpus=$8 sanitize=${9:-0}
[[ -n $pkg_config && -x $pkg_config ]] || { echo "SKIP: pkg-config not found"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "FAIL: $*"; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "cmake --install $build --prefix TMP"; }

# Layout. The library folder is wherever ilmap.pc landed (lib, or lib/<multiarch> for /usr).
[[ -x $prefix/bin/ilmap ]] || fail "bin/ilmap not installed"
for h in ilmap.h cache.h status.h; do
  [[ -f $prefix/include/ilmap/$h ]] || fail "include/ilmap/$h not installed"
done
pc=$(find "$prefix" -name ilmap.pc -path '*/pkgconfig/*')
[[ -n $pc ]] || fail "no pkgconfig/ilmap.pc installed"
libdir=$(dirname "$(dirname "$pc")")
[[ -f $libdir/ilmap/libilmap.a ]] || fail "static library ilmap/libilmap.a not installed below the .pc file's folder"
[[ ! -e $libdir/libilmap.a ]] || fail "libilmap.a installed beside libilmap.so, where -lilmap never finds it"
[[ -L $libdir/libilmap.so ]] || fail "libilmap.so (the link-time name) is not a symbolic link"
soname=$(readelf -d "$libdir/libilmap.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname == libilmap.so.1 ]] || fail "SONAME is '$soname', want libilmap.so.1"
[[ -f $libdir/$soname ]] || fail "$soname not installed"
[[ "$("$prefix/bin/ilmap" --version)" == "ilmap $version" ]] || fail "installed ilmap --version is not 'ilmap $version'"

# The shared library exports exactly the functions declared in ilmap.h.
declared=$(grep -o '\bilmap_[a-z0-9_]*(' "$prefix/include/ilmap/ilmap.h" | tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$libdir/libilmap.so" | awk '$2 ~ /^[TWiV]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u)
[[ $declared == "$exported" ]] ||
  fail "libilmap.so exports"$'\n'"$exported"$'\n'"but ilmap.h declares"$'\n'"$declared"
nm -D --defined-only "$libdir/libilmap.so" | awk '$2 ~ /^[BDR]$/ { print; bad = 1 } END { exit bad }' ||
  fail "libilmap.so exports data symbols"

# pkg-config sees the installed module with this prefix (and the system's modules, which
# Requires.private names: libzstd, libxxhash).
export PKG_CONFIG_PATH=$libdir/pkgconfig
[[ "$("$pkg_config" --modversion ilmap)" == "$version" ]] || fail "pkg-config --modversion ilmap is not $version"
[[ "$("$pkg_config" --variable=prefix ilmap)" == "$prefix" ]] || fail "ilmap.pc prefix is not the install prefix"
export LD_LIBRARY_PATH=$libdir
if [[ $sanitize == 1 ]]; then export CONSUMER_FLAGS=-fsanitize=address,undefined; fi
"$(dirname "$0")/pkgconfig-check.sh" "$pkg_config" "$cc" "$cxx" "$prefix/bin/ilmap" "$tests" "$corpus"
# A CMake user's project: find_package(ilmap CONFIG) with the prefix on CMAKE_PREFIX_PATH.
[[ -f $prefix/${libdir#"$prefix"/}/cmake/ilmap/ilmapConfig.cmake ]] || fail "no cmake/ilmap/ilmapConfig.cmake beside the .pc folder"
[[ -f $prefix/share/doc/ilmap/LICENSE ]] || fail "share/doc/ilmap/LICENSE not installed"
if [[ $sanitize != 1 ]]; then
  "$(dirname "$0")/consumer-check.sh" "$cmake" "$prefix" "$prefix/bin/ilmap" "$tests" "$corpus"
fi
echo "ok: installed into a temporary prefix; C API via pkg-config (shared and static) and find_package"
