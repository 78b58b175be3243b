#!/usr/bin/env bash
# scripts/sysroot-bullseye.sh [--arch amd64|arm64] [DIR]
#   makes a Debian 11 (bullseye, glibc 2.31) sysroot for building ilmap's released Linux artefacts,
#   which then need glibc 2.28 or newer (cmake/toolchain-linux-{x64,arm64}-glibc231.cmake,
#   scripts/build.sh dist and arm64). Default DIR: build/sysroot-bullseye-<arch>.
# scripts/sysroot-bullseye.sh --chroot [DIR]
#   makes a runnable Debian 11 amd64 system (debootstrap --variant=minbase, with python3-venv) for
#   running the released artefacts where they must run (tests/dist). Default DIR:
#   build/chroot-bullseye.
#
# What a sysroot holds and why:
#   - glibc 2.31 (libc6, libc6-dev) and libgcc-s1, which every Debian 11 / Ubuntu 20.04 system has;
#     the programs link these shared.
#   - the -dev packages of the libraries ilmap links statically (ILMAP_STATIC_DEPS):
#     libxxhash-dev, libdeflate-dev, libssl-dev (libcrypto). Their archives were compiled against
#     glibc 2.31, so they reference nothing newer (Debian 12's may call stat@GLIBC_2.33).
#   - but zstd is the host's (Debian 12's libzstd-dev, 1.5.4): a cache's packed sections are zstd
#     frames, and zstd 1.4.8 compresses the same input into other bytes, so the released program
#     would write other caches than the tested one. Its libzstd.a calls only malloc, memcpy,
#     qsort, fprintf and the like, all in glibc 2.31 (the floor check holds it to that).
#   - libcurl4-openssl-dev, libzip-dev, libmicrohttpd-dev for their headers only: ilmap loads those
#     libraries with dlopen (support/SharedLibrary), so it is compiled against the interface of the
#     versions Debian 11 has.
#   - not libstdc++-10-dev: ilmap is C++20 and needs GCC 12's libstdc++, linked statically; the
#     few glibc > 2.31 symbols it references are defined by cmake/glibc231-compat.c, compiled here.
#   - the host's header-only packages (FlatBuffers, CLI11, nlohmann-json) copied in at the same
#     paths, so their CMake files resolve inside the sysroot and no -I names the host's
#     /usr/include (glibc 2.36's headers). For amd64 also GCC 12's libstdc++ headers: with
#     --sysroot the native GCC looks for them under the sysroot (the cross compiler keeps its own).
# The packages are fetched and unpacked by debootstrap's first stage (--foreign) and then every
# one of them unpacked with dpkg-deb: nothing of the target runs, so arm64 needs no emulator, and
# no maintainer script touches anything outside DIR. The sysroot's absolute symbolic links
# (libfoo.so -> /lib/...) are made relative, or the linker would follow them to the host's files.
#
# The mirror is the one apt on this host is configured with, read at run time. Idempotent: a
# finished DIR (its stamp names the same packages) is kept; an unfinished one is made again.
# Needs root (debootstrap) and the debootstrap package (scripts/install-deps.sh installs it).
# Exit 0: made or already there; 1: failed (the reason on stderr); 2: usage.
set -euo pipefail

cd "$(dirname "$0")/.."
usage() { echo "usage: $0 [--arch amd64|arm64] [DIR] | --chroot [DIR]" >&2; exit 2; }
MODE=sysroot ARCH=amd64 DIR=""
while (($#)); do
  case $1 in
    --arch) [[ $# -ge 2 ]] || usage; ARCH=$2; shift 2 ;;
    --chroot) MODE=chroot; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage ;;
    *) [[ -z $DIR ]] || usage; DIR=$1; shift ;;
  esac
done
case $ARCH in
  amd64) TRIPLE=x86_64-linux-gnu CC=gcc ;;
  arm64) TRIPLE=aarch64-linux-gnu CC=aarch64-linux-gnu-gcc ;;
  *) usage ;;
esac
SUITE=bullseye
if [[ $MODE == chroot ]]; then
  [[ $ARCH == amd64 ]] || usage
  DIR=${DIR:-build/chroot-bullseye}
  PACKAGES=python3-venv
  WANT="$SUITE amd64 minbase chroot $PACKAGES"
else
  DIR=${DIR:-build/sysroot-bullseye-$ARCH}
  PACKAGES=libc6-dev,libxxhash-dev,libdeflate-dev,libssl-dev,libcurl4-openssl-dev,libzip-dev,libmicrohttpd-dev
  WANT="$SUITE $ARCH minbase foreign $PACKAGES"
fi
STAMP="$DIR/.ilmap-sysroot"
LIBDIR="$DIR/usr/lib/$TRIPLE"
say() { echo "sysroot-bullseye: $*"; }
die() { echo "sysroot-bullseye: $*" >&2; exit 1; }

