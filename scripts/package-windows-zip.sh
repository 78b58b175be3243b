#!/usr/bin/env bash
# package-windows-zip.sh WINDOWS_BUILD OUT_DIR - writes OUT_DIR/ilmap-<version>-win-x64.zip from the
# win-x64 build (scripts/build.sh windows) and prints its path; scripts/package.sh calls it (KIND
# windows). One folder, ilmap-<version>-win-x64/, holding:
#   ilmap.exe, ilmap.dll          the program and the C API, as built (only Windows' own DLLs needed)
#   include/ilmap/ilmap.h         the C API's header (the other headers are libilmap.a's C++ API,
#                                 which the win-x64 build does not ship)
#   lib/libilmap.dll.a            ilmap.dll's import library (MinGW: -lilmap)
#   lib/ilmap.def                 its exports, for MSVC's `lib /def:ilmap.def /machine:x64`
#   LICENSE, README.txt           the licence; what is inside (CRLF)
# Deterministic: the same files give the same bytes (entries sorted, every time 1980-01-01 00:00,
# zip's earliest, mode 0644, deflate level 9), so two packs of one build are equal.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 WINDOWS_BUILD OUT_DIR" >&2
  exit 1
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
win=$1 out=$2
version=$(head -n 1 "$root/VERSION")
for f in tools/ilmap.exe capi/ilmap.dll capi/libilmap.dll.a capi/ilmap.def; do
  [[ -f $win/$f ]] || { echo "package-windows-zip.sh: no $win/$f (scripts/build.sh windows)" >&2; exit 1; }
done
stage=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-win.XXXXXX")
trap 'rm -rf "$stage"' EXIT
top=$stage/ilmap-$version-win-x64
mkdir -p "$top/include/ilmap" "$top/lib"
cp "$win/tools/ilmap.exe" "$win/capi/ilmap.dll" "$root/LICENSE" "$top/"
cp "$win/capi/libilmap.dll.a" "$win/capi/ilmap.def" "$top/lib/"
cp "$root/include/ilmap/ilmap.h" "$top/include/ilmap/"
sed 's/$/\r/' >"$top/README.txt" <<TXT
ilmap $version for 64-bit Windows (win-x64)

ilmap.exe              the ilmap program (ilmap --help lists its commands)
ilmap.dll              the C API of include/ilmap/ilmap.h: the cache reader, compile, symbolication
include/ilmap/ilmap.h  the C header
lib/libilmap.dll.a     the import library of ilmap.dll, for MinGW (-lilmap)
lib/ilmap.def          its exports; with MSVC: lib /def:ilmap.def /machine:x64 /out:ilmap.lib
LICENSE                the licence (MIT)

Both need only Windows' own DLLs. Put ilmap.dll beside the program that uses it.
Documentation: README.md and docs/ in the ilmap sources.
TXT
mkdir -p "$out"
zip=$(cd "$out" && pwd)/ilmap-$version-win-x64.zip
python3 - "$stage" "$zip" <<'PY'
import os, sys, zipfile
stage, target = sys.argv[1], sys.argv[2]
paths = sorted(os.path.relpath(os.path.join(d, f), stage).replace(os.sep, "/")
               for d, _, fs in os.walk(stage) for f in fs)
with zipfile.ZipFile(target + ".tmp", "w") as z:
    for p in paths:
        info = zipfile.ZipInfo(p, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(os.path.join(stage, p), "rb") as f:
            z.writestr(info, f.read(), compresslevel=9)
os.replace(target + ".tmp", target)
PY
echo "$zip"
