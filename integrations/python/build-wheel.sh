#!/usr/bin/env bash
# build-wheel.sh BUILD_DIR OUT_DIR - builds the wheel of the Python package ilmap into OUT_DIR
# (ilmap-<version>-py3-none-<platform>.whl) with BUILD_DIR/capi/libilmap.so.1 inside it.
# The package is copied to a temporary folder first, so the source tree gets no build files.
# Uses Debian's python3 with python3-pip, python3-setuptools and python3-wheel (no network,
# no build isolation). Prints the wheel's path last.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR OUT_DIR" >&2; exit 2; }
build=$1 out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${ILMAP_PYTHON:-/usr/bin/python3}
lib=$build/capi/libilmap.so.1
[[ -f $lib ]] || { echo "build-wheel: $lib not found (build the library first)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$out"
cp -r "$here/ilmap" "$here/pyproject.toml" "$here/setup.py" "$here/README.md" "$work/src/"
cp "$here/../../LICENSE" "$work/src/LICENSE"
find "$work/src" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$work/src/ilmap/_lib"
cp -L "$lib" "$work/src/ilmap/_lib/libilmap.so.1"

# --no-build-isolation: setuptools and wheel come from Debian, not from an index.
"$python" -m pip wheel --quiet --no-deps --no-build-isolation --no-index --wheel-dir "$work/dist" "$work/src"
wheel=$(ls "$work/dist"/ilmap-*.whl)
cp "$wheel" "$out/"
echo "$out/${wheel##*/}"
