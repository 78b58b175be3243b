#!/bin/bash
# aot.sh REPO_ROOT ILMAP [LIBILMAP] - Mono AOT frames through .msym files (docs/msym.md) against the runtime.
# trace/Trace.cs, aot/AotExtra.cs (generic code shared over reference types, an exception
# filter, a rethrow, a finally, a static constructor, a struct) and aot/AotApp.cs calling
# aot/AotLib.cs (a library compiled ahead of time in a run of its own) are built as
# ground-truth.sh builds Trace.cs, compiled ahead of time by `mono --aot=msym-dir=MSYM` and run
# three ways:
#   aot:    with the AOT image: "<0xADDR + 0xOFF> in <MVID#AOTID>:0" frames;
#   debug:  a copy without the image, mono --debug with the PDB: "[0xIL] in FILE:LINE" (the JIT);
#   nosym:  a copy without the image nor the PDB: "[0xIL] in <MVID>:0" (the JIT's own IL offsets).
# Checks, per program:
#   1. the aot run printed native-offset frames, and symbolicate without --msym-dir resolves none
#      of them (counted "no msym": the "before" figure);
#   2. with --msym-dir every frame resolves;
#   3. every symbolicated frame equals the debug run's frame (method, file and line; the IL offset
#      in brackets aside), except the frames of aot/aot-differences.txt: "line" frames compare
#      without their line, "inlined" frames are absent from the aot run and skipped;
#   4. every symbolicated frame's IL offset equals the nosym run's for that frame (the runtime's
#      own native -> IL answer), with the same frames skipped; the msym folder added to a symbol
#      store (`ilmap store add`, then `store verify`) and given as --msym-dir STORE gives the
#      same text; so does the store on --symbol-path, as a folder and served by nginx (check 4c:
#      the .msym downloaded once into the srv* cache);
#   5. a bad .msym and an AOT id that is a path leave the frames as they were, counted;
#   6. (first program) `ilmap serve --msym-dir` and, with LIBILMAP, the C API through Python's
#      Symbolicator(msym_dirs=...) answer the same text as the command.
# With MONO_SYMBOLICATE set to mono-symbolicate.exe (Debian's mono-devel ships it), the same aot
# trace also goes through it (its msym-dir layout: MVID/ with the PE and PDB, AOTID/ with the
# .msym) and the lines it prints are compared with the debug run's: reported, not checked
# (docs/msym.md says where it differs).
# Exit: 0 equal, 1 different, 2 usage, 77 mono, the SDK's csc or Mono's mscorlib is absent.
set -u
export LC_ALL=C
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 REPO_ROOT ILMAP [LIBILMAP]" >&2; exit 2; }
root=$1 ilmap=$2 lib=${3:-}
here=$root/tests/symbolicate
command -v mono >/dev/null || { echo "SKIP: mono not found"; exit 77; }
command -v dotnet >/dev/null || { echo "SKIP: dotnet not found (the SDK's csc builds the programs)"; exit 77; }
sdk=$(dotnet --list-sdks 2>/dev/null | tail -n1 | sed -E 's/^([^ ]+) \[(.*)\]$/\2\/\1/')
csc=$sdk/Roslyn/bincore/csc.dll
mscorlib=${MONO_LIB_DIR:-/usr/lib/mono/4.5}
[ -f "$csc" ] || { echo "SKIP: the SDK's csc.dll not found"; exit 77; }
[ -f "$mscorlib/mscorlib.dll" ] || { echo "SKIP: Mono's mscorlib.dll not found (mono-runtime)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-sym-aot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0 pass=0
failed() { echo "FAIL $*"; fail=$((fail + 1)); }

# Frame lines as compared: the bracket or native offset and the module text aside, trailing
# blanks and the AggregateException's "<---" dropped.
norm() { sed -E 's/ \[0x[0-9a-f]+\] in / [IL] in /; s/ <0x[0-9a-f]+ \+ 0x[0-9a-f]+>( [0-9]+)? in / [IL] in /; s/ *(<---)?$//' "$1"; }
# The IL offset of each frame line and the method text: "METHOD [0xIL]".
ils() { sed -n -E 's/^( *at .*) (\[0x[0-9a-f]+\]) in .*/\1 \2/p' "$1"; }
# The frames of aot-differences.txt of a kind, as sed patterns of "  at METHOD ".
diffs() { sed -n "s/^$1 //p" "$here/aot/aot-differences.txt" | sed 's/[][\.*^$#]/\\&/g'; }
# Drops the "inlined" frames from a run's lines ($1), masks the "line" frames' lines.
prepare() {
    cp "$1" "$1.p"
    while IFS= read -r pat; do sed -i "\\#^ *at $pat \\[#d" "$1.p"; done < <(diffs inlined)
    while IFS= read -r pat; do sed -i "s#^\\( *at $pat \\[IL\\] in [^:]*:\\)[0-9]*\$#\\1(Mono --debug differs)#" "$1.p"; done < <(diffs line)
}

total_before=0 total_after=0 total_frames=0
# NAME|SOURCE|SOURCE FOLDER|LIBRARY SOURCE: the library (Ilmap.AotLib.dll) is compiled ahead of
# time in a run of its own, before the program: its .msym lies under another AOT id than the one
# the runtime prints in its frames (the program's).
csc_build() {  # OUT SOURCE SOURCE_FOLDER [csc options...]
    local out=$1 src=$2 srcdir=$3; shift 3
    dotnet "$csc" -nologo -noconfig -nostdlib -langversion:7.3 -r:"$mscorlib/mscorlib.dll" -r:"$mscorlib/System.Core.dll" \
        -r:"$mscorlib/System.dll" -debug:portable -deterministic -pathmap:"$srcdir=/_/" "$@" -out:"$out" "$src"
}
first=Ilmap.Trace  # the program the other ways in (check 6) are tried on
for prog in "Ilmap.Trace|$here/trace/Trace.cs|$here/trace|" "Ilmap.AotExtra|$here/aot/AotExtra.cs|$here/aot|" \
            "Ilmap.AotApp|$here/aot/AotApp.cs|$here/aot|$here/aot/AotLib.cs"; do
    IFS='|' read -r name src srcdir libsrc <<<"$prog"
    exe=$name.exe
    d=$tmp/$name
    mkdir -p "$d/pdb" "$d/aot" "$d/nosym" "$d/msym" "$d/cache"
    libref=()
    if [ -n "$libsrc" ]; then
        csc_build "$d/pdb/Ilmap.AotLib.dll" "$libsrc" "$srcdir" -target:library >"$d/csc.log" 2>&1 || { cat "$d/csc.log"; failed "csc $name's library"; continue; }
        libref=(-r:"$d/pdb/Ilmap.AotLib.dll")
        cp "$d/pdb/Ilmap.AotLib.dll" "$d/aot/" && cp "$d/pdb/Ilmap.AotLib.dll" "$d/nosym/"
        mono --aot=msym-dir="$d/msym" "$d/aot/Ilmap.AotLib.dll" >"$d/aot.log" 2>&1 || { tail -n 5 "$d/aot.log"; failed "mono --aot $name's library"; continue; }
    fi
    csc_build "$d/pdb/$exe" "$src" "$srcdir" "${libref[@]}" >"$d/csc.log" 2>&1 || { cat "$d/csc.log"; failed "csc $name"; continue; }
    cp "$d/pdb/$exe" "$d/aot/" && cp "$d/pdb/$exe" "$d/nosym/"
    mono --aot=msym-dir="$d/msym" "$d/aot/$exe" >>"$d/aot.log" 2>&1 || { tail -n 5 "$d/aot.log"; failed "mono --aot $name"; continue; }
    msym=$(find "$d/msym" -name "$exe.msym")
    [ -n "$msym" ] || { failed "$name: mono --aot wrote no $exe.msym under msym-dir"; continue; }
    mono "$d/aot/$exe" >"$d/aot.txt" 2>&1
    mono --debug "$d/pdb/$exe" >"$d/debug.txt" 2>&1
    mono "$d/nosym/$exe" >"$d/nosym.txt" 2>&1
    n=$(grep -cE ' <0x[0-9a-f]+ \+ 0x[0-9a-f]+>( [0-9]+)? in <[0-9a-f]{32}#[0-9a-f]{32}>:0' "$d/aot.txt")
    [ "$n" -gt 0 ] || { failed "$name: the AOT run printed no native-offset frame"; head -n 5 "$d/aot.txt"; continue; }
    total_frames=$((total_frames + n))
    # 1. Before: without --msym-dir.
    "$ilmap" symbolicate --search "$d/pdb" --cache-dir "$d/cache" "$d/aot.txt" >"$d/before.txt" 2>"$d/before.err"
    left=$(grep -cE ' <0x[0-9a-f]+ \+ 0x' "$d/before.txt")
    before=$((n - left))
    total_before=$((total_before + before))
    if [ "$before" -eq 0 ] && grep -q "$n no msym" "$d/before.err"; then
        echo "ok   $name before: 0 of $n AOT frames resolved ($(cat "$d/before.err"))"; pass=$((pass + 1))
    else
        failed "$name before: $before of $n AOT frames resolved without --msym-dir: $(cat "$d/before.err")"
    fi
    # 2. After.
    "$ilmap" symbolicate --search "$d/pdb" --cache-dir "$d/cache" --msym-dir "$d/msym" "$d/aot.txt" >"$d/got.txt" 2>"$d/got.err"
    rc=$?
    left=$(grep -cE ' <0x[0-9a-f]+ \+ 0x' "$d/got.txt")
    # Resolved: the native-offset frames that came back as "[0xIL] in FILE:LINE" (the output has
    # the input's lines, one for one).
    after=0
    if [ $rc -eq 0 ] && [ "$(wc -l <"$d/got.txt")" = "$(wc -l <"$d/aot.txt")" ]; then
        after=$(paste -d '\t' "$d/aot.txt" "$d/got.txt" |
                grep -cE ' <0x[0-9a-f]+ \+ 0x[0-9a-f]+>( [0-9]+)? in <[^>]*>:0.*'$'\t''.* \[0x[0-9a-f]+\] in /_/[^:]*:[0-9]+')
    fi
    total_after=$((total_after + after))
    if [ "$after" -eq "$n" ] && [ "$left" -eq 0 ]; then
        echo "ok   $name after: $after of $n AOT frames resolved ($(cat "$d/got.err"))"; pass=$((pass + 1))
    else
        failed "$name after: $after of $n AOT frames resolved (rc $rc): $(cat "$d/got.err")"; grep -E ' <0x[0-9a-f]+ \+ 0x' "$d/got.txt" | head -n 5
    fi
    # 3. Lines against the JIT run with the PDB.
    norm "$d/debug.txt" >"$d/debug.n"; norm "$d/got.txt" >"$d/got.n"
    prepare "$d/debug.n"; prepare "$d/got.n"
    if cmp -s "$d/debug.n.p" "$d/got.n.p"; then
        echo "ok   $name lines == mono --debug ($(grep -c '^ *at ' "$d/got.n.p") frames; $(grep -c 'Mono --debug differs' "$d/got.n.p") of aot-differences.txt's line kind)"
        pass=$((pass + 1))
    else
        failed "$name lines (< mono --debug, > ilmap symbolicate of the AOT trace)"; diff "$d/debug.n.p" "$d/got.n.p" | head -n 20 | sed 's/^/     /'
    fi
    # 4. IL offsets against the JIT run without symbols.
    ils "$d/nosym.txt" >"$d/nosym.il"; ils "$d/got.txt" >"$d/got.il"
    prepare "$d/nosym.il"; cp "$d/got.il" "$d/got.il.p"
    if cmp -s "$d/nosym.il.p" "$d/got.il.p"; then
        echo "ok   $name IL offsets == the JIT's without symbols ($(wc -l <"$d/got.il.p") frames)"; pass=$((pass + 1))
    else
        failed "$name IL offsets (< mono without symbols, > ilmap symbolicate of the AOT trace)"; diff "$d/nosym.il.p" "$d/got.il.p" | head -n 20 | sed 's/^/     /'
    fi
    # 4b. The msym folder through a symbol store: `ilmap store add STORE MSYM`, then --msym-dir
    #     STORE gives the same text; `store verify` accepts it.
    if "$ilmap" store add "$d/store" "$d/msym" >"$d/store.log" 2>&1 &&
       "$ilmap" store verify "$d/store" >>"$d/store.log" 2>&1 &&
       "$ilmap" symbolicate --search "$d/pdb" --cache-dir "$d/cache" --msym-dir "$d/store" "$d/aot.txt" >"$d/got-store.txt" 2>/dev/null &&
       cmp -s "$d/got.txt" "$d/got-store.txt"; then
        echo "ok   $name through a store ($(head -n 1 "$d/store.log"))"; pass=$((pass + 1))
    else
        failed "$name through a store: $(cat "$d/store.log")"
    fi
    # 4c. The same store on the symbol path instead of --msym-dir: as a folder entry, and served
    #     by nginx (srv*DOWNLOADS*URL): the same text; the .msym files come into DOWNLOADS under
    #     their store keys, and a second run reads them there without asking the server again.
    #     (Not for a program whose library was compiled ahead of time in a run of its own: a
    #     symbol path is asked for the frame's AOT id only, docs/msym.md section 3.)
    if [ -z "$libsrc" ]; then
        if "$ilmap" symbolicate --search "$d/pdb" --cache-dir "$d/cache" --symbol-path "$d/store" "$d/aot.txt" \
               >"$d/got-path.txt" 2>"$d/got-path.err" && cmp -s "$d/got.txt" "$d/got-path.txt"; then
            echo "ok   $name through a store on --symbol-path: the same text"; pass=$((pass + 1))
        else
            failed "$name through a store on --symbol-path: $(cat "$d/got-path.err")"
        fi
        ( mkdir -p "$d/web" && cd "$d/web" && . "$root/tests/cli/nginx.sh" && start_nginx "$d/store" >"$d/nginx.out" &&
          echo "$URL" >"$d/nginx.url" &&
          "$ilmap" symbolicate --search "$d/pdb" --cache-dir "$d/cache" --symbol-path "srv*$d/dl*$URL" "$d/aot.txt" \
              >"$d/got-http.txt" 2>"$d/got-http.err" &&
          asked=$(requests) &&
          "$ilmap" symbolicate --search "$d/pdb" --cache-dir "$d/cache" --symbol-path "srv*$d/dl*$URL" "$d/aot.txt" \
              >"$d/got-http2.txt" 2>>"$d/got-http.err" &&
          echo "$asked $(requests)" >"$d/nginx.requests" )
        stored=$(cd "$d/store" && find . -type f -name '*.msym' | sort)
        downloaded=$( [ -d "$d/dl" ] && cd "$d/dl" && find . -type f -name '*.msym' | sort)
        read -r asked_first asked_after <"$d/nginx.requests" 2>/dev/null
        if [ ! -s "$d/nginx.url" ]; then
            echo "note $name over HTTP: not checked: $(cat "$d/nginx.out" 2>/dev/null)"
        elif cmp -s "$d/got.txt" "$d/got-http.txt" && cmp -s "$d/got.txt" "$d/got-http2.txt" && [ -n "$stored" ] &&
             [ "$stored" = "$downloaded" ] && [ "${asked_first:-0}" -gt 0 ] && [ "$asked_first" = "$asked_after" ]; then
            echo "ok   $name over HTTP (srv*DOWNLOADS*URL): the same text, $(echo "$downloaded" | wc -l) .msym downloaded, $asked_first requests, none on the second run"
            pass=$((pass + 1))
        else
            failed "$name over HTTP: requests ${asked_first:-?} then ${asked_after:-?}; stored [$stored] downloaded [$downloaded]: $(cat "$d/got-http.err")"
        fi
    fi
    # 5. A bad .msym (cut in half) and an AOT id that is no id: the frames stay as they were,
    #    counted, and the run succeeds.
    mkdir -p "$d/bad/$(basename "$(dirname "$msym")")"
    head -c $(($(stat -c %s "$msym") / 2)) "$msym" >"$d/bad/$(basename "$(dirname "$msym")")/$exe.msym"
    sed -E '0,/#[0-9a-f]{32}>:0/s//#..\/..\/..\/..\/etc>:0/' "$d/aot.txt" >"$d/hostile.txt"
    "$ilmap" symbolicate --search "$d/pdb" --cache-dir "$d/cache" --msym-dir "$d/bad" "$d/hostile.txt" >"$d/hgot.txt" 2>"$d/herr"
    rc=$?
    # (A library's frames find no .msym in that folder: "no msym" too.)
    nolib=$(grep -cE '^ *at Ilmap\.AotLib\..* <0x.*#[0-9a-f]{32}>:0' "$d/hostile.txt")
    if [ $rc -eq 0 ] && [ "$(grep -cE ' <0x[0-9a-f]+ \+ 0x' "$d/hgot.txt")" = "$n" ] &&
       grep -q "($((1 + nolib)) no msym, $((n - 1 - nolib)) bad msym)" "$d/herr"; then
        echo "ok   $name bad .msym and a path as AOT id: frames kept ($(cat "$d/herr"))"; pass=$((pass + 1))
    else
        failed "$name bad .msym: rc $rc: $(cat "$d/herr")"
    fi
    # 6. The other ways in, on the first program: `ilmap serve --msym-dir` (POST /symbolicate)
    #    and, given LIBILMAP, the C API through the Python binding (Symbolicator(msym_dirs=...))
    #    answer the same text as the command.
    if [ "$name" = "$first" ]; then
        "$ilmap" serve --port 0 --search "$d/pdb" --cache-dir "$d/cache-serve" --msym-dir "$d/msym" 2>"$d/serve.log" &
        serve_pid=$!
        for _ in $(seq 100); do grep -q listening "$d/serve.log" && break; sleep 0.1; done
        url=$(sed -nE 's/^ilmap serve: listening on (http:[^ ]*)$/\1/p' "$d/serve.log")
        python3 -c 'import sys, urllib.request
r = urllib.request.Request(sys.argv[1] + "/symbolicate", data=open(sys.argv[2], "rb").read(),
                           headers={"Content-Type": "text/plain"})
sys.stdout.buffer.write(urllib.request.urlopen(r).read())' "$url" "$d/aot.txt" >"$d/served.txt" 2>"$d/served.err"
        kill "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null
        if [ -n "$url" ] && cmp -s "$d/got.txt" "$d/served.txt"; then
            echo "ok   $name through ilmap serve --msym-dir: the same text"; pass=$((pass + 1))
        else
            failed "$name through serve: $(head -c 300 "$d/served.err"; diff "$d/got.txt" "$d/served.txt" | head -n 4)"
        fi
        if [ -n "$lib" ]; then
            PYTHONPATH=$root/integrations/python ILMAP_LIBRARY=$lib python3 -c 'import sys, ilmap
with ilmap.Symbolicator([sys.argv[1]], cache_dir=sys.argv[2], msym_dirs=[sys.argv[3]]) as s:
    sys.stdout.buffer.write(s.symbolicate(open(sys.argv[4], "rb").read()))' \
                "$d/pdb" "$d/cache-py" "$d/msym" "$d/aot.txt" >"$d/py.txt" 2>"$d/py.err"
            if cmp -s "$d/got.txt" "$d/py.txt"; then
                echo "ok   $name through the C API (Python's Symbolicator, msym_dirs): the same text"; pass=$((pass + 1))
            else
                failed "$name through the C API: $(head -c 300 "$d/py.err"; diff "$d/got.txt" "$d/py.txt" | head -n 4)"
            fi
        fi
    fi
    # mono-symbolicate, when given: reported only.
    if [ -n "${MONO_SYMBOLICATE:-}" ] && [ -f "$MONO_SYMBOLICATE" ]; then
        ms=$d/ms && mkdir -p "$ms" && cp -r "$d/msym/." "$ms/"
        mono "$MONO_SYMBOLICATE" store-symbols "$ms" "$d/pdb" >/dev/null 2>&1
        mono "$MONO_SYMBOLICATE" "$ms" "$d/aot.txt" >"$d/ms.txt" 2>"$d/ms.err"
        norm "$d/ms.txt" >"$d/ms.n"; prepare "$d/ms.n"
        same=$(paste -d '\n' "$d/debug.n.p" "$d/ms.n.p" | paste - - | awk -F'\t' '$1 ~ /^ *at / && $1 == $2' | wc -l)
        ours=$(paste -d '\n' "$d/debug.n.p" "$d/got.n.p" | paste - - | awk -F'\t' '$1 ~ /^ *at / && $1 == $2' | wc -l)
        echo "     mono-symbolicate $name: $same frame lines equal to mono --debug's (ilmap: $ours)"
    fi
done
echo "AOT frames: $total_frames; resolved before (no --msym-dir): $total_before; after: $total_after"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
