#!/usr/bin/env bash
# guard.sh LINUX_ILMAP WINDOWS_BUILD_DIR REPO_ROOT - a compile input that stops being readable
# while ilmap.exe maps it (support/win32/MappingGuard.cpp), under Wine, against the Linux program.
# Windows will not let a process shorten a file another maps, and the faults that remain on
# Windows (EXCEPTION_IN_PAGE_ERROR: a network drive gone, a read error) cannot be made here; a
# Linux `truncate` of the file under Wine's feet makes the nearest fault (Wine raises an access
# violation for the read). The test hook ILMAP_TEST_SHRINK_INPUT (support/FileBytes.h) makes
# ilmap.exe ask for it right after mapping the PDB (PATH.shrink-wanted), and this script does it:
#   - the error and exit status are the Linux program's with the same hook (exit 2, "input file
#     changed while being read"), no cache is written, nothing crashes;
#   - the same compile without the hook gives the Linux cache's bytes (the guard changes nothing
#     for an input that stays whole);
#   - Ctrl+C (SIGINT to the Wine process: CTRL_C_EVENT) during a compile into a folder named in
#     letters outside ASCII removes the live temporary; a temporary left there by a killed run
#     goes with the next compile; a --cache-dir made there has its own name (the C runtime's
#     unlink, mkdir, mkstemp and readdir read the ANSI code page: support/win32/PosixCompat.cpp).
# Before the guard, ilmap.exe died of the unhandled exception (Wine's crash dialog, exit 5 or so).
# Exit 0 pass, 1 fail, 77 skip (no Windows build, no wine64, no corpus program).
set -uo pipefail
export LC_ALL=C.UTF-8  # Wine reads the arguments in the locale's code set
lin=$(realpath "$1") win=$2 root=$(realpath "$3")
pdb=$root/corpus/out/cs-frames/Ilmap.Corpus.Frames.pdb
[[ -f $pdb ]] || { echo "SKIP: $pdb absent (corpus/build.sh)"; exit 77; }
here=$(realpath "$(dirname "$0")")
. "$here/wine-env.sh"
cd "$work" || exit 1
zp() { local p; p=$(realpath -m "$1"); printf 'Z:%s' "${p//\//\\}"; }

cp "$pdb" lin.pdb
ILMAP_TEST_SHRINK_INPUT=lin.pdb "$lin" compile -q lin.pdb -o lin.ilmap 2>lin.err
lin_rc=$?
sed 's/lin\.pdb/frames.pdb/' lin.err >lin.want

cp "$pdb" frames.pdb
# ilmap.exe sees the path as given: the hook compares it with ILMAP_TEST_SHRINK_INPUT.
WINEDEBUG=-all ILMAP_TEST_SHRINK_INPUT=frames.pdb "$wine" "$exe" compile -q frames.pdb -o win.ilmap >win.out 2>win.err &
pid=$!
for _ in $(seq 400); do [[ -e frames.pdb.shrink-wanted ]] && break; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
if [[ -e frames.pdb.shrink-wanted ]]; then
  truncate -s 4096 frames.pdb
else
  fail "ilmap.exe never asked for the input to shrink (the hook did not run)"
fi
wait $pid
win_rc=$?
tr -d '\r' <win.err >win.got
if [[ $lin_rc -eq 2 && $win_rc -eq $lin_rc ]] && cmp -s lin.want win.got && [[ ! -e win.ilmap ]]; then
  echo "ok   input shortened while mapped: exit $win_rc, '$(cat win.got)', no cache (as on Linux)"
else
  fail "input shortened while mapped: exit $win_rc (Linux $lin_rc), stderr '$(head -c 300 win.got)' (Linux '$(cat lin.want)'), cache $([[ -e win.ilmap ]] && echo written || echo absent)"
fi

cp "$pdb" whole.pdb
"$lin" compile -q whole.pdb -o lin-whole.ilmap || fail "Linux compile"
if w compile -q "$(zp whole.pdb)" -o "$(zp win-whole.ilmap)" >win.out 2>&1 && cmp -s lin-whole.ilmap win-whole.ilmap; then
  echo "ok   the same input left whole: the Linux cache's bytes"
else
  fail "compile of the whole input: $(tr -d '\r' <win.out | head -c 300)"
fi

# Ctrl+C in a folder named in letters outside ASCII, as a user's own (C:\Users\Zoë\...): Wine turns
# SIGINT into CTRL_C_EVENT, the C runtime into SIGINT, whose handler (support/AtomicFile.cpp)
# removes the live temporary; the process then ends with the runtime's exit status 3.
d="Zoë Ümlaut"
mkdir "$d" && cp "$pdb" "$d/app.pdb"
ILMAP_TEST_PAUSE_BEFORE_RENAME=30 "$wine" "$exe" compile -q "$(zp "$d/app.pdb")" >ctrlc.out 2>&1 &
pid=$!
for _ in $(seq 400); do compgen -G "$d/app.ilmap.tmp-*" >/dev/null && break; sleep 0.05; done
if compgen -G "$d/app.ilmap.tmp-*" >/dev/null; then
  kill -INT $pid
  wait $pid
  rc=$?
  left=$(ls -A "$d" | grep -v '^app.pdb$' | tr '\n' ' ')
  if [[ $rc -eq 3 && -z $left ]]; then
    echo "ok   Ctrl+C during a compile into '$d': exit 3, the temporary removed"
  else
    fail "Ctrl+C during a compile into '$d': exit $rc, left: ${left:-nothing} $(tr -d '\r' <ctrlc.out | head -c 200)"
  fi
else
  kill $pid; wait $pid
  fail "no temporary appeared in '$d' ($(tr -d '\r' <ctrlc.out | head -c 200))"
fi

# A temporary left by a killed run there is removed by the next compile of the same output.
rm -f "$d"/app.ilmap*
touch "$d/app.ilmap.tmp-Ab12Cd"
if w compile -q "$(zp "$d/app.pdb")" >stale.out 2>&1 && [[ -f $d/app.ilmap && ! -e $d/app.ilmap.tmp-Ab12Cd ]]; then
  echo "ok   a stale temporary in '$d' removed by the next compile"
else
  fail "stale temporary in '$d': $(ls -A "$d" | tr '\n' ' ') $(tr -d '\r' <stale.out | head -c 200)"
fi
# check_writable_directory: a --cache-dir not made yet, under such a folder, is made with that name.
printf '%s\r\n' '   at Ilmap.Corpus.Frames.Program.Main() in Ilmap.Corpus.Frames.dll:token 0x6000001+0x0' >trace.txt
mkdir "$d/bin" && cp "${pdb%.pdb}".{dll,pdb} "$d/bin/"
if w symbolicate --search "$(zp "$d/bin")" --cache-dir "$(zp "$d/cäche/sub")" "$(zp trace.txt)" >sym.out 2>&1 \
   && compgen -G "$d/cäche/sub/*" >/dev/null; then
  echo "ok   --cache-dir '$d/cäche/sub' made under its own name ($(ls "$d/cäche/sub" | head -n1))"
else
  fail "--cache-dir under '$d': $(find "$work" -maxdepth 3 -newer trace.txt -type d | sed "s|$work/||" | tr '\n' ' ') $(tr -d '\r' <sym.out | head -c 200)"
fi
wine_finish
