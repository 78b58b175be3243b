#!/usr/bin/env bash
# paths.sh LINUX_ILMAP WINDOWS_BUILD_DIR REPO_ROOT - the win-x64 build under Wine with the paths
# Windows users have (docs/build-and-test.md "Windows", support/Platform.h), against the Linux
# build of the same sources:
#   - a PDB at "Zoë dir/Ümlaut.pdb" compiles to "Ключ.ilmap" beside it, byte for byte the cache
#     the Linux program writes from the same file (UTF-16 arguments and file names);
#   - the same in a folder whose path is longer than 260 characters (MAX_PATH: the \\?\ form;
#     Wine 8 does not enforce MAX_PATH, so here this guards against regressions only);
#   - `symbolicate --source-root` with the folder in \\?\Z:\... form reads the sources as the
#     Linux program does with the plain path (same output);
#   - a non-ASCII argument echoed in an error message is the same UTF-8 bytes as on Linux;
#   - symbolicate with a non-ASCII --search folder and --cache-dir, and a non-ASCII store added to
#     and read back as a --symbol-path, answer as the Linux program does;
#   - UNC shares (\\buildsrv\...): --search, --source-root, store add and a srv* fetch.
# Wine runs as wine-env.sh sets it up. Exit 0 pass, 1 fail, 77 skip (no Windows build, no wine64).
set -uo pipefail
export LC_ALL=C.UTF-8
lin=$(realpath "$1") win=$2 root=$(realpath "$3")
. "$(dirname "$0")/wine-env.sh"
winpath() { local p=$1; echo "Z:${p//\//\\}"; }  # Wine's drive Z: is the Unix root

frames=$root/corpus/out/cs-frames
pdb=$frames/Ilmap.Corpus.Frames.pdb
[[ -f $pdb ]] || { echo "SKIP: $pdb missing (corpus not built)"; exit 77; }
# A cache names its PDB's file, so each Windows cache is compared with the Linux program's cache
# of the same file.
lin_cache() { "$lin" compile -q "$1" -o "$2" || fail "the Linux program cannot compile $1"; }

# 1. Spaces and non-ASCII in the folder, the input and the output name.
dir="$work/Zoë dir"
mkdir -p "$dir" && cp "$pdb" "$dir/Ümlaut.pdb"
lin_cache "$dir/Ümlaut.pdb" "$work/frames.ilmap"
if w compile -q "$dir/Ümlaut.pdb" -o "$dir/Ключ.ilmap" 2>"$work/u.err" && cmp -s "$work/frames.ilmap" "$dir/Ключ.ilmap"; then
  echo "ok   Zoë dir/Ümlaut.pdb -> Ключ.ilmap: the Linux cache's bytes"
else
  fail "Zoë dir/Ümlaut.pdb -> Ключ.ilmap: $(head -c 300 "$work/u.err"; ls "$dir" | tr '\n' ' ')"
fi
# ... and given as a Windows path with backslashes, to the default output name beside it.
rm -f "$dir/Ümlaut.ilmap"
if w compile -q "$(winpath "$dir/Ümlaut.pdb")" 2>"$work/u2.err" && cmp -s "$work/frames.ilmap" "$dir/Ümlaut.ilmap"; then
  echo "ok   Z:\\...\\Zoë dir\\Ümlaut.pdb -> Ümlaut.ilmap beside it"
else
  fail "Z:\\...\\Zoë dir\\Ümlaut.pdb: $(head -c 300 "$work/u2.err"; ls "$dir" | tr '\n' ' ')"
fi

# 2. A path over MAX_PATH (260): three folders of 100 characters.
long=$work/long/$(printf 'a%.0s' {1..100})/$(printf 'b%.0s' {1..100})/$(printf 'c%.0s' {1..100})
mkdir -p "$long" && cp "$pdb" "$long/Frames.pdb"
lin_cache "$long/Frames.pdb" "$work/frames.ilmap"
if w compile -q "$long/Frames.pdb" -o "$long/Frames.ilmap" 2>"$work/l.err" && cmp -s "$work/frames.ilmap" "$long/Frames.ilmap"; then
  echo "ok   a ${#long}-character folder: the same cache"
