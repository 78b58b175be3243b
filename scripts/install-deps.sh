#!/usr/bin/env bash
# Install ilmap's build and test dependencies from Debian packages (idempotent).
# Usage: scripts/install-deps.sh [--fuzz]   (--fuzz adds clang + libFuzzer runtime)
set -euo pipefail

pkgs=(
  build-essential cmake pkg-config
  libflatbuffers-dev flatbuffers-compiler
  libzstd-dev libxxhash-dev libcli11-dev
  libgtest-dev libbenchmark-dev
  libdeflate-dev libssl-dev nlohmann-json3-dev
  libcurl4-openssl-dev nginx
  libzip-dev
  libmicrohttpd-dev curl
  mono-runtime mono-mcs
  valgrind
  python3-venv python3-pip python3-setuptools python3-wheel python3-pytest
)
if [[ "${1:-}" == "--fuzz" ]]; then
  pkgs+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
