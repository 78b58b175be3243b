#!/usr/bin/env bash
# deb-fields.sh ILMAP_DEB ILMAP_DEV_DEB VERSION ARCH - what the two Debian packages of
# scripts/package.sh say and hold, read with dpkg-deb alone (no installation), for the host's
# architecture (deb.sh) or a cross build's (deb-arm64.sh):
#   - both are VERSION and ARCH (Architecture: is what apt resolves the Depends for);
#   - ilmap Depends on glibc (dpkg-shlibdeps, read from the ARCH libraries) and on no -dev
#     package, and recommends the libraries it loads with dlopen;
#   - ilmap-dev Depends on ilmap of the same version and on libzstd-dev, libxxhash-dev and
#     libstdc++-dev, which libilmap.a, ilmap.pc and ilmapConfig.cmake link;
#   - ilmap holds the program and libilmap.so.1 and no development file; ilmap-dev holds the
#     headers, lib/ilmap/libilmap.a, the libilmap.so link, both .pc files and the CMake package,
#     and no program;
#   - the program, the shared and the static library are code for ARCH.
# Exit 0 pass, 1 fail.
set -euo pipefail
export LC_ALL=C
deb=$1 dev=$2 version=$3 arch=$4
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-debfields.XXXXXX")
trap 'rm -rf "$work"' EXIT
case $arch in
  amd64) machine="Advanced Micro Devices X86-64" ;;
  arm64) machine=AArch64 ;;
  *) fail "no ELF machine known for the Debian architecture $arch" ;;
esac

for d in "$deb" "$dev"; do
  [[ $(dpkg-deb -f "$d" Version) == "$version" ]] || fail "$d: Version $(dpkg-deb -f "$d" Version), want $version"
  [[ $(dpkg-deb -f "$d" Architecture) == "$arch" ]] || fail "$d: Architecture $(dpkg-deb -f "$d" Architecture), want $arch"
done
[[ $(dpkg-deb -f "$deb" Package) == ilmap ]] || fail "$deb: Package $(dpkg-deb -f "$deb" Package), want ilmap"
[[ $(dpkg-deb -f "$dev" Package) == ilmap-dev ]] || fail "$dev: Package $(dpkg-deb -f "$dev" Package), want ilmap-dev"

depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends =~ (^|, )libc6\ \(\>=\ 2\.[0-9]+\) ]] || fail "ilmap Depends '$depends' names no libc6 (>= 2.N)"
[[ $depends != *-dev* ]] || fail "ilmap Depends '$depends' names a -dev package"
recommends=$(dpkg-deb -f "$deb" Recommends)
for lib in libcurl4 libzip4 libmicrohttpd12; do
  [[ ", $recommends," == *", $lib,"* ]] || fail "ilmap Recommends '$recommends' lacks $lib"
done
dev_depends=$(dpkg-deb -f "$dev" Depends)
for want in "ilmap (= $version)" libzstd-dev libxxhash-dev libstdc++-dev; do
  [[ ", $dev_depends," == *", $want,"* ]] || fail "ilmap-dev Depends '$dev_depends' lacks $want"
done

# Contents: "path" or "path -> target", one a line, without the leading "./".
listing() { dpkg-deb -c "$1" | awk '{ p = $6; sub(/^\.\//, "", p); if ($7 == "->") p = p " -> " $8; print p }'; }
listing "$deb" >"$work/ilmap.txt"
listing "$dev" >"$work/dev.txt"
has() { grep -qxE "$2" "$work/$1.txt" || fail "$1: no $2 in $(tr '\n' ' ' <"$work/$1.txt")"; }
hasnt() { if grep -E "$2" "$work/$1.txt"; then fail "$1 holds the files above, which belong to the other package"; fi; }
has ilmap 'usr/bin/ilmap'
has ilmap 'usr/lib/libilmap\.so\.1 -> libilmap\.so\.1\.[0-9]+\.[0-9]+'
has ilmap 'usr/lib/libilmap\.so\.1\.[0-9]+\.[0-9]+'
has ilmap 'usr/share/doc/ilmap/LICENSE'
hasnt ilmap '^usr/include/|^usr/lib/(pkgconfig|cmake|ilmap)/|^usr/lib/libilmap\.(so|a)( |$)'
for h in ilmap.h cache.h status.h; do has dev "usr/include/ilmap/$h"; done
has dev 'usr/lib/ilmap/libilmap\.a'
has dev 'usr/lib/libilmap\.so -> libilmap\.so\.1'
has dev 'usr/lib/pkgconfig/ilmap\.pc'
has dev 'usr/lib/pkgconfig/ilmap-libdir\.pc'
has dev 'usr/lib/cmake/ilmap/ilmapConfig\.cmake'
has dev 'usr/lib/cmake/ilmap/ilmapConfigVersion\.cmake'
hasnt dev '^usr/bin/|^usr/lib/libilmap\.so\.1'

# Code for ARCH.
dpkg-deb -x "$deb" "$work/root"
dpkg-deb -x "$dev" "$work/root"
for f in usr/bin/ilmap usr/lib/libilmap.so.1 usr/lib/ilmap/libilmap.a; do
  got=$(readelf -h "$work/root/$f" | awk -F: '/Machine:/ { gsub(/^ +/, "", $2); print $2 }' | sort -u)
  [[ $got == "$machine" ]] || fail "$f is code for '$got', not $machine ($arch)"
done
echo "ok: $(basename "$deb"), $(basename "$dev"): fields, Depends, contents, $arch code"
