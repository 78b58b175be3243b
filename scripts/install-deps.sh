#!/usr/bin/env bash
# Install ilmap's build and test dependencies from Debian packages (idempotent). debootstrap
# makes the Debian 11 sysroots of the released builds (scripts/sysroot-bullseye.sh) and the
# chroot tests/dist runs them in.
# Usage: scripts/install-deps.sh [--fuzz] [--windows]
#   --fuzz     adds clang + libFuzzer runtime
#   --windows  accepted and ignored: the win-x64 toolchain (below) is now always installed, since
#              scripts/test.sh builds and tests the Windows build
# Unknown options are refused (exit 2).
# Headless Chromium, its driver and Selenium (for tests/page, the page of `ilmap serve` in a
# browser) are installed too when Debian has them, and left out otherwise.
# OpenStack Swift (for tests/s3) is installed too when Debian has it, and left out otherwise; so is
# the linux-arm64 cross build's toolchain (Debian's g++-aarch64-linux-gnu, the :arm64 packages of
# the libraries, qemu-user-static to run what it builds: scripts/build.sh arm64, tests/arm64), and
# the win-x64 one (mingw-w64, Wine, a deb-src entry for scripts/windows-deps.sh:
# scripts/build.sh windows, tests/windows).
set -euo pipefail

pkgs=(
  build-essential cmake pkg-config
  debootstrap
  libflatbuffers-dev flatbuffers-compiler
  libzstd-dev libxxhash-dev libcli11-dev
  libgtest-dev libbenchmark-dev
  libdeflate-dev libssl-dev nlohmann-json3-dev
  libcurl4-openssl-dev nginx openssl
  libzip-dev
  libmicrohttpd-dev curl
  mono-runtime mono-mcs
  valgrind wrk
  python3-venv python3-pip python3-setuptools python3-wheel python3-pytest
)
for arg in "$@"; do
  case $arg in
    --fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
    --windows) ;;
    *) echo "usage: scripts/install-deps.sh [--fuzz] [--windows]" >&2; exit 2 ;;
  esac
done
# tests/s3 only: a one-node OpenStack Swift with s3api (about 70 packages, 50 s). Optional: where
# they cannot be installed (another distribution, no Swift), install-deps still succeeds and
# tests/s3 skips, saying why.
s3_pkgs=(swift swift-proxy swift-object swift-container swift-account memcached)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
updated=""
install_s3() {
  local p missing=()
  for p in "${s3_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  echo "install-deps: installing ${missing[*]} (for tests/s3)"
  [[ -n $updated ]] || $SUDO apt-get update -qq || true
  # Swift's packages start their services; policy-rc.d or no init system refuses that, which is fine.
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    echo "install-deps: warning: could not install ${missing[*]}: tests/s3 will be skipped" >&2
  fi
}

# linux-arm64 (scripts/build.sh arm64, tests/arm64): the cross compiler, qemu-user, and the
# libraries' -dev packages for arm64 (multiarch: dpkg --add-architecture arm64). Optional like
# Swift: where they cannot be installed, tests/arm64 skips, saying why.
arm64_pkgs=(g++-aarch64-linux-gnu qemu-user-static
  libzstd-dev:arm64 libxxhash-dev:arm64 libdeflate-dev:arm64 libssl-dev:arm64 libflatbuffers-dev:arm64
  libcurl4-openssl-dev:arm64 libzip-dev:arm64 libmicrohttpd-dev:arm64)
install_arm64() {
  local p missing=()
  for p in "${arm64_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  echo "install-deps: installing ${missing[*]} (for the linux-arm64 build)"
  if ! dpkg --print-foreign-architectures | grep -x arm64 >/dev/null; then
    $SUDO dpkg --add-architecture arm64 || { echo "install-deps: warning: cannot add the arm64 architecture: tests/arm64 will be skipped" >&2; return 0; }
    updated=""
  fi
  [[ -n $updated ]] || $SUDO apt-get update -qq || true
  updated=yes
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    echo "install-deps: warning: could not install ${missing[*]}: tests/arm64 will be skipped" >&2
  fi
}

# tests/page only: Debian's chromium, chromium-driver and python3-selenium (for /usr/bin/python3).
# Optional like Swift: where they cannot be installed, tests/page skips, saying why.
browser_pkgs=(chromium chromium-driver python3-selenium)
install_browser() {
  local p missing=()
  for p in "${browser_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  echo "install-deps: installing ${missing[*]} (for tests/page)"
  [[ -n $updated ]] || $SUDO apt-get update -qq || true
  updated=yes
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    echo "install-deps: warning: could not install ${missing[*]}: tests/page will be skipped" >&2
  fi
}

# win-x64 (scripts/build.sh windows, tests/windows): mingw-w64's GCC 12 with POSIX threads, Wine
# to run what it builds, Debian's mingw zlib; zstd and libdeflate are built for Windows from
# Debian's source packages by scripts/windows-deps.sh, which needs a deb-src entry: added here
# for the same mirror and suites as the system's own deb entries (read from its .sources files).
# Optional like arm64: where they cannot be installed, tests/windows skips, saying why.
windows_pkgs=(g++-mingw-w64-x86-64-posix wine64 wine libz-mingw-w64-dev dpkg-dev)
add_deb_src() {
  local list=/etc/apt/sources.list.d/ilmap-deb-src.sources f
  [[ -f $list ]] && return 0
  apt-cache showsrc libzstd 2>/dev/null | grep '^Package:' >/dev/null && return 0
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f && $f != "$list" ]] || continue
    # Each deb stanza again as deb-src (stanzas are separated by blank lines).
    awk 'BEGIN { RS = ""; ORS = "\n\n" } /(^|\n)Types:[^\n]*deb([ \n]|$)/ { sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f"
  done | $SUDO tee "$list.tmp" >/dev/null
  if [[ -s $list.tmp ]]; then $SUDO mv "$list.tmp" "$list"; updated=""; else $SUDO rm -f "$list.tmp"; fi
}
install_windows() {
  local p missing=()
  for p in "${windows_pkgs[@]}"; do installed "$p" || missing+=("$p"); done
  add_deb_src || echo "install-deps: warning: could not add a deb-src entry: scripts/windows-deps.sh cannot fetch sources" >&2
  [[ -n $updated ]] || $SUDO apt-get update -qq || true
  updated=yes
  [[ ${#missing[@]} -eq 0 ]] && return 0
  echo "install-deps: installing ${missing[*]} (for the win-x64 build)"
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    echo "install-deps: warning: could not install ${missing[*]}: tests/windows will be skipped" >&2
  fi
}

missing=()
for p in "${pkgs[@]}"; do
  installed "$p" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  updated=yes
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
install_s3
install_arm64
install_browser
install_windows
