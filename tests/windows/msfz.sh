#!/usr/bin/env bash
# msfz.sh LINUX_ILMAP WINDOWS_BUILD_DIR SHARED_DIR - MSFZ PDBs found where users keep them, by
# ilmap.exe under Wine, each against the Linux program on the same inputs (dotnet/diagnostics'
# HelloWorld.exe and HelloWorld.pdz of SHARED_DIR/corpus-more/msfz_diagnostics_HelloWorld):
#   - compile and symbolicate of HelloWorld.exe with only HelloWorld.pdz beside it (Z:\...\ paths):
#     the same cache bytes and the same output as on Linux;
#   - fetch --symbol-path Z:\...\store (a store holding only the .pdz, under its msfz0 key) and
#     from nginx on 127.0.0.1 (the plain key answered 404, then the msfz0 key): the same KEY and
#     a downloaded .pdz equal to the stored one.
# Exit 0 pass, 1 fail, 77 skip (no Windows build, no wine64, no nginx, no shared corpus).
set -uo pipefail
export LC_ALL=C
lin=$(realpath "$1") win=$2 shared=${3:-}
hw=$shared/corpus-more/msfz_diagnostics_HelloWorld
for f in HelloWorld.exe HelloWorld.pdz; do
  [[ -n $shared && -f $hw/$f ]] || { echo "SKIP: $hw/$f absent (the shared corpus)"; exit 77; }
done
here=$(realpath "$(dirname "$0")")
. "$here/wine-env.sh"
. "$here/../cli/nginx.sh"
cd "$work" || exit 1
zp() { local p; p=$(realpath -m "$1"); printf 'Z:%s' "${p//\//\\}"; }
mkdir beside pe && cp "$hw/HelloWorld.exe" "$hw/HelloWorld.pdz" beside/ && cp "$hw/HelloWorld.exe" pe/
printf '%s\r\n' '   at HelloWorld.Program.Main(String[] args) in HelloWorld.exe:token 0x6000001+0x1' >trace.txt

"$lin" compile -q beside/HelloWorld.exe -o lin.ilmap || fail "Linux compile beside the .pdz"
if w compile -q "$(zp beside/HelloWorld.exe)" -o "$(zp win.ilmap)" >win.out 2>&1 && cmp -s lin.ilmap win.ilmap; then
  echo "ok   compile Z:\\...\\HelloWorld.exe beside its .pdz: the Linux cache's bytes"
else
  fail "compile beside the .pdz: $(tr -d '\r' <win.out | head -c 300)"
fi
"$lin" symbolicate --search beside --cache-dir c-lin --columns trace.txt >lin.txt 2>/dev/null
w symbolicate --search "$(zp beside)" --cache-dir "$(zp c-win)" --columns "$(zp trace.txt)" >win.txt 2>win.err
if grep -q 'Program.cs:line 13:9' lin.txt && cmp -s lin.txt win.txt; then
  echo "ok   symbolicate --search Z:\\...\\beside: the Linux output ($(tr -d '\r' <win.txt | sed 's/.* in //'))"
else
  fail "symbolicate beside the .pdz: $(tr -d '\r' <win.txt win.err | head -c 300)"
fi

"$lin" store add store "$hw/HelloWorld.pdz" >/dev/null || fail "Linux store add of the .pdz"
K=helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/msfz0/helloworld.pdb
if w fetch --symbol-path "$(zp store)" "$(zp pe/HelloWorld.exe)" >win.out 2>&1 && [[ $(tr -d '\r' <win.out | cut -f1) == "$K" ]]; then
  echo "ok   fetch --symbol-path Z:\\...\\store: $K"
else
  fail "fetch from a folder store holding only the .pdz: $(tr -d '\r' <win.out | head -c 300)"
fi
start_nginx "$work/store"
# start_nginx's trap stops nginx only: the Wine server and $work must go too.
trap 'kill $NGINX_PID 2>/dev/null; wait $NGINX_PID 2>/dev/null; wine_cleanup' EXIT
if w fetch --symbol-path "srv*$(zp dl)*$URL" "$(zp pe/HelloWorld.exe)" >win.out 2>&1 && cmp -s "dl/$K" "$hw/HelloWorld.pdz" \
   && grep -q "/helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/helloworld.pdb 404" "$NGINX_LOG" \
   && grep -q "/$K 200" "$NGINX_LOG"; then
  echo "ok   fetch from nginx: the plain key 404, the msfz0 key 200, the .pdz kept under its key"
else
  fail "fetch from nginx: $(tr -d '\r' <win.out | head -c 300) $(head -n 4 "$NGINX_LOG")"
fi
wine_finish
