# wine-env.sh - sourced by the tests/windows scripts: finds wine64 and wineserver, makes a Wine
# prefix under a fresh temporary folder ($work) and keeps one `wineserver -p` for the whole test
# (each program then starts in about 0.1 s instead of seconds); both go at exit.
# Before sourcing: `win` (the Windows build folder); after: $wine, $wineserver, $exe (ilmap.exe),
# $work, fail MESSAGE (counts into $fails), w ARGS... (runs ilmap.exe), wine_finish (prints the
# tally and exits 0 or 1). It exits 77 (skip), saying why, where wine64 or the build is absent.
# Wine maps the Unix root as drive Z:, so Linux paths work as they are.
wine=$(command -v wine64 || { [[ -x /usr/lib/wine/wine64 ]] && echo /usr/lib/wine/wine64; } || command -v wine || true)
[[ -n $wine ]] || { echo "SKIP: wine64 not installed (Debian wine64; scripts/install-deps.sh)"; exit 77; }
wineserver=$(command -v wineserver || { [[ -x /usr/lib/wine/wineserver64 ]] && echo /usr/lib/wine/wineserver64; } || true)
[[ -n $wineserver ]] || { echo "SKIP: wineserver not installed (Debian wine64; scripts/install-deps.sh)"; exit 77; }
[[ -f $win/tools/ilmap.exe ]] || { echo "SKIP: no win-x64 build in $win (scripts/build.sh windows)"; exit 77; }
exe=$(realpath "$win/tools/ilmap.exe")
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-windows.XXXXXX")
export WINEPREFIX=$work/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" WINEARCH=win64
wine_cleanup() {
  "$wineserver" -k >/dev/null 2>&1
  rm -rf "$work"
}
trap wine_cleanup EXIT
export XDG_CACHE_HOME=$work/xdg HOME=$work/home
unset _NT_SYMBOL_PATH
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
w() { "$wine" "$exe" "$@"; }
wine_finish() {
  echo "     $((SECONDS - wine_start)) s under Wine in all"
  [[ $fails -eq 0 ]] || { echo "$fails failed"; exit 1; }
  echo "all passed"
  exit 0
}
# The prefix (wineboot: about 10 s, once), then a persistent server for the runs that follow.
wine_start=$SECONDS
mkdir -p "$WINEPREFIX"
"$wineserver" -p
"$wine" wineboot --init >/dev/null 2>&1
echo "     wine prefix made in $((SECONDS - wine_start)) s ($("$wine" --version 2>/dev/null))"
