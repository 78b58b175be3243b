#!/usr/bin/env bash
# deb.sh CMAKE BUILD_DIR SOURCE_DIR VERSION CORPUS_DIR - builds the Debian package of BUILD_DIR
# (scripts/package.sh), installs it with `apt-get install ./ilmap_*.deb` as a user would, and
# checks the installed files: /usr/bin/ilmap reports VERSION and symbolicates CoreCLR's real
# ShowILOffsets trace (corpus/traces) to the lines the runtime printed with the PDB present
# (corpus/runtime-frames.tsv: first frame); pkg-config and find_package(ilmap CONFIG) find the
# library without any path (tests/install/consumer-check.sh); then removes the package and checks
# nothing of it is left. Exit 0 pass, 1 fail, 77 skip (not root, no apt, not allowed, or an
# ilmap package already installed, which it will not replace).
set -euo pipefail
export LC_ALL=C
cmake=$1 build=$2 src=$3 version=$4 corpus=$5
[[ ${ILMAP_SYSTEM_INSTALL_TESTS:-} == 1 ]] ||
  { echo "SKIP: installs a package system-wide; set ILMAP_SYSTEM_INSTALL_TESTS=1 (scripts/test.sh does as root)"; exit 77; }
[[ $(id -u) -eq 0 ]] || { echo "SKIP: apt install needs root"; exit 77; }
command -v apt-get >/dev/null || { echo "SKIP: apt-get not found"; exit 77; }
if dpkg-query -W -f='${Status}' ilmap 2>/dev/null | grep -q "install ok installed"; then
  echo "SKIP: an ilmap package is already installed; not replacing it"; exit 77
fi
trace=$corpus/traces/cs-frames.il-offsets.txt
frames=$corpus/out/cs-frames
[[ -f $trace && -f $frames/Ilmap.Corpus.Frames.pdb ]] || { echo "SKIP: corpus trace or cs-frames not built"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-deb.XXXXXX")
installed=0
cleanup() {
  [[ $installed == 1 ]] && DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq --purge ilmap >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

deb=$(bash "$src/scripts/package.sh" "$build" deb | tail -n1)
[[ -f $deb ]] || fail "scripts/package.sh made no .deb"
# The libraries loaded with dlopen (symbol servers, NuGet packages, serve) are recommended.
recommends=$(dpkg-deb -f "$deb" Recommends)
for lib in libcurl4 libzip4 libmicrohttpd12; do
  [[ ", $recommends," == *", $lib,"* ]] || fail "Recommends '$recommends' lacks $lib"
done
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; fail "apt-get install $deb"; }
installed=1
[[ $(command -v ilmap) == /usr/bin/ilmap ]] || fail "ilmap on PATH is '$(command -v ilmap)', want /usr/bin/ilmap"
[[ $(/usr/bin/ilmap --version) == "ilmap $version" ]] || fail "/usr/bin/ilmap --version: $(/usr/bin/ilmap --version)"

# The installed program on a real runtime trace: the first frame of the runtime's own listing.
IFS=$'\t' read -r file line < <(awk -F'\t' 'NR > 1 && $1 !~ /^#/ && $7 + 0 > 0 { print $6 "\t" $7; exit }' "$corpus/runtime-frames.tsv")
(cd "$work" && XDG_CACHE_HOME=$work/xdg /usr/bin/ilmap symbolicate --search "$frames" "$trace" >"$work/out.txt" 2>"$work/err.txt") ||
  { cat "$work/err.txt"; fail "installed ilmap symbolicate"; }
grep -qF " in $file:line $line" "$work/out.txt" || fail "installed ilmap symbolicate: no frame resolved to $file:line $line"

[[ $(pkg-config --modversion ilmap) == "$version" ]] || fail "pkg-config --modversion ilmap (system): $(pkg-config --modversion ilmap 2>&1)"
bash "$src/tests/install/consumer-check.sh" "$cmake" "" /usr/bin/ilmap "$src/tests/cache" "$corpus"

DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq --purge ilmap >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get remove ilmap"; }
installed=0
for f in /usr/bin/ilmap /usr/include/ilmap /usr/lib/cmake/ilmap /usr/lib/pkgconfig/ilmap.pc /usr/lib/libilmap.so.1; do
  [[ ! -e $f ]] || fail "$f left after apt-get remove --purge ilmap"
done
echo "ok: $(basename "$deb"): apt install, symbolicate, pkg-config, find_package, apt remove"
