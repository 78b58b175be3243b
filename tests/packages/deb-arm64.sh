#!/usr/bin/env bash
# deb-arm64.sh CMAKE ILMAP BUILD_DIR SOURCE_DIR VERSION CORPUS_DIR - the linux-arm64 Debian
# packages of scripts/package.sh (ilmap_VERSION_arm64.deb, ilmap-dev_VERSION_arm64.deb, CPack in
# the cross build build/arm64): their fields, Depends and contents (deb-fields.sh, with code for
# AArch64 and Depends computed from the arm64 libraries); then, unpacked with dpkg-deb -x into a
# folder that stands for an arm64 system's root, the program runs under qemu-user and reports
# VERSION, and an arm64 user's programs are cross-built against the unpacked packages and run
# under qemu-user: C and C++ through pkg-config (shared, and static with --static; the root as
# PKG_CONFIG_SYSROOT_DIR) and through find_package(ilmap CONFIG) with both targets
# (tests/install/pkgconfig-check.sh, consumer-check.sh). ILMAP (this build's) compiles the
# caches, which are the same bytes on both (tests/arm64). Installs nothing. Exit 0 pass, 1 fail,
# 77 skip (no cross compiler, no qemu-aarch64-static, corpus files absent).
set -euo pipefail
export LC_ALL=C
cmake=$1 ilmap=$2 build=$3 src=$4 version=$5 corpus=$6
command -v aarch64-linux-gnu-g++ >/dev/null || { echo "SKIP: aarch64-linux-gnu-g++ not installed (scripts/install-deps.sh)"; exit 77; }
qemu=$(command -v qemu-aarch64-static || true)
[[ -n $qemu ]] || { echo "SKIP: qemu-aarch64-static not installed (Debian qemu-user-static; scripts/install-deps.sh)"; exit 77; }
[[ -f $corpus/runtime-frames.tsv ]] || { echo "SKIP: corpus not built"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-deb-arm64.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
sysroot=/usr/aarch64-linux-gnu

bash "$src/scripts/package.sh" "$build" arm64 >"$work/made.txt"
deb=$(grep "/ilmap_${version}_arm64\.deb\$" "$work/made.txt") || fail "scripts/package.sh made no ilmap_${version}_arm64.deb: $(cat "$work/made.txt")"
dev=$(grep "/ilmap-dev_${version}_arm64\.deb\$" "$work/made.txt") || fail "scripts/package.sh made no ilmap-dev_${version}_arm64.deb"
bash "$src/tests/packages/deb-fields.sh" "$deb" "$dev" "$version" arm64

root=$work/root
dpkg-deb -x "$deb" "$root"
dpkg-deb -x "$dev" "$root"
[[ $("$qemu" -L "$sysroot" "$root/usr/bin/ilmap" --version) == "ilmap $version" ]] ||
  fail "the arm64 package's ilmap --version under qemu: $("$qemu" -L "$sysroot" "$root/usr/bin/ilmap" --version 2>&1)"

# pkg-config of a cross build: the target's modules (and ours, unpacked), paths under the root.
# System folders are kept (ALLOW_SYSTEM_*): under a sysroot they are the root's, not the host's.
(export PKG_CONFIG_LIBDIR=$root/usr/lib/pkgconfig:/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
 export PKG_CONFIG_PATH="" PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
 export LD_LIBRARY_PATH=$root/usr/lib
 bash "$src/tests/install/pkgconfig-check.sh" pkg-config aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ "$ilmap" \
   "$src/tests/reader" "$corpus" "$qemu" -L "$sysroot")
bash "$src/tests/install/consumer-check.sh" "$cmake" "$root/usr" "$ilmap" "$src/tests/reader" "$corpus" \
  "$src/tests/packages/arm64-consumer.cmake" "$qemu" -L "$sysroot"
echo "ok: $(basename "$deb"), $(basename "$dev"): fields, qemu, pkg-config and find_package cross consumers"
