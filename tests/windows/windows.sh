#!/usr/bin/env bash
# windows.sh LINUX_ILMAP WINDOWS_BUILD_DIR REPO_ROOT SHARED_DIR - the win-x64 build (scripts/build.sh
# windows: cross-compiled with mingw-w64) run under Wine against the Linux build of the same sources:
#   - ilmap.exe is a PE32+ x86-64 program that needs only Windows' own DLLs, and says the same version;
#   - it compiles every PDB of corpus/out (with its PE where one lies beside it) and of
#     SHARED_DIR/corpus-public into the same bytes as the Linux program;
#   - dump, verify and lines (every line of every document, with / and with \) print the same;
#   - its lookups of every frame of corpus/runtime-frames.tsv (the .NET runtime's) and its
#     symbolicate of the runtime's recorded trace print what the Linux program prints, and a CRLF
#     copy of the trace comes out CRLF, byte for byte as the Linux program writes it;
#   - `ilmap serve`, which this build does not have, says so and exits 1.
# Wine runs as wine-env.sh sets it up (a prefix under the test's temporary folder, one
# `wineserver -p` for the whole test).
# Exit 0 pass, 1 fail, 77 skip (no Windows build, no wine64).
set -uo pipefail
export LC_ALL=C
lin=$(realpath "$1") win=$2 root=$(realpath "$3") shared=$4
. "$(dirname "$0")/wine-env.sh"

format=$(x86_64-w64-mingw32-objdump -f "$exe" 2>/dev/null | sed -n 's/.*file format //p' || true)
[[ -z $format || $format == pei-x86-64 ]] || fail "ilmap.exe is a '$format' file, not pei-x86-64"
if command -v x86_64-w64-mingw32-objdump >/dev/null; then
  dlls=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^\s*DLL Name: //p' | tr 'A-Z' 'a-z' | sort | tr '\n' ' ')
  for d in $dlls; do
    case $d in kernel32.dll|msvcrt.dll|bcrypt.dll|advapi32.dll|shell32.dll|user32.dll|ws2_32.dll|ntdll.dll|crypt32.dll|secur32.dll|winmm.dll) ;;
      *) fail "ilmap.exe needs $d, which is not part of Windows (static runtime expected)" ;; esac
  done
  echo "ok   ilmap.exe imports only Windows' own DLLs: $dlls"
fi
vw=$(w --version | tr -d '\r') vl=$("$lin" --version)
[[ $vw == "$vl" ]] || fail "versions differ: $vw / $vl"

# Compile: the same bytes (or the same exit code and message). A PDB with a same-named PE
# beside it is compiled from the PE (names).
. "$root/tests/common/same-compile.sh"
corpus_inputs "$root" "$shared"
same_compiles "$lin" w Windows

# The same through a drive-letter path with backslashes (Z: is the Unix root under Wine).
frames_dll=$root/corpus/out/cs-frames/Ilmap.Corpus.Frames.dll
"$lin" compile -q "$frames_dll" -o "$work/frames.ilmap"
w compile -q "Z:${frames_dll//\//\\}" -o "Z:${work//\//\\}\\frames-z.ilmap" 2>"$work/z.err" \
  && cmp -s "$work/frames.ilmap" "$work/frames-z.ilmap" \
  && echo "ok   a Z:\\...\\Ilmap.Corpus.Frames.dll path compiles to the same bytes" \
  || fail "drive-letter path: $(head -c 300 "$work/z.err")"

# Lookups of the runtime's frames, on the Linux-compiled cache of their module.
awk -F'\t' 'NR > 1 && !/^#/ && $3 == "Ilmap.Corpus.Frames" { print $4, $5 }' "$root/corpus/runtime-frames.tsv" >"$work/queries"
[[ $(wc -l <"$work/queries") -ge 40 ]] || fail "few runtime frames: $(wc -l <"$work/queries")"
w lookup --batch "$work/frames.ilmap" <"$work/queries" >"$work/win.lookups" 2>&1
"$lin" lookup --batch "$work/frames.ilmap" <"$work/queries" >"$work/lin.lookups" 2>&1
if cmp -s "$work/win.lookups" "$work/lin.lookups" && [[ -s $work/win.lookups ]]; then
  echo "ok   $(wc -l <"$work/queries") runtime frames: the same lookups on Windows and Linux"
