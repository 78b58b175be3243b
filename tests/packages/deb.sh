#!/usr/bin/env bash
# deb.sh CMAKE BUILD_DIR SOURCE_DIR VERSION CORPUS_DIR - builds the Debian packages of BUILD_DIR
# (scripts/package.sh): ilmap (program, libilmap.so.1) and ilmap-dev (headers, static library,
# pkg-config and CMake files), checks what each holds and that ilmap-dev depends on ilmap and on
# the -dev packages its static library links (ilmap on none), installs ilmap with
# `apt-get install ./ilmap_*.deb` as a user would: /usr/bin/ilmap reports VERSION and
# symbolicates CoreCLR's real ShowILOffsets trace (corpus/traces) to the lines the runtime
# printed with the PDB present (corpus/runtime-frames.tsv: first frame); then installs ilmap-dev:
# C and C++ programs build through pkg-config - shared, and static with --static - and through
# find_package(ilmap CONFIG) without any path, and run (tests/install/pkgconfig-check.sh,
# consumer-check.sh); then removes both packages and checks nothing of them is left. Exit 0 pass,
# 1 fail, 77 skip (apt waits up to 5 minutes for the dpkg lock; not root, no apt, not allowed, or an ilmap package already installed, which it
# will not replace).
set -euo pipefail
export LC_ALL=C
cmake=$1 build=$2 src=$3 version=$4 corpus=$5
[[ ${ILMAP_SYSTEM_INSTALL_TESTS:-} == 1 ]] ||
  { echo "SKIP: installs a package system-wide; set ILMAP_SYSTEM_INSTALL_TESTS=1 (scripts/test.sh does as root)"; exit 77; }
[[ $(id -u) -eq 0 ]] || { echo "SKIP: apt install needs root"; exit 77; }
command -v apt-get >/dev/null || { echo "SKIP: apt-get not found"; exit 77; }
for p in ilmap ilmap-dev; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    echo "SKIP: the package $p is already installed; not replacing it"; exit 77
  fi
done
trace=$corpus/traces/cs-frames.il-offsets.txt
frames=$corpus/out/cs-frames
[[ -f $trace && -f $frames/Ilmap.Corpus.Frames.pdb ]] || { echo "SKIP: corpus trace or cs-frames not built"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-deb.XXXXXX")
installed=0
cleanup() {
  [[ $installed == 1 ]] && DEBIAN_FRONTEND=noninteractive apt-get remove -o DPkg::Lock::Timeout=300 -y -qq --purge ilmap ilmap-dev >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

bash "$src/scripts/package.sh" "$build" deb >"$work/made.txt"
arch=$(dpkg --print-architecture)
deb=$(grep "/ilmap_${version}_$arch\.deb\$" "$work/made.txt") || fail "scripts/package.sh made no ilmap_${version}_$arch.deb: $(cat "$work/made.txt")"
dev=$(grep "/ilmap-dev_${version}_$arch\.deb\$" "$work/made.txt") || fail "scripts/package.sh made no ilmap-dev_${version}_$arch.deb"
bash "$src/tests/packages/deb-fields.sh" "$deb" "$dev" "$version" "$arch"
DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=300 -y -qq --no-install-recommends "$deb" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install $deb"; }
installed=1
[[ $(command -v ilmap) == /usr/bin/ilmap ]] || fail "ilmap on PATH is '$(command -v ilmap)', want /usr/bin/ilmap"
[[ $(/usr/bin/ilmap --version) == "ilmap $version" ]] || fail "/usr/bin/ilmap --version: $(/usr/bin/ilmap --version)"

# The installed program on a real runtime trace: the first frame of the runtime's own listing.
IFS=$'\t' read -r file line < <(awk -F'\t' 'NR > 1 && $1 !~ /^#/ && $7 + 0 > 0 { print $6 "\t" $7; exit }' "$corpus/runtime-frames.tsv")
(cd "$work" && XDG_CACHE_HOME=$work/xdg /usr/bin/ilmap symbolicate --search "$frames" "$trace" >"$work/out.txt" 2>"$work/err.txt") ||
  { cat "$work/err.txt"; fail "installed ilmap symbolicate"; }
grep -qF " in $file:line $line" "$work/out.txt" || fail "installed ilmap symbolicate: no frame resolved to $file:line $line"

# The program alone: no headers, no pkg-config module.
[[ ! -e /usr/include/ilmap && ! -e /usr/lib/pkgconfig/ilmap.pc ]] || fail "the package ilmap installed development files"
DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=300 -y -qq --no-install-recommends "$dev" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install $dev"; }
[[ $(pkg-config --modversion ilmap) == "$version" ]] || fail "pkg-config --modversion ilmap (system): $(pkg-config --modversion ilmap 2>&1)"
(unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR LD_LIBRARY_PATH
 bash "$src/tests/install/pkgconfig-check.sh" pkg-config cc c++ /usr/bin/ilmap "$src/tests/reader" "$corpus")
bash "$src/tests/install/consumer-check.sh" "$cmake" "" /usr/bin/ilmap "$src/tests/reader" "$corpus"

DEBIAN_FRONTEND=noninteractive apt-get remove -o DPkg::Lock::Timeout=300 -y -qq --purge ilmap-dev ilmap >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get remove ilmap-dev ilmap"; }
installed=0
for f in /usr/bin/ilmap /usr/include/ilmap /usr/lib/cmake/ilmap /usr/lib/pkgconfig/ilmap.pc /usr/lib/pkgconfig/ilmap-libdir.pc \
         /usr/lib/ilmap /usr/lib/libilmap.so /usr/lib/libilmap.so.1; do
  [[ ! -e $f ]] || fail "$f left after apt-get remove --purge ilmap-dev ilmap"
done
echo "ok: $(basename "$deb"), $(basename "$dev"): fields, apt install, symbolicate, pkg-config (shared, static), find_package, apt remove"
