#!/usr/bin/env bash
# stores.sh LINUX_ILMAP WINDOWS_BUILD_DIR REPO_ROOT - ilmap.exe's stores, HTTP and NuGet packages
# under Wine, each against what the Linux program does with the same inputs:
#   - ilmap.exe has libcurl (Schannel) and libzip linked in and still imports only Windows' DLLs;
#   - `store add` into a Z:\...\ folder (drive letter, backslashes) writes the same tree, byte for
#     byte, as on Linux, for a folder of PE+PDB and for a .snupkg (made here with mkzip.py, its PDB
#     deflated: libzip over zlib); `store get KEY -o` copies the stored PDB out unchanged;
#   - `fetch` through _NT_SYMBOL_PATH=srv*Z:\...\cache*http://127.0.0.1:PORT/... from nginx (the
#     store's caches preferred; a store of PDBs only, whose caches are compiled here; SRV* and
#     cache* forms) leaves a download cache equal to the Linux program's; srv*URL alone downloads
#     under %LOCALAPPDATA%\ilmap\symbols; over HTTPS (Schannel) with SSL_CERT_FILE naming the
#     test's CA the same, and without it a refusal that names the certificate;
#   - a cache replaced (store get KEY -o) while another process holds it open without
#     FILE_SHARE_DELETE (holdopen.c, as a scanner does): held briefly, the replace is retried and
#     succeeds; held past the retries, it fails with a message naming the file, the old bytes
#     intact and no temporary left; with the holder gone it succeeds.
# Exit 0 pass, 1 fail, 77 skip (no Windows build, no wine64, no nginx).
set -uo pipefail
export LC_ALL=C
lin=$(realpath "$1") win=$2 root=$(realpath "$3")
here=$(realpath "$(dirname "$0")")
. "$here/wine-env.sh"
. "$here/../cli/nginx.sh"
cd "$work" || exit 1
# Z:\... form of a Linux path (Wine maps the Unix root as Z:).
zp() { local p; p=$(realpath -m "$1"); printf 'Z:%s' "${p//\//\\}"; }
frames=$root/corpus/out/cs-frames/Ilmap.Corpus.Frames
features=$root/corpus/out/cs-features/Ilmap.Corpus.Features
for f in "$frames".pdb "$frames".dll "$features".pdb "$features".dll; do
  [[ -f $f ]] || { echo "SKIP: corpus input $f absent"; exit 77; }
done

# The libraries are in the program: no libcurl.so.4 / libzip.so.4 to load, only Windows' DLLs.
if command -v x86_64-w64-mingw32-objdump >/dev/null; then
  dlls=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^\s*DLL Name: //p' | tr 'A-Z' 'a-z' | sort | tr '\n' ' ')
  bad=0
  for d in $dlls; do
    case $d in kernel32.dll|msvcrt.dll|bcrypt.dll|advapi32.dll|shell32.dll|user32.dll|ws2_32.dll|ntdll.dll|crypt32.dll|secur32.dll|winmm.dll) ;;
      *) fail "ilmap.exe needs $d, which is not part of Windows"; bad=1 ;; esac
  done
  [[ " $dlls " == *" ws2_32.dll "* && " $dlls " == *" crypt32.dll "* ]] || { fail "ilmap.exe imports no ws2_32/crypt32: is libcurl linked? ($dlls)"; bad=1; }
  [[ $bad -eq 0 ]] && echo "ok   ilmap.exe imports only Windows' own DLLs: $dlls"
fi
if grep -q -a -e 'libcurl\.so\.4' -e 'libzip\.so\.4' "$exe"; then fail "ilmap.exe still names libcurl.so.4 or libzip.so.4"; fi

# store add of a folder, into a drive-letter folder: the same tree as the Linux program's.
mkdir in && cp "$frames".pdb "$frames".dll "$features".pdb "$features".dll in/
"$lin" store add st-lin in >lin.out 2>&1 || fail "Linux store add: $(head -c 300 lin.out)"
if w store add --jobs 4 "$(zp st-win)" "$(zp in)" >win.out 2>&1 && diff -r st-lin st-win >diff.out; then
  echo "ok   store add Z:\\...\\st-win Z:\\...\\in: the same $(find st-win -type f | wc -l) files as on Linux"
else
  fail "store add into a Z:\\ folder: $(head -c 300 win.out) $(head -n 4 diff.out)"
fi
# Worker threads end cleanly: mingw-w64's emulated TLS could free a thread_local's storage before
# its destructor ran at thread exit (support/ThreadLocal.h), so a worker's exit crashed the run or
# left the store incomplete (9 of 10 runs with 4 jobs here, before the fix). Ten runs, each exit 0
# with the same store.
crashed=0
for ((i = 0; i < 10; i++)); do
  rm -rf st-again
  w store add --jobs 4 "$(zp st-again)" "$(zp in)" >win.out 2>&1 && diff -r -q st-lin st-again >/dev/null || crashed=$((crashed + 1))