# Header-only and build-time packages of the host, and its zstd (see above), copied into a
# sysroot at the same paths.
# libflatbuffers.a comes along (the floor check covers what it references); libflatbuffers2
# only because FlatBuffers' CMake files check that its shared library exists.
host_packages() {
  local common=(libcli11-dev nlohmann-json3-dev)
  if [[ $ARCH == amd64 ]]; then
    echo libstdc++-12-dev:amd64 libflatbuffers-dev:amd64 libflatbuffers2:amd64 libzstd-dev:amd64 "${common[@]}"
  else
    echo libflatbuffers-dev:arm64 libflatbuffers2:arm64 libzstd-dev:arm64 "${common[@]}"
  fi
}
copy_host_packages() {
  local pkg f
  for pkg in $(host_packages); do
    dpkg -L "$pkg" >/dev/null 2>&1 || die "host package $pkg is not installed (scripts/install-deps.sh)"
    while IFS= read -r f; do
      [[ $f == /usr/share/doc/* ]] && continue
      if [[ -L $f ]]; then
        mkdir -p "$DIR$(dirname "$f")" && cp -P -f "$f" "$DIR$f"
      elif [[ -f $f ]] && ! cmp -s "$f" "$DIR$f"; then
        # Copied with the time of copying (not the package's), and only when it differs: a build
        # made before then links or compiles again, and one made after is left alone.
        install -D -m 644 "$f" "$DIR$f"
      fi
    done < <(dpkg -L "$pkg")
  done
}
# bullseye's libdeflate-dev (1.7) has no pkg-config file; CMakeLists.txt finds libdeflate through
# one, so the sysroot gets one naming its own header and library.
write_libdeflate_pc() {
  local pc="$LIBDIR/pkgconfig/libdeflate.pc"
  [[ -f $pc ]] && return
  mkdir -p "$(dirname "$pc")"
  cat >"$pc" <<PC
prefix=/usr
includedir=\${prefix}/include
libdir=\${prefix}/lib/$TRIPLE

Name: libdeflate
Description: DEFLATE, zlib and gzip (de)compression (written by scripts/sysroot-bullseye.sh)
Version: 1.7
Libs: -L\${libdir} -ldeflate
Cflags: -I\${includedir}
PC
}
# Absolute links under usr/lib, lib and lib64 (the folders the linker reads) made relative:
# /lib/x86_64-linux-gnu/libz.so.1 becomes a path from the link's folder inside DIR. Links
# elsewhere (/etc/alternatives) stay. Only absolute links are touched: a second run changes nothing.
relative_links() {
  local root link target fixed=0
  root=$(realpath "$DIR")
  while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    [[ $target == /* ]] || continue
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
    fixed=$((fixed + 1))
  done < <(find "$root/usr/lib" "$root/usr/lib64" "$root/lib" "$root/lib64" -type l -print0 2>/dev/null)
  say "made $fixed absolute links relative"
}
# cmake/glibc231-compat.c compiled against the sysroot; the toolchain links this object into
# every program and shared library. Compiled on every run, so an edit of the source is taken.
build_compat_object() {
  command -v "$CC" >/dev/null || die "$CC not found (scripts/install-deps.sh)"
  "$CC" --sysroot="$DIR" -O2 -fPIC -fvisibility=hidden -Wall -Wextra -Werror -c cmake/glibc231-compat.c \
    -o "$LIBDIR/ilmap-glibc231-compat.o.new"
  # Replaced only when it changed, so that the builds link again exactly then.
  if cmp -s "$LIBDIR/ilmap-glibc231-compat.o.new" "$LIBDIR/ilmap-glibc231-compat.o"; then
    rm -f "$LIBDIR/ilmap-glibc231-compat.o.new"
  else
    mv -f "$LIBDIR/ilmap-glibc231-compat.o.new" "$LIBDIR/ilmap-glibc231-compat.o"
  fi
}
finish_sysroot() {
  relative_links
  copy_host_packages
  write_libdeflate_pc
  build_compat_object
}

if [[ -f $STAMP && "$(cat "$STAMP")" == "$WANT" ]]; then
  [[ $MODE == sysroot ]] && finish_sysroot
  say "$DIR is already made"
  exit 0
fi

command -v debootstrap >/dev/null || die "debootstrap not found (scripts/install-deps.sh installs it)"
[[ $(id -u) == 0 ]] || die "debootstrap needs root"

# The Debian archive apt uses here: the first URIs: of a deb822 stanza (or the first `deb` line)
# that is not a -security archive (bullseye's security suite has another layout).
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
[[ -n $MIRROR ]] || die "no Debian mirror found in apt's sources"

# An unfinished DIR is made again from nothing. Anything still mounted under it (a chroot test
# that was killed) is refused, so that rm never reaches the host.
if [[ -e $DIR ]]; then
  if grep -q " $(realpath "$DIR")/" /proc/mounts; then
    die "$DIR has mounts under it; unmount them first"
  fi
  rm -rf "$DIR"
fi
mkdir -p "$(dirname "$DIR")"
start=$SECONDS
foreign=()
[[ $MODE == sysroot ]] && foreign=(--foreign)
if ! debootstrap "${foreign[@]}" --variant=minbase --arch="$ARCH" --include="$PACKAGES" "$SUITE" "$DIR" "$MIRROR" \
    >"$DIR.log" 2>&1; then
  tail -n 20 "$DIR.log" >&2
  die "debootstrap failed; see $DIR.log"
fi
if [[ $MODE == sysroot ]]; then
  # The first stage unpacked only the base packages; the rest (the -dev packages) wait in apt's
  # cache for a second stage that would run the target's programs. Unpacking is all a sysroot needs.
  n=0
  for deb in "$DIR"/var/cache/apt/archives/*.deb; do
    dpkg-deb -x "$deb" "$DIR" || die "cannot unpack $deb"
    n=$((n + 1))
  done
  say "unpacked $n packages"
fi
rm -rf "$DIR"/var/cache/apt/archives/*.deb "$DIR"/var/lib/apt/lists/*_Packages
say "debootstrap took $((SECONDS - start)) s"
[[ $MODE == sysroot ]] && finish_sysroot
echo "$WANT" >"$STAMP"
say "$DIR is ready (glibc $(ls "$DIR/lib/$TRIPLE"/libc-*.so 2>/dev/null | sed 's/.*libc-\(.*\)\.so/\1/'))"
