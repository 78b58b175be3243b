#!/usr/bin/env bash
# package.sh [BUILD_DIR] - the installable artefacts of a build (default build/release, built
# first if needed): the Debian package ilmap_<version>_<arch>.deb (CPack, CMakeLists.txt
# "packages"), written to BUILD_DIR/packages/. Prints the path of each artefact.
# Install: sudo apt install ./ilmap_<version>_<arch>.deb
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/release}
if [[ ! -f $build/CMakeCache.txt ]]; then
  (cd "$root" && bash scripts/build.sh release)
  build=$root/build/release
fi
cmake --build "$build" -j"${ILMAP_JOBS:-2}" >/dev/null
out=$build/packages
rm -rf "$out"
mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log" >&2; exit 1; }
rm -rf "$out/_CPack_Packages"
ls "$out"/*.deb