else
  fail "a ${#long}-character folder: $(head -c 300 "$work/l.err")"
fi
if w compile -q "$(winpath "$long/Frames.pdb")" --out-dir "$(winpath "$long/out dir")" 2>"$work/l2.err" \
   && cmp -s "$work/frames.ilmap" "$long/out dir/Frames.ilmap"; then
  echo "ok   --out-dir made in a ${#long}-character folder (Z:\\ form)"
else
  fail "--out-dir in a ${#long}-character folder: $(head -c 300 "$work/l2.err")"
fi

# 3. --source-root with the folder in \\?\ form (the form long paths and some tools give).
trace=$root/corpus/traces/cs-frames.il-offsets.txt
# (standard output and error apart: their interleaving depends on each system's buffering)
"$lin" symbolicate --search "$frames" --context 2 --source-root "/_/=$root/corpus/src" "$trace" >"$work/src-lin.txt" 2>"$work/src-lin.err"
w symbolicate --search "$frames" --context 2 --source-root "/_/=\\\\?\\$(winpath "$root/corpus/src")" "$trace" >"$work/src-win.txt" 2>"$work/src-win.err"
if cmp -s "$work/src-lin.txt" "$work/src-win.txt" && cmp -s "$work/src-lin.err" "$work/src-win.err" && grep -q ' | ' "$work/src-lin.txt"; then
  echo "ok   --source-root /_/=\\\\?\\Z:\\...\\corpus\\src shows the sources as on Linux"
else
  fail "--source-root in \\\\?\\ form: the output differs from Linux's: $(diff "$work/src-lin.txt" "$work/src-win.txt" | head -5; diff "$work/src-lin.err" "$work/src-win.err" | head -5)"
fi

# 4. A non-ASCII argument in an error message: the same UTF-8 bytes as on Linux.
rc_l=0 rc_w=0
"$lin" compile -q "$work/nonexistent-Ключ.pdb" -o "$work/x.ilmap" 2>"$work/e-lin.txt" || rc_l=$?
w compile -q "$work/nonexistent-Ключ.pdb" -o "$work/x.ilmap" 2>"$work/e-win.txt" || rc_w=$?
if [[ $rc_l -eq $rc_w ]] && cmp -s "$work/e-lin.txt" "$work/e-win.txt" && grep -q 'Ключ' "$work/e-win.txt"; then
  echo "ok   a non-ASCII argument in an error: the same bytes (exit $rc_w)"
else
  fail "non-ASCII argument: exit $rc_w/$rc_l: $(od -c "$work/e-win.txt" | head -4)"
fi

# 5. Non-ASCII folders for the module index and the stores (symbols/: every path through
#    platform::fs_path): a --search folder and a --cache-dir, a store added to and then read as a
#    --symbol-path. Before they were converted, Windows said "--search ...Grüße: no such file or
#    directory" and could not create the store.
mods="$work/Grüße" store="$work/Störe"
mkdir -p "$mods" && cp "$frames/Ilmap.Corpus.Frames.dll" "$pdb" "$mods/"
grep -m 5 'Frames.dll:token' "$trace" > "$work/t5.txt"
"$lin" symbolicate --search "$mods" --cache-dir "$work/lin-cache" < "$work/t5.txt" > "$work/s-lin.txt" 2>/dev/null
w symbolicate --search "$mods" --cache-dir "$work/Кэш" < "$work/t5.txt" > "$work/s-win.txt" 2>"$work/s-win.err"
lin_cached=$(find "$work/lin-cache" -name '*.ilmap' | head -n 1) win_cached=$(find "$work/Кэш" -name '*.ilmap' 2>/dev/null | head -n 1)
if grep -q 'Scenarios.cs:line' "$work/s-lin.txt" && cmp -s "$work/s-lin.txt" "$work/s-win.txt" \
   && [[ -n $win_cached ]] && cmp -s "$lin_cached" "$win_cached"; then
  echo "ok   symbolicate --search Grüße --cache-dir Кэш: Linux's output and cache"
