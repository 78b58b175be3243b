#!/usr/bin/env bash
# Configure and build one configuration of ilmap.
# Usage: scripts/build.sh [release|debug|sanitize]   (build dir: build/<config>)
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-release}"
jobs="${ILMAP_JOBS:-2}"
case "$config" in
  release)  args=(-DCMAKE_BUILD_TYPE=Release) ;;
  debug)    args=(-DCMAKE_BUILD_TYPE=Debug) ;;
  sanitize) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DILMAP_SANITIZE=ON -DILMAP_BUILD_BENCH=OFF) ;;
  *) echo "usage: scripts/build.sh [release|debug|sanitize]" >&2; exit 1 ;;
esac
werror=OFF
if [[ "${CI:-}" == "true" ]]; then werror=ON; fi
cmake -S . -B "build/$config" -DILMAP_WERROR="$werror" "${args[@]}" >/dev/null
cmake --build "build/$config" -j"$jobs"
