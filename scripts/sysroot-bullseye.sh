#!/usr/bin/env bash
# scripts/sysroot-bullseye.sh [DIR] - makes a Debian 11 (bullseye, glibc 2.31) sysroot for
# building ilmap's released Linux x64 artefacts against a glibc 2.31 floor
# (cmake/toolchain-linux-x64-glibc231.cmake). Default DIR: build/sysroot-bullseye-amd64.
#
# What is in it and why:
#   - debootstrap --variant=minbase bullseye: glibc 2.31 (libc6, libc6-dev) and libgcc-s1, the
#     libraries every Debian 11 / Ubuntu 20.04 system has; the programs link these shared.
#   - the -dev packages of the libraries ilmap links statically (ILMAP_STATIC_DEPS): libzstd-dev,
#     libxxhash-dev, libdeflate-dev, libssl-dev (libcrypto). Their static archives were compiled
#     against glibc 2.31, so they reference nothing newer. (Debian 12's archives were not: objects
#     compiled against glibc >= 2.33 call stat/fstat@GLIBC_2.33, for example.)
#   - libcurl4-openssl-dev, libzip-dev, libmicrohttpd-dev for their headers only: ilmap loads
#     those libraries with dlopen (support/SharedLibrary), so it must be compiled against the
#     interface of the versions Debian 11 has.
#   - not libstdc++-10-dev: ilmap is C++20 and needs GCC 12's libstdc++ headers, so the toolchain
#     links Debian 12's libstdc++.a statically and defines the few glibc > 2.31 symbols it needs
#     (support/glibc_compat.c).
#   - header-only and build-tool dependencies (FlatBuffers, CLI11, nlohmann-json, flatc) stay the
#     host's: they must match the host's flatc and add no glibc references of their own.
# The sysroot's absolute symbolic links (libfoo.so -> /lib/...) are made relative, or the linker
# would follow them to the host's libraries.
#
# The mirror is the one apt on this host is configured with (its deb822 or one-line sources),
# read at run time. Idempotent: a finished sysroot (its stamp file names the same packages) is
# left as it is; an unfinished one is made again. Needs root (debootstrap, chroot) and debootstrap.
set -euo pipefail

cd "$(dirname "$0")/.."
DIR=${1:-build/sysroot-bullseye-amd64}
SUITE=bullseye
ARCH=amd64
PACKAGES=libc6-dev,libzstd-dev,libxxhash-dev,libdeflate-dev,libssl-dev,libcurl4-openssl-dev,libzip-dev,libmicrohttpd-dev
STAMP="$DIR/.ilmap-sysroot"
WANT="$SUITE $ARCH minbase $PACKAGES"