done
[[ $crashed -eq 0 ]] && echo "ok   store add with 4 worker threads: 10 runs, each exit 0 and the same store" \
  || fail "store add with 4 worker threads failed $crashed of 10 runs: $(tr -d '\r' <win.out | head -c 300)"
key=$(cd st-lin && find . -name ilmap.corpus.frames.pdb -type f | sed 's#^\./##')
[[ -n $key ]] || fail "no ilmap.corpus.frames.pdb in the Linux store"
if w store get "$(zp st-win)" "$key" -o "$(zp got.pdb)" >win.out 2>&1 && cmp -s got.pdb "$frames".pdb; then
  echo "ok   store get Z:\\...\\st-win $key -o: the PDB's bytes"
else
  fail "store get: $(head -c 300 win.out)"
fi

# A .snupkg (a zip with a deflated PDB): read by libzip over zlib, stored as on Linux.
python3 "$here/../cli/mkzip.py" pkg.snupkg Ilmap.Corpus.Features.nuspec=nuspec:Ilmap.Corpus.Features/1.0.0 \
  "lib/net10.0/Ilmap.Corpus.Features.pdb=@$features.pdb:deflate" || fail "mkzip.py"
"$lin" store add pk-lin pkg.snupkg >lin.out 2>&1 || fail "Linux store add of the .snupkg: $(head -c 300 lin.out)"
if w store add "$(zp pk-win)" "$(zp pkg.snupkg)" >win.out 2>&1 && [[ -n $(find pk-win -name '*.ilmap') ]] \
   && diff -r pk-lin pk-win >diff.out; then
  echo "ok   store add of a .snupkg: the same $(find pk-win -type f | wc -l) files as on Linux"
else
  fail "store add of a .snupkg: $(head -c 300 win.out) $(head -n 4 diff.out)"
fi

