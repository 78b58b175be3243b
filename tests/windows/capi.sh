#!/usr/bin/env bash
# capi.sh LINUX_ILMAP LINUX_CAPI_TEST LINUX_LIBILMAP WINDOWS_BUILD_DIR REPO_ROOT [ILMAP_DLL] - the C API
# of the win-x64 ilmap.dll (scripts/build.sh windows) under Wine, against the Linux libilmap.so:
#   - ilmap.dll is a PE32+ x86-64 image that imports only Windows' own DLLs and exports exactly
#     the functions libilmap.so exports (capi/ilmap.def, generated from include/ilmap/ilmap.h);
#   - tests/capi/capi_test.c, compiled here with mingw-w64 against the shipped files alone (the
#     headers and the import library libilmap.dll.a), runs under Wine with ilmap.dll beside it:
#     tests/capi/capi_test.sh's checks pass with it (compile, symbolicate, module lookup, fetch,
#     lines, misuse: against the Linux ilmap program and the runtime's recorded traces);
#   - on the same inputs and caches its answers are the Linux C API test's, byte for byte.
# ILMAP_DLL (default: the build's capi/ilmap.dll) is the DLL to test: integrations/dotnet's
# test-build.sh passes the one it takes out of the Ilmap .nupkg.
# Exit 0 pass, 1 fail, 77 skip (no Windows build, no wine64, no mingw-w64 C compiler).
set -uo pipefail
export LC_ALL=C
lin=$(realpath "$1") lin_capi=$(realpath "$2") lin_lib=$(realpath "$3") win=$4 root=$(realpath "$5")
dll=${6:-$win/capi/ilmap.dll}
cc=$(command -v x86_64-w64-mingw32-gcc-posix || command -v x86_64-w64-mingw32-gcc || true)
[[ -n $cc ]] || { echo "SKIP: no mingw-w64 C compiler (scripts/install-deps.sh installs it)"; exit 77; }
. "$(dirname "$0")/wine-env.sh"
objdump=x86_64-w64-mingw32-objdump
implib=$win/capi/libilmap.dll.a
[[ -f $dll && -f $implib ]] || { fail "no ilmap.dll and libilmap.dll.a in $win/capi (scripts/build.sh windows makes them)"; wine_finish; }

# The image: PE32+ x86-64, Windows' own DLLs only, the C API's exports and nothing else.
format=$($objdump -f "$dll" | sed -n 's/.*file format //p')
[[ $format == pei-x86-64 ]] && echo "ok   ilmap.dll is pei-x86-64" || fail "ilmap.dll is a '$format' file, not pei-x86-64"
dlls=$($objdump -p "$dll" | sed -n 's/^\s*DLL Name: //p' | tr 'A-Z' 'a-z' | sort | tr '\n' ' ')
for d in $dlls; do
  case $d in kernel32.dll|msvcrt.dll|bcrypt.dll|advapi32.dll|shell32.dll|user32.dll|ws2_32.dll|ntdll.dll|crypt32.dll|secur32.dll|winmm.dll) ;;
    *) fail "ilmap.dll needs $d, which is not part of Windows (static runtime expected)" ;; esac
done
echo "ok   ilmap.dll imports only Windows' own DLLs: $dlls"
# objdump -p's export table: "[   n] name" rows under "[Ordinal/Name Pointer] Table".
$objdump -p "$dll" | awk '/^\[Ordinal\/Name Pointer\] Table/ { t = 1; next } t && /^[ \t]*\[/ { print $NF; next } t { exit }' \
  | sort >"$work/exports.win"
nm -D --defined-only "$lin_lib" | awk '$2 ~ /^[TtWDBR]$/ && $3 !~ /^ILMAP_/ { sub(/@.*/, "", $3); print $3 }' | sort -u >"$work/exports.lin"
if [[ -s $work/exports.win ]] && cmp -s "$work/exports.win" "$work/exports.lin"; then
  echo "ok   ilmap.dll exports the $(wc -l <"$work/exports.win") functions libilmap.so exports, and nothing else"
else
  fail "exports differ (< libilmap.so, > ilmap.dll): $(diff "$work/exports.lin" "$work/exports.win" | grep '^[<>]' | head -n 6 | tr '\n' ' ')"
fi

# The C API test, built as a user of the zip builds one: headers, import library, ilmap.dll beside
# the program. binmode.o opens standard output binary, so the program writes LF as on Linux.
mkdir -p "$work/bin"
if ! "$cc" -std=c11 -O1 -Wall -Werror -I"$root/include" "$root/tests/capi/capi_test.c" \
     "$(dirname "$(realpath "$("$cc" -print-file-name=binmode.o)")")/binmode.o" "$implib" \
     -o "$work/bin/capi_test.exe" 2>"$work/cc.err"; then
  fail "capi_test.c does not build against ilmap.h and libilmap.dll.a: $(head -c 400 "$work/cc.err")"
  wine_finish
fi
cp "$dll" "$work/bin/ilmap.dll"
cat >"$work/capi_test_wine" <<SH
#!/bin/sh
exec "$wine" "$work/bin/capi_test.exe" "\$@"
SH
chmod +x "$work/capi_test_wine"