else
  fail "symbolicate --search Grüße --cache-dir Кэш: $(head -c 300 "$work/s-win.err"; diff "$work/s-lin.txt" "$work/s-win.txt" | head -4)"
fi
# The app's folder holds the DLL alone; its PDB comes from the store its CodeView entry names.
mkdir -p "$work/Äpp" && cp "$frames/Ilmap.Corpus.Frames.dll" "$work/Äpp/"
if w store add -q "$store" "$mods/Ilmap.Corpus.Frames.dll" "$pdb" 2>"$work/st.err" \
   && w symbolicate --search "$work/Äpp" --symbol-path "$store" --cache-dir "$work/Кэш2" < "$work/t5.txt" \
        > "$work/s-store.txt" 2>>"$work/st.err" \
   && cmp -s "$work/s-lin.txt" "$work/s-store.txt"; then
  echo "ok   store add Störe, then symbolicate --search Äpp --symbol-path Störe: Linux's output"
else
  fail "store Störe: $(head -c 300 "$work/st.err"; diff "$work/s-lin.txt" "$work/s-store.txt" | head -4)"
fi

# 6. UNC shares, as build agents and symbol stores name them (\\server\share\...): a Wine prefix
#    maps \\SERVER\SHARE to the folder dosdevices/unc/SERVER/SHARE. Sources, modules and a store
#    on a "share": --source-root and --search in UNC form give Linux's output; a store added on
#    the share is the Linux program's store, file for file; fetch through
#    srv*CACHE*\\buildsrv\symbols answers the store's cache (the Linux key) on the share.
unc=$WINEPREFIX/dosdevices/unc/buildsrv
mkdir -p "$unc" "$work/share-store" && ln -s "$root/corpus/src" "$unc/src" && ln -s "$frames" "$unc/bin" \
  && ln -s "$work/share-store" "$unc/symbols"
w symbolicate --search '\\buildsrv\bin' --context 2 --source-root '/_/=\\buildsrv\src' "$trace" >"$work/src-unc.txt" 2>"$work/src-unc.err"
if cmp -s "$work/src-lin.txt" "$work/src-unc.txt" && cmp -s "$work/src-lin.err" "$work/src-unc.err"; then
  echo "ok   --search \\\\buildsrv\\bin --source-root /_/=\\\\buildsrv\\src: the sources as on Linux"
else
  fail "UNC --search/--source-root: $(diff "$work/src-lin.txt" "$work/src-unc.txt" | head -5; diff "$work/src-lin.err" "$work/src-unc.err" | head -5)"
fi
"$lin" store add -q "$work/lin-store" "$pdb" || fail "Linux store add"
if w store add -q '\\buildsrv\symbols' '\\buildsrv\bin\Ilmap.Corpus.Frames.pdb' 2>"$work/us.err" \
   && diff -r "$work/lin-store" "$work/share-store" >"$work/us.diff" 2>&1; then
  echo "ok   store add \\\\buildsrv\\symbols: the Linux program's store ($(cd "$work/share-store" && find . -type f | wc -l) files)"
else
  fail "store add on a UNC share: $(head -c 300 "$work/us.err"; head -5 "$work/us.diff")"
fi
# A folder store is read where it is: fetch answers the store's cache under the share's path.
"$lin" fetch --symbol-path "srv*$work/lin-cache2*$work/lin-store" "$frames/Ilmap.Corpus.Frames.dll" >"$work/lf.out" 2>&1
key=$(cut -f1 "$work/lf.out")
if w fetch --symbol-path "srv*$(winpath "$work/unc-cache")*\\\\buildsrv\\symbols" "$(winpath "$frames/Ilmap.Corpus.Frames.dll")" >"$work/uf.out" 2>&1 \
   && [[ -n $key && $(tr -d '\r' <"$work/uf.out") == "$key"$'\t''\\buildsrv\symbols/'"$key" ]]; then
  echo "ok   fetch srv*Z:\\...\\unc-cache*\\\\buildsrv\\symbols: $key on the share"
else
  fail "fetch from a UNC store: Linux '$(head -c 300 "$work/lf.out")', Windows '$(tr -d '\r' <"$work/uf.out" | head -c 300)'"
fi

wine_finish