# fetch from nginx on 127.0.0.1 through _NT_SYMBOL_PATH: /full/ serves the store with its caches,
# /pdbs/ the same without them (the PDB is downloaded and its cache compiled here).
mkdir www && cp -r st-lin www/full && cp -r st-lin www/pdbs && find www/pdbs -name '*.ilmap' -delete
make_test_ca "$work/tls"
NGINX_TLS=$work/tls start_nginx "$work/www"
trap 'kill $NGINX_PID 2>/dev/null; wait $NGINX_PID 2>/dev/null; wine_cleanup' EXIT
mkdir pe && cp "$frames".dll "$features".dll pe/
pes_lin=(pe/Ilmap.Corpus.Frames.dll pe/Ilmap.Corpus.Features.dll)
pes_win=("$(zp pe)\\Ilmap.Corpus.Frames.dll" "$(zp pe)\\Ilmap.Corpus.Features.dll")
n=0
# @C@ and @U@ stand for the cache folder and the server's URL (placeholders no temporary folder
# name can hold: mktemp's random letters once held a U).
for form in "srv*@C@*@U@/full" "SRV*@C@*@U@/pdbs/" "cache*@C@;Srv*@U@/pdbs"; do
  n=$((n + 1))
  l=${form//@U@/$URL}; l=${l//@C@/$work/fl-$n}
  wz=${form//@U@/$URL}; wz=${wz//@C@/$(zp "fw-$n")}
  _NT_SYMBOL_PATH=$l "$lin" fetch "${pes_lin[@]}" >lin.out 2>&1 || fail "Linux fetch ($l): $(head -c 300 lin.out)"
  if _NT_SYMBOL_PATH=$wz "$wine" "$exe" fetch --jobs 4 "${pes_win[@]}" >win.out 2>&1 && [[ -n $(find "fw-$n" -name '*.ilmap') ]] \
     && diff -r "fl-$n" "fw-$n" >diff.out; then
    f=${form//@C@/Z:\\...\\fw-$n}
    echo "ok   fetch with _NT_SYMBOL_PATH=${f//@U@/http://127.0.0.1:PORT}: the same download cache as on Linux"
  else
    fail "fetch with _NT_SYMBOL_PATH=$wz: $(tr -d '\r' <win.out | head -c 300) $(head -n 4 diff.out)"
  fi
done
# srv*URL alone: the download goes under the default cache directory, %LOCALAPPDATA%\ilmap.
appdata=$("$wine" cmd /c echo %LOCALAPPDATA% 2>/dev/null | tr -d '\r')
_NT_SYMBOL_PATH="srv*$URL/full" "$wine" "$exe" fetch --jobs 4 "${pes_win[0]}" >win.out 2>&1 || fail "fetch srv*URL: $(head -c 300 win.out)"
got=$(find "$WINEPREFIX/drive_c/users" -path '*/AppData/Local/ilmap/symbols/*' -name ilmap.corpus.frames.ilmap 2>/dev/null | head -n 1)
if [[ -n $got ]] && cmp -s "$got" "$(find fl-1 -name ilmap.corpus.frames.ilmap)"; then
  echo "ok   fetch with srv*URL: the cache is under %LOCALAPPDATA%\\ilmap\\symbols ($appdata)"
else
  fail "fetch with srv*URL: nothing under %LOCALAPPDATA%\\ilmap\\symbols ($appdata): $(head -c 300 win.out)"
fi

# HTTPS through Schannel: nginx's TLS port, its certificate signed by the test's CA. With
# SSL_CERT_FILE naming that CA (Z:\... form) the download cache is the Linux program's; without
# it, Windows' store does not know the CA and the fetch fails, naming the certificate.
_NT_SYMBOL_PATH="srv*$work/tl*$TLS_URL/full" SSL_CERT_FILE=$work/tls/ca.pem "$lin" fetch "${pes_lin[@]}" >lin.out 2>&1 \
  || fail "Linux fetch over HTTPS: $(head -c 300 lin.out)"
if _NT_SYMBOL_PATH="srv*$(zp tw)*$TLS_URL/full" SSL_CERT_FILE=$(zp tls/ca.pem) "$wine" "$exe" fetch "${pes_win[@]}" >win.out 2>&1 \
   && [[ -n $(find tw -name '*.ilmap') ]] && diff -r tl tw >diff.out; then
  echo "ok   fetch over HTTPS (Schannel, SSL_CERT_FILE=the test CA): the same download cache as on Linux"
else
  fail "fetch over HTTPS with SSL_CERT_FILE: $(tr -d '\r' <win.out | head -c 400) $(head -n 4 diff.out)"
fi
if _NT_SYMBOL_PATH="srv*$(zp tn)*$TLS_URL/full" "$wine" "$exe" fetch "${pes_win[0]}" >win.out 2>&1; then
  fail "fetch over HTTPS from a CA Windows does not know succeeded"
elif grep -qi 'certificate\|SEC_E_UNTRUSTED_ROOT\|schannel' win.out && [[ -z $(find tn -type f 2>/dev/null) ]]; then
  echo "ok   fetch over HTTPS without SSL_CERT_FILE: refused ($(tr -d '\r' <win.out | grep -o 'schannel[^(]*\|SEC_E_[A-Z_]*' | head -n 1)), nothing kept"
else
  fail "fetch over HTTPS without SSL_CERT_FILE: $(tr -d '\r' <win.out | head -c 400)"
fi

# A cache replaced while another process holds it open without FILE_SHARE_DELETE: `store get
# KEY -o` puts the stored cache in place atomically (a temporary, then MoveFileExW).
ckey=$(cd st-lin && find . -name ilmap.corpus.frames.ilmap -type f | sed 's#^\./##')
okey=$(cd st-lin && find . -name ilmap.corpus.features.ilmap -type f | sed 's#^\./##')
if [[ -z $ckey || -z $okey ]]; then
  fail "no caches in the Linux store"
elif x86_64-w64-mingw32-gcc-posix -O1 -o holdopen.exe "$here/holdopen.c" 2>cc.err; then
  hold() {  # hold FILE MS: starts holdopen under Wine and waits until it holds FILE
    rm -f ready
    "$wine" holdopen.exe "$(zp "$1")" "$2" "$(zp ready)" &
    holder=$!
    local i
    for i in $(seq 100); do [[ -f ready ]] && return 0; sleep 0.1; done
    fail "holdopen did not start"
  }
  mkdir held && cp "st-lin/$okey" held/c.ilmap
  hold held/c.ilmap 800
  if w store get "$(zp st-win)" "$ckey" -o "$(zp held/c.ilmap)" >win.out 2>&1 && cmp -s held/c.ilmap "st-lin/$ckey"; then
    echo "ok   a cache held open for 0.8 s: the replace is retried and succeeds"
  else
    fail "a cache held open for 0.8 s: $(tr -d '\r' <win.out | head -c 300); the file is $(cmp -s held/c.ilmap "st-lin/$okey" && echo the old one || echo neither)"
  fi
  wait "$holder"
  cp "st-lin/$okey" held/c.ilmap
  hold held/c.ilmap 6000
  rc=0
  w store get "$(zp st-win)" "$ckey" -o "$(zp held/c.ilmap)" >win.out 2>&1 || rc=$?
  msg=$(tr -d '\r' <win.out)
  left=$(ls held | tr '\n' ' ')
  if [[ $rc -ne 0 && $msg == *c.ilmap* ]] && cmp -s held/c.ilmap "st-lin/$okey" && [[ $left == "c.ilmap " ]]; then
    echo "ok   a cache held open past the retries: exit $rc, \"$(head -n 1 <<<"$msg")\", the old bytes intact, no temporary"
  else
    fail "a cache held open for 6 s: exit $rc, '$msg', folder: $left, the file is $(cmp -s held/c.ilmap "st-lin/$okey" && echo the old one || echo changed)"
  fi
  wait "$holder"
  # Once the holder is gone, the same command succeeds: what failed was only the hold.
  w store get "$(zp st-win)" "$ckey" -o "$(zp held/c.ilmap)" >win.out 2>&1 && cmp -s held/c.ilmap "st-lin/$ckey" \
    || fail "store get -o after the holder ended: $(tr -d '\r' <win.out | head -c 300)"
else
  fail "cannot compile holdopen.c: $(head -c 300 cc.err)"
fi
wine_finish
