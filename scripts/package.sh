#!/usr/bin/env bash
# package.sh [BUILD_DIR [KIND...]] - the installable artefacts of a build, written to
# BUILD_DIR/packages/; KIND: deb, arm64, windows, wheel, nuget (default: all of them). The default
# BUILD_DIR is build/dist, the released linux-x64 build (scripts/build.sh dist, made first if
# needed), whose binaries need glibc 2.28 or newer; where it cannot be made (it needs root and
# debootstrap for its Debian 11 sysroot), build/release, whose binaries need this machine's glibc,
# and it says so.
#   ilmap_<version>_amd64.deb, ilmap-dev_<version>_amd64.deb   the Debian packages (CPack,
#                                         CMakeLists.txt "packages"): the program and libilmap.so.1;
#                                         headers, static library, pkg-config and CMake files:
#                                         sudo apt install ./ilmap_<version>_amd64.deb [./ilmap-dev_...]
#   ilmap-<version>-py3-none-manylinux_X_Y_x86_64.whl (and _aarch64 with arm64): the Python
#                                         package with libilmap inside, tagged with the glibc its
#                                         library needs: python3 -m pip install ilmap-<version>-...whl
#   Ilmap.<version>.nupkg, Ilmap.Build.<version>.nupkg, dotnet-ilmap.<version>.nupkg (the .NET tool):
#                                         dotnet nuget add source "$PWD/DIR" --name ilmap-local,
#                                         then dotnet add package Ilmap (README.md "Install");
#                                         dotnet tool install --global dotnet-ilmap --add-source DIR
#   Ilmap.<version>.symbols.nupkg         the debug files of the Ilmap package's stripped
#                                         libilmap.so (runtimes/RID/native/libilmap.so.debug)
#   ilmap_<version>_arm64.deb, ilmap-dev_<version>_arm64.deb   the same two for linux-arm64
#   ilmap-<version>-win-x64.zip           win-x64: ilmap.exe, ilmap.dll (the C API), its header, import
#                                         library and .def, LICENSE, README.txt (package-windows-zip.sh)
# linux-arm64 (scripts/build.sh arm64, cross-compiled against its Debian 11 sysroot) is built when
# Debian's cross compiler is installed and the sysroot can be made, and then goes into the wheels
# and the NuGet packages too; the NuGet packages need dotnet and the wheel python3's pip and wheel:
# each one whose tool is missing is left out, and said so. win-x64 (scripts/build.sh windows,
# cross-compiled with mingw-w64, into build/windows) is built when mingw-w64 is installed, and
# then goes into the NuGet packages too. Prints the path of each artefact.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
note() { echo "package: $*" >&2; }
can_make_sysroot() { [[ $(id -u) -eq 0 ]] && command -v debootstrap >/dev/null; }
if [[ $# -ge 1 ]]; then
  build=$1
  shift
elif can_make_sysroot; then
  build=$root/build/dist
  [[ -f $build/CMakeCache.txt ]] || (cd "$root" && bash scripts/build.sh dist >&2)
else
  build=$root/build/release
  note "the released build (scripts/build.sh dist) needs root and debootstrap: packaging build/release, whose binaries need this machine's glibc"
fi
kinds=" ${*:-deb arm64 windows wheel nuget} "
want() { [[ $kinds == *" $1 "* ]]; }
if [[ ! -f $build/CMakeCache.txt ]]; then
  (cd "$root" && bash scripts/build.sh release)
  build=$root/build/release
fi
build=$(cd "$build" && pwd)
cmake --build "$build" -j"${ILMAP_JOBS:-2}" >/dev/null
out=$build/packages
rm -rf "$out"
mkdir -p "$out"
version=$(head -n 1 "$root/VERSION")
# Each in its own process: importing pip first makes setuptools' distutils check fail.
python_can_build_wheels() {
  local m
  for m in pip setuptools wheel; do /usr/bin/python3 -c "import $m" 2>/dev/null || return 1; done
}

# Debian package.
if want deb; then
  (cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || { cat "$out/cpack.log" >&2; exit 1; }
  rm -rf "$out/_CPack_Packages" "$out/cpack.log"
fi

# linux-arm64: the same two Debian packages, from the cross build. CPack's install step needs
# every installed target (the static library too), so the whole tree is built; dpkg-shlibdeps
# reads arm64 libraries with DEB_HOST_ARCH=arm64 (the Debian packages :arm64 of the cross setup).
arm64=$root/build/arm64
if ! want arm64; then
  arm64=""
elif ! command -v aarch64-linux-gnu-g++ >/dev/null; then
  arm64=""
  note "no linux-arm64 build: aarch64-linux-gnu-g++ is not installed (scripts/install-deps.sh)"
elif ! can_make_sysroot && [[ ! -f $arm64/CMakeCache.txt ]]; then
  arm64=""
  note "no linux-arm64 build: its Debian 11 sysroot needs root and debootstrap (scripts/build.sh arm64)"
else
  (cd "$root" && bash scripts/build.sh arm64 >/dev/null)
  cmake --build "$arm64" -j"${ILMAP_JOBS:-2}" >/dev/null
  (cd "$arm64" && DEB_HOST_ARCH=arm64 cpack -G DEB -B "$out/arm64-cpack" >"$out/cpack-arm64.log" 2>&1) ||
    { cat "$out/cpack-arm64.log" >&2; exit 1; }
  mv "$out/arm64-cpack"/*.deb "$out/"
  rm -rf "$out/arm64-cpack" "$out/cpack-arm64.log"
fi

# win-x64: the zip (scripts/package-windows-zip.sh), from the cross build (incremental after the
# first: ccache, and scripts/windows-deps.sh's dependencies are built once).
windows=$root/build/windows
if ! want windows; then
  windows=""
elif ! command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
  windows=""
  note "no win-x64 build: x86_64-w64-mingw32-g++-posix is not installed (scripts/install-deps.sh installs it)"
else
  (cd "$root" && bash scripts/build.sh windows >/dev/null)
  bash "$root/scripts/package-windows-zip.sh" "$windows" "$out" >/dev/null
fi

# Python wheel.
if ! want wheel; then
  :
elif python_can_build_wheels; then
  bash "$root/integrations/python/build-wheel.sh" "$build" "$out" >/dev/null
  [[ -z $arm64 ]] || bash "$root/integrations/python/build-wheel.sh" "$arm64" "$out" >/dev/null
else
  note "no Python wheel: python3-pip, python3-setuptools or python3-wheel is missing (scripts/install-deps.sh)"
fi

# NuGet packages: the library, the MSBuild integration, the .NET tool.
if ! want nuget; then
  :
elif command -v dotnet >/dev/null; then
  # shellcheck source=../integrations/dotnet/env.sh
  source "$root/integrations/dotnet/env.sh"
  # The native files, libilmap.so stripped and its debug file kept for Ilmap's .symbols.nupkg.
  native=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-native.XXXXXX")
  bash "$root/integrations/dotnet/stage-native.sh" "$native" "$build" "$arm64" "$windows" \
    || { rm -rf "$native"; exit 1; }
  for p in Ilmap Ilmap.Build Ilmap.Tool; do
    dotnet pack "$root/integrations/dotnet/$p/$p.csproj" -c Release -o "$out" "${ilmap_restore_args[@]}" \
      --artifacts-path "$build/dotnet/pack" -p:IlmapNativeDir="$native" -v quiet "${ilmap_build_args[@]}" \
      >"$out/pack-$p.log" 2>&1 || { cat "$out/pack-$p.log" >&2; rm -rf "$native"; exit 1; }
    rm -f "$out/pack-$p.log"
  done
  rm -rf "$native"
else
  note "no NuGet packages: dotnet is not installed"
fi
shopt -s nullglob
made=("$out"/*.deb "$out"/*.zip "$out"/*.whl "$out"/*.nupkg)
[[ ${#made[@]} -gt 0 ]] || { echo "package: nothing was made" >&2; exit 1; }
printf '%s\n' "${made[@]}"