# tests/capi's own checks, with the Windows program in the place of the Linux one.
# A known fault of the Windows build, not of ilmap.dll: mingw's stat() gives every file st_ino 0,
# so compile's "output is the input" check (symbols/CompileFile.cpp same_file) holds for any
# existing output on the same drive, and compiling over an existing cache is refused (exit 1),
# ilmap.exe's compile as well. While ilmap.exe shows it, capi_test.sh's two "compile again" checks
# are reported as known, not counted; every other failure is. Once the platform layer compares
# file identities (volume serial and file index), this exception stops applying by itself.
known=""
: >"$work/existing.ilmap"
w compile -q "$root/corpus/out/cs-frames/Ilmap.Corpus.Frames.dll" -o "$work/existing.ilmap" 2>"$work/known.err" \
  || { grep -q 'output is the input' "$work/known.err" && known=yes; }
[[ -z $known ]] || echo "KNOWN ilmap.exe refuses to compile over an existing file (st_ino 0 on Windows): $(head -c 200 "$work/known.err")"
"$root/tests/capi/capi_test.sh" "$lin" "$work/capi_test_wine" "$root" >"$work/capi.out" 2>&1
failed=$(grep '^FAIL' "$work/capi.out")
[[ -z $known ]] || failed=$(grep -v '^FAIL compile again' <<<"$failed")
left_out=""
[[ -z $known ]] || left_out="; the known fault's $(grep -c '^FAIL compile again' "$work/capi.out") left out"
if [[ -z $failed ]] && grep -qE '^all passed|^[0-9]+ failed' "$work/capi.out"; then
  echo "ok   tests/capi/capi_test.sh passes with ilmap.dll under Wine ($(grep -c '^ok' "$work/capi.out") checks$left_out)"
else
  fail "tests/capi/capi_test.sh with ilmap.dll: $(head -n 6 <<<"${failed:-$(tail -n 3 "$work/capi.out")}" | tr '\n' ' ')"
fi

# The same calls through both libraries, on the same inputs: the same bytes out.
corpus=$root/corpus
frames=$corpus/out/cs-frames
fdll=$frames/Ilmap.Corpus.Frames.dll
"$lin" compile -q "$fdll" -o "$work/frames.ilmap"
IFS=$'\t' read -r token il < <(awk -F'\t' 'NR > 1 && $3 == "Ilmap.Corpus.Frames" && $7 + 0 > 0 { print $4 "\t" $5; exit }' \
  "$corpus/runtime-frames.tsv")
same=0 n=0
both() {  # NAME ARGS...: capi_test ARGS with each library (its own output folder), stdout and stderr compared
  local name=$1 rc_l=0 rc_w=0
  shift
  n=$((n + 1))
  rm -rf "$work/o" && mkdir -p "$work/o"
  "$lin_capi" "${@//@OUT@/$work/o/lin}" >"$work/lin.out" 2>"$work/lin.err" || rc_l=$?
  "$work/capi_test_wine" "${@//@OUT@/$work/o/win}" >"$work/win.out" 2>"$work/win.err" || rc_w=$?
  sed -i "s|$work/o/lin|@OUT@|g" "$work/lin.out" "$work/lin.err"
  sed -i "s|$work/o/win|@OUT@|g" "$work/win.out" "$work/win.err"
  if [[ $rc_l -eq $rc_w ]] && cmp -s "$work/lin.out" "$work/win.out" && cmp -s "$work/lin.err" "$work/win.err"; then
    same=$((same + 1))
    if [[ -f $work/o/lin.ilmap ]] && ! cmp -s "$work/o/lin.ilmap" "$work/o/win.ilmap"; then
      same=$((same - 1)); fail "$name: the caches differ"
    fi
  else
    fail "$name: exit $rc_w on Windows, $rc_l on Linux; (< Linux, > Windows) $(diff "$work/lin.out" "$work/win.out" | head -n 4 | cat -A | head -c 300) $(diff "$work/lin.err" "$work/win.err" | head -n 2 | head -c 200)"
  fi
}
both "compile" compile "$fdll" @OUT@.ilmap
both "compile a missing input" compile "$work/missing.dll" @OUT@.ilmap
both "symbolicate" symbolicate "$frames" @OUT@ "$corpus/traces/cs-frames.il-offsets.txt"
both "symbolicate with columns" symbolicate "$frames" @OUT@ "$corpus/traces/cs-frames.il-offsets.txt" columns
both "module by file name" module "$frames" @OUT@ 0 Ilmap.Corpus.Frames.dll "$token" "$il"
both "module, no such method" module "$frames" @OUT@ 0 Ilmap.Corpus.Frames.dll 0x06ffffff 0
bp=$corpus/out/cs-breakpoints/Ilmap.Corpus.Breakpoints.dll
if [[ -f $bp ]]; then
  "$lin" compile -q "$bp" -o "$work/bp.ilmap"
  for rule in -1 0 1 7; do both "lines Program.cs:32 rule $rule" lines "$work/bp.ilmap" Program.cs 32 "$rule"; done
fi
both "misuse" misuse "$frames"
[[ $same -eq $n ]] && echo "ok   $n C API calls answer the same bytes through ilmap.dll and libilmap.so"

wine_finish