else
  fail "lookups differ: $(diff "$work/lin.lookups" "$work/win.lookups" | head -n 4)"
fi

# dump (of the PE with its PDB and of the cache), verify and lines (every line 1-200 of every
# document the dump names, each with its separators as written and with backslashes): the same
# bytes and exit codes on Windows and Linux.
same_run() {  # label, then ilmap's arguments; stdin is given to both
  local label=$1 rc_l=0 rc_w=0
  shift
  "$lin" "$@" <"$work/stdin" >"$work/lin.out" 2>"$work/lin.err2" || rc_l=$?
  w "$@" <"$work/stdin" >"$work/win.out" 2>"$work/win.err2" || rc_w=$?
  if [[ $rc_l -eq $rc_w ]] && cmp -s "$work/lin.out" "$work/win.out" && [[ -s $work/lin.out ]]; then
    echo "ok   $label: the same $(wc -l <"$work/lin.out") lines and exit $rc_l on Windows and Linux"
  else
    fail "$label: exit $rc_w on Windows, $rc_l on Linux; $(diff "$work/lin.out" "$work/win.out" | head -n 4)"
  fi
}
: >"$work/stdin"
same_run "dump of the PE" dump "$frames_dll"
same_run "dump of the cache" dump "$work/frames.ilmap"
same_run "verify" verify "$work/frames.ilmap"
"$lin" dump "$work/frames.ilmap" | awk '{ print $3 }' | sort -u >"$work/docs"
while read -r doc; do
  for ((line = 1; line <= 200; line++)); do echo "$doc:$line"; echo "${doc//\//\\}:$line"; done
done <"$work/docs" >"$work/stdin"
[[ $(wc -l <"$work/stdin") -ge 2000 ]] || fail "few lines queries: $(wc -l <"$work/stdin")"
same_run "lines of $(wc -l <"$work/docs") documents" lines --batch "$work/frames.ilmap"

# symbolicate of the runtime's trace, as it is (LF) and as a CRLF copy: the same bytes out.
trace=$root/corpus/traces/cs-frames.il-offsets.txt
sed 's/$/\r/' "$trace" >"$work/trace-crlf.txt"
for t in "$trace" "$work/trace-crlf.txt"; do
  kind=LF
  [[ $t == "$trace" ]] || kind=CRLF
  w symbolicate --search "$root/corpus/out/cs-frames" --cache-dir "$work/c-win" "$t" >"$work/win.sym" 2>"$work/win.sym.err"
  "$lin" symbolicate --search "$root/corpus/out/cs-frames" --cache-dir "$work/c-lin" "$t" >"$work/lin.sym" 2>/dev/null
  if cmp -s "$work/win.sym" "$work/lin.sym" && grep -q ':line [0-9]' "$work/win.sym"; then
    echo "ok   symbolicate of the runtime's trace ($kind): the same bytes on Windows and Linux"
  else
    fail "symbolicate ($kind) differs: $(diff "$work/lin.sym" "$work/win.sym" | head -n 4 | cat -A | head -c 400) $(head -c 300 "$work/win.sym.err")"
  fi
  if [[ $kind == CRLF ]]; then
    crlf=$(grep -c $'\r$' "$work/win.sym") lines=$(wc -l <"$work/win.sym")
    [[ $crlf -eq $lines && $lines -gt 0 ]] && echo "ok   the CRLF trace stays CRLF: $crlf of $lines lines" \
      || fail "the CRLF trace came out with $crlf CRLF lines of $lines"
  fi
done

# The commands this build lacks say so (exit 1, usage).
rc=0
w serve --port 0 >"$work/serve.out" 2>&1 || rc=$?
if [[ $rc -eq 1 ]] && grep -q "'serve' is not available in this build" "$work/serve.out"; then
  echo "ok   serve: not available in this build (exit 1)"
else
  fail "serve: exit $rc, $(head -c 200 "$work/serve.out")"
fi

wine_finish