# The host's header-only and build-time packages copied into the sysroot at the same paths, so
# that their CMake files resolve inside it and no -I names the host's /usr/include (which holds
# glibc 2.36's headers). libflatbuffers.a comes along; the floor check covers what it references.
# GCC 12's libstdc++ headers too: with --sysroot, GCC looks for them under the sysroot.
# libflatbuffers2 only because FlatBuffers' CMake files check that its shared library exists;
# ilmap links the static one.
HOST_PACKAGES=(libstdc++-12-dev:amd64 libflatbuffers-dev:amd64 libflatbuffers2:amd64 libcli11-dev nlohmann-json3-dev)
copy_host_packages() {
  local pkg f
  for pkg in "${HOST_PACKAGES[@]}"; do
    dpkg -L "$pkg" >/dev/null 2>&1 || { echo "sysroot-bullseye: host package $pkg is not installed (scripts/install-deps.sh)" >&2; exit 1; }
    while IFS= read -r f; do
      [[ $f == /usr/share/doc/* ]] && continue
      if [[ -L $f ]]; then
        mkdir -p "$DIR$(dirname "$f")" && cp -P -f "$f" "$DIR$f"
      elif [[ -f $f ]]; then
        install -D -p -m 644 "$f" "$DIR$f"
      fi
    done < <(dpkg -L "$pkg")
  done
}
# bullseye's libdeflate-dev (1.7) ships no pkg-config file; CMakeLists.txt finds libdeflate
# through one, so the sysroot gets one naming its own header and library.
write_libdeflate_pc() {
  local pc="$DIR/usr/lib/x86_64-linux-gnu/pkgconfig/libdeflate.pc"
  [[ -f $pc ]] && return
  cat >"$pc" <<'PC'
prefix=/usr
includedir=${prefix}/include
libdir=${prefix}/lib/x86_64-linux-gnu

Name: libdeflate
Description: DEFLATE, zlib and gzip (de)compression (written by scripts/sysroot-bullseye.sh)
Version: 1.7
Libs: -L${libdir} -ldeflate
Cflags: -I${includedir}
PC
}

# Absolute links in the library folders the linker reads (usr/lib, usr/lib64; lib and lib64
# are links to them) made relative: /lib/x86_64-linux-gnu/libz.so.1 becomes a path from the
# link's own folder inside the sysroot. Links elsewhere (/etc/alternatives) are for the chroot
# and stay. Only absolute links are touched, so a second run changes nothing.
relative_links() {
  local root link target fixed=0
  root=$(realpath "$DIR")
  while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    [[ $target == /* ]] || continue
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
    fixed=$((fixed + 1))
  done < <(find "$root/usr/lib" "$root/usr/lib64" -type l -print0 2>/dev/null)
  echo "sysroot-bullseye: made $fixed absolute links relative"
}

# cmake/glibc231-compat.c compiled against the sysroot; the toolchain links this object into
# every program and shared library. Made again on every run, so an edit of the source is taken.
build_compat_object() {
  gcc --sysroot="$DIR" -O2 -fPIC -fvisibility=hidden -Wall -Wextra -Werror -c cmake/glibc231-compat.c \
    -o "$DIR/usr/lib/x86_64-linux-gnu/ilmap-glibc231-compat.o"
}

if [[ -f $STAMP && "$(cat "$STAMP")" == "$WANT" ]]; then
  relative_links
  copy_host_packages
  write_libdeflate_pc
  build_compat_object
  echo "sysroot-bullseye: $DIR is already made ($WANT); host packages and compat object made again"
  exit 0
fi

command -v debootstrap >/dev/null || { echo "sysroot-bullseye: debootstrap not found (apt-get install debootstrap)" >&2; exit 1; }
[[ $(id -u) == 0 ]] || { echo "sysroot-bullseye: debootstrap needs root" >&2; exit 1; }

# The Debian archive apt uses here: the first URIs: of a deb822 stanza (or the first `deb` line)
# whose URL does not end in -security (bullseye's security suite has a different layout).
mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /-security\/?$/) { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    awk '$1 == "deb" { u = ($2 ~ /^\[/) ? $3 : $2; if (u !~ /-security\/?$/) { print u; exit } }' "$f"
  done
}
MIRROR=$(mirror | head -n1)
[[ -n $MIRROR ]] || { echo "sysroot-bullseye: no Debian mirror found in apt's sources" >&2; exit 1; }

# An unfinished sysroot (no stamp, or other packages) is made again from nothing. Anything still
# mounted under it (a chroot test) is unmounted first so rm does not reach the host.
if [[ -e $DIR ]]; then
  if grep -q " $(realpath "$DIR")/" /proc/mounts; then
    echo "sysroot-bullseye: $DIR has mounts under it; unmount them first" >&2
    exit 1
  fi
  rm -rf "$DIR"
fi
mkdir -p "$(dirname "$DIR")"
start=$(date +%s)
debootstrap --variant=minbase --arch="$ARCH" --include="$PACKAGES" "$SUITE" "$DIR" "$MIRROR" >"$DIR.log" 2>&1 || {
  echo "sysroot-bullseye: debootstrap failed; see $DIR.log" >&2
  tail -n 20 "$DIR.log" >&2
  exit 1
}
echo "sysroot-bullseye: debootstrap took $(( $(date +%s) - start )) s"


# apt's package lists and caches are not needed to build against the sysroot.
rm -rf "$DIR"/var/cache/apt/archives/*.deb "$DIR"/var/lib/apt/lists/*_Packages

relative_links
copy_host_packages
write_libdeflate_pc
build_compat_object
echo "$WANT" >"$STAMP"
echo "sysroot-bullseye: $DIR is ready (glibc $(ls "$DIR"/lib/x86_64-linux-gnu/libc-*.so 2>/dev/null | sed 's/.*libc-\(.*\)\.so/\1/'))"
