#!/usr/bin/env bash
# zip.sh WINDOWS_BUILD_DIR REPO_ROOT - scripts/package-windows-zip.sh, the win-x64 zip of
# scripts/package.sh (KIND windows): the names it holds and nothing else, under one folder
# ilmap-<version>-win-x64/; ilmap.exe, ilmap.dll and the import library byte for byte the build's,
# both images pei-x86-64; README.txt CRLF and naming every file; every entry dated 1980-01-01
# 00:00; and two packs of the same build give the same bytes.
# Exit 0 pass, 1 fail, 77 skip (no Windows build).
set -uo pipefail
export LC_ALL=C
win=$1 root=$(realpath "$2")
[[ -f $win/tools/ilmap.exe && -f $win/capi/ilmap.dll ]] || { echo "SKIP: no win-x64 build with ilmap.dll in $win (scripts/build.sh windows)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-winzip.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
version=$(head -n 1 "$root/VERSION")
top=ilmap-$version-win-x64
z1=$(bash "$root/scripts/package-windows-zip.sh" "$win" "$work/a") || { echo "FAIL: package-windows-zip.sh"; exit 1; }
# Again from a copy of the build whose files have new times: a time taken from the clock or the
# files would show.
mkdir -p "$work/win/tools" "$work/win/capi"
cp "$win/tools/ilmap.exe" "$work/win/tools/" && cp "$win/capi/ilmap.dll" "$win/capi/libilmap.dll.a" "$win/capi/ilmap.def" "$work/win/capi/"
touch -d '2030-06-01 12:34:56' "$work/win"/*/*
z2=$(bash "$root/scripts/package-windows-zip.sh" "$work/win" "$work/b") || { echo "FAIL: package-windows-zip.sh, again"; exit 1; }
[[ $(basename "$z1") == "$top.zip" ]] || fail "named $(basename "$z1"), not $top.zip"
cmp -s "$z1" "$z2" && echo "ok   two packs give the same bytes ($(stat -c %s "$z1") bytes)" || fail "two packs of one build differ"

want="$top/LICENSE $top/README.txt $top/ilmap.dll $top/ilmap.exe $top/include/ilmap/ilmap.h $top/lib/ilmap.def $top/lib/libilmap.dll.a"
got=$(python3 -c 'import sys, zipfile; print(" ".join(i.filename for i in zipfile.ZipFile(sys.argv[1]).infolist()))' "$z1")
[[ $got == "$want" ]] && echo "ok   the entries, sorted: $got" || fail "entries: '$got', want '$want'"
dates=$(python3 -c 'import sys, zipfile; print(sorted({i.date_time for i in zipfile.ZipFile(sys.argv[1]).infolist()}))' "$z1")
[[ $dates == "[(1980, 1, 1, 0, 0, 0)]" ]] && echo "ok   every entry dated 1980-01-01 00:00" || fail "dates: $dates"

mkdir -p "$work/x" && (cd "$work/x" && unzip -q "$z1")
for f in ilmap.exe:tools/ilmap.exe ilmap.dll:capi/ilmap.dll lib/libilmap.dll.a:capi/libilmap.dll.a include/ilmap/ilmap.h:../../include/ilmap/ilmap.h; do
  [[ ${f#*:} == ../* ]] && src=$root/include/ilmap/ilmap.h || src=$win/${f#*:}
  cmp -s "$work/x/$top/${f%%:*}" "$src" || fail "${f%%:*} is not the build's $src"
done
for f in ilmap.exe ilmap.dll; do
  fmt=$(x86_64-w64-mingw32-objdump -f "$work/x/$top/$f" 2>/dev/null | sed -n 's/.*file format //p')
  [[ -z $fmt || $fmt == pei-x86-64 ]] || fail "$f is '$fmt', not pei-x86-64"
done
echo "ok   ilmap.exe, ilmap.dll, ilmap.h and libilmap.dll.a are the build's files"
readme=$work/x/$top/README.txt
[[ $(grep -c $'\r$' "$readme") -eq $(wc -l <"$readme") ]] || fail "README.txt is not CRLF throughout"
for f in ilmap.exe ilmap.dll include/ilmap/ilmap.h lib/libilmap.dll.a lib/ilmap.def LICENSE; do
  grep -q "^$f " "$readme" || fail "README.txt does not name $f"
done
echo "ok   README.txt (CRLF) names every file"
[[ $fails -eq 0 ]] || { echo "$fails failed"; exit 1; }
echo "all passed"
