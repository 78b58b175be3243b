#!/bin/bash
# ground-truth.sh REPO_ROOT ILMAP [coreclr|mono] [IL_LISTING]
# `ilmap symbolicate` against the runtimes' own answers (docs/symbolicate.md,
# tests/symbolicate/README.md).
#   coreclr: trace/Trace.cs (built by the SDK's Roslyn against Mono's mscorlib, so that both runtimes
#            run it), the corpus programs with a Scenarios class (cs-frames, cs-signatures) and a
#            throwing call into the F# and VB corpus libraries (fs-basic, vb-basic) are run
#            (a) with their PDBs: the runtime prints "in FILE:line N";
#            (b) without PDBs and with Switch.System.Diagnostics.StackTrace.ShowILOffsets: "in X.dll:token".
#            symbolicate(b) must equal (a), byte for byte. The same frames of (b) rendered in the
#            Android form ("at NS.T.M + 0xOFF(Unknown Source)") and the ProductionStackTrace form
#            ("at Asm!0xTOKEN!METHOD +0xOFF" + MODULE lines) must symbolicate to the lines of (a);
#            in the Android form, overloads are told apart by their IL, and only those listed in
#            $undecidable (the same IL shape) stay as they were, counted "ambiguous name".
#   mono:    Trace.exe run by mono without symbols ("[0x..] in <mvid>:0") and by mono --debug with
#            the PDB ("in FILE:N"): symbolicate of the first must equal the second, IL offsets in
#            brackets aside (Mono --debug reports other ones), except the frames listed in
#            mono-differences.txt (Mono's own answer differs from the CoreCLR rule; the reason is there).
#   With IL_LISTING (tests/decode/il_listing.cpp), coreclr also runs Trace.exe's Android frames
#   with the IL unusable: every body overwritten with 0xFF, the PE truncated, another build's PE
#   beside the cache: no crash, the resolved frames still equal (a), every overload frame the IL
#   decided is left ambiguous; and with the right PE beside a cache given by --search alone (the
#   PE found beside it, not in the search set): decided as before.
# Exit: 0 equal, 1 different, 2 usage, 77 the runtime, the SDK's csc or Mono's mscorlib is absent.
set -u
export LC_ALL=C
[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: $0 REPO_ROOT ILMAP coreclr|mono [IL_LISTING]" >&2; exit 2; }
root=$1 ilmap=$2 mode=$3 listing=${4:-}
here=$root/tests/symbolicate
command -v dotnet >/dev/null || { echo "SKIP: dotnet not found"; exit 77; }
sdk=$(dotnet --list-sdks 2>/dev/null | tail -n1 | sed -E 's/^([^ ]+) \[(.*)\]$/\2\/\1/')
csc=$sdk/Roslyn/bincore/csc.dll
mscorlib=${MONO_LIB_DIR:-/usr/lib/mono/4.5}
[ -f "$csc" ] || { echo "SKIP: the SDK's csc.dll not found"; exit 77; }
[ -f "$mscorlib/mscorlib.dll" ] || { echo "SKIP: Mono's mscorlib.dll not found (mono-runtime)"; exit 77; }
if [ "$mode" = mono ]; then command -v mono >/dev/null || { echo "SKIP: mono not found"; exit 77; }; fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-sym-gt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/pdb" "$tmp/nopdb" "$tmp/cache"
dotnet "$csc" -nologo -noconfig -nostdlib -langversion:7.3 -r:"$mscorlib/mscorlib.dll" -r:"$mscorlib/System.Core.dll" \
    -r:"$mscorlib/System.dll" -debug:portable -deterministic -pathmap:"$here/trace=/_/" \
    -out:"$tmp/pdb/Ilmap.Trace.exe" "$here/trace/Trace.cs" >"$tmp/csc.log" 2>&1 || { cat "$tmp/csc.log"; echo "FAIL: csc"; exit 1; }
cp "$tmp/pdb/Ilmap.Trace.exe" "$tmp/nopdb/"
fail=0
pass=0
check() {  # NAME EXPECTED GOT
    if cmp -s "$2" "$3"; then
        echo "ok   $1 ($(grep -c '^ *at ' "$2") frame lines)"; pass=$((pass + 1))
    else
        echo "FAIL $1 (< expected, > symbolicate)"; diff "$2" "$3" | head -n 20 | sed 's/^/     /'; fail=$((fail + 1))
    fi
}
sym() { "$ilmap" symbolicate --search "$tmp/pdb" --cache-dir "$tmp/cache" "$@"; }

if [ "$mode" = coreclr ]; then
    ver=$(dotnet --list-runtimes | awk '$1 == "Microsoft.NETCore.App" { v = $2 } END { print v }')
    tfm=net${ver%%.*}.0
    rc() { printf '{"runtimeOptions":{"tfm":"%s","framework":{"name":"Microsoft.NETCore.App","version":"%s"},"configProperties":{"Switch.System.Diagnostics.StackTrace.ShowILOffsets":%s}}}\n' "$tfm" "$ver" "$1"; }
    # Both runs with ShowILOffsets: frames without a line (the framework's, hidden code) then
    # print their token in both, and only those with a line differ.
    rc true >"$tmp/lines.json"
    rc true >"$tmp/il.json"
    progs=("Ilmap.Trace.exe|")
    # Overloads that answer with different lines are told apart by their IL (docs/symbolicate.md);
    # these cannot be: the same IL shape at the top of the trace (Trace.cs, Twin).
    undecidable=("Ilmap.Trace.Scenarios.Twin")
    il_bound=0 il_call=0 ambiguous=0 il_trace_bound=0 il_trace_call=0 il_trace_amb=0
    for case in cs-frames cs-signatures; do
        dll=$(ls "$root"/corpus/out/$case/*.dll 2>/dev/null | head -n1)
        [ -n "$dll" ] || continue
        cp "$dll" "${dll%.dll}.pdb" "$tmp/pdb/" && cp "$dll" "$tmp/nopdb/"
        progs+=("Ilmap.Trace.exe|$(basename "$dll")")
    done
    # F# and VB: a function called with null arguments (their corpus programs have no Scenarios).
    fsharp=$sdk/FSharp
    for c in "fs-basic|Ilmap.Corpus.FsBasic.Library|totalArea" "vb-basic|Ilmap.Corpus.VbBasic.Counter|Add"; do
        IFS='|' read -r case type method <<<"$c"
        dll=$(ls "$root"/corpus/out/$case/*.dll 2>/dev/null | head -n1)
        [ -n "$dll" ] || continue
        cp "$dll" "${dll%.dll}.pdb" "$tmp/pdb/" && cp "$dll" "$tmp/nopdb/"
        progs+=("Ilmap.Trace.exe|$(basename "$dll")|$type|$method")
    done
    for p in "${progs[@]}"; do
        IFS='|' read -r exe arg type method <<<"$p"
        name=${arg:-$exe}
        if [ -n "${type:-}" ]; then
            dotnet exec --runtimeconfig "$tmp/lines.json" "$tmp/pdb/$exe" --call "$tmp/pdb/$arg" "$type" "$method" "$fsharp" >"$tmp/a" 2>&1
            dotnet exec --runtimeconfig "$tmp/il.json" "$tmp/nopdb/$exe" --call "$tmp/nopdb/$arg" "$type" "$method" "$fsharp" >"$tmp/b" 2>&1
        else
            dotnet exec --runtimeconfig "$tmp/lines.json" "$tmp/pdb/$exe" ${arg:+"$tmp/pdb/$arg"} >"$tmp/a" 2>&1
            dotnet exec --runtimeconfig "$tmp/il.json" "$tmp/nopdb/$exe" ${arg:+"$tmp/nopdb/$arg"} >"$tmp/b" 2>&1
        fi
        grep -q " in $name:token 0x" "$tmp/b" || { echo "FAIL $name: the ShowILOffsets run printed no frame of $name"; cat "$tmp/b" | head -n 5; fail=$((fail + 1)); continue; }
        sym "$tmp/b" >"$tmp/got" 2>"$tmp/err"
        check "coreclr $name" "$tmp/a" "$tmp/got"
        grep -q ', [1-9][0-9]* resolved' "$tmp/err" || { echo "FAIL coreclr $name: nothing resolved: $(cat "$tmp/err")"; fail=$((fail + 1)); }
        [ -n "${type:-}" ] && sed -n '/^== /,$p' "$tmp/got" | grep -F -- "$(basename "$name" .dll | sed 's/Ilmap.Corpus.//')/" | sed 's/^/     /'
        # Android form of the program's own frames: "   at NS.T.M + 0xOFF(Unknown Source)", and
        # what followed the offset after it (an AggregateException's "<---").
        mod=${arg:-$exe}
        awk -v m="$mod" '
            index($0, " in " m ":token 0x") {
                at = index($0, "at "); head = substr($0, 1, at + 2); rest = substr($0, at + 3)
                i = index(rest, " in " m ":token "); meth = substr(rest, 1, i - 1)
                off = rest; sub(/.*\+0x/, "", off); tail = off; sub(/^[0-9a-f]+/, "", tail); sub(/[^0-9a-f].*$/, "", off)
                p = index(meth, "("); if (p) meth = substr(meth, 1, p - 1)
                print head meth " + 0x" off "(Unknown Source)" tail; next }
            { print }' "$tmp/b" >"$tmp/android"
        sym "$tmp/android" >"$tmp/got" 2>"$tmp/err"
        [ "$mod" = Ilmap.Trace.exe ] && cp "$tmp/android" "$tmp/trace.android" && cp "$tmp/a" "$tmp/trace.a"
        # Expected: (a), except overloads (ambiguous by name alone) and the frames the runtime
        # could not give a line either stay in the Android form.
        awk 'NR == FNR { a[FNR] = $0; next }
             { if ($0 ~ / \+ 0x[0-9a-f]+\(Unknown Source\)(<---)?$/) print $0; else print a[FNR] }' "$tmp/a" "$tmp/got" >"$tmp/want"
        noline=$(grep -c " in $mod:token 0x" "$tmp/a")
        check "android $name" "$tmp/want" "$tmp/got"
        left=$(grep -c 'Unknown Source' "$tmp/got")
        amb=$(sed -n 's/.*[( ]\([0-9][0-9]*\) ambiguous name.*/\1/p' "$tmp/err")
        if [ "$left" != "$((${amb:-0} + noline))" ]; then echo "FAIL android $name: $left frames left, ${amb:-0} counted ambiguous: $(cat "$tmp/err")"; fail=$((fail + 1)); fi
        # How the overloads were decided (--json's chosen_by): by the IL (an instruction boundary
        # at the offset, or the call of the frame above) or not at all (ambiguous name). Only
        # the frames named in $undecidable may stay ambiguous, and each of them must.
        sym --json "$tmp/android" >"$tmp/json" 2>/dev/null
        n_bound=$(grep -c '"chosen_by":"il_boundary"' "$tmp/json")
        n_call=$(grep -c '"chosen_by":"call_target"' "$tmp/json")
        il_bound=$((il_bound + n_bound)) il_call=$((il_call + n_call)) ambiguous=$((ambiguous + ${amb:-0}))
        [ "$mod" = Ilmap.Trace.exe ] && il_trace_bound=$n_bound il_trace_call=$n_call il_trace_amb=${amb:-0}
        echo "     android $name: $((n_bound + n_call + ${amb:-0})) overload frames: $n_bound decided by il_boundary, $n_call by call_target, ${amb:-0} ambiguous"
        grep '"reason":"ambiguous name"' "$tmp/json" | sed 's/.*"method":"\([^"]*\)".*/\1/' | sort -u >"$tmp/amb"
        printf '%s\n' "${undecidable[@]}" | sort -u >"$tmp/allowed"
        if [ -n "$(comm -23 "$tmp/amb" "$tmp/allowed")" ]; then
            echo "FAIL android $name: ambiguous, but the IL should decide: $(comm -23 "$tmp/amb" "$tmp/allowed" | tr '\n' ' ')"; fail=$((fail + 1))
        fi
        for u in "${undecidable[@]}"; do
            if grep -q "at $u + 0x" "$tmp/android" && ! grep -qxF "$u" "$tmp/amb"; then
                echo "FAIL android $name: $u resolved, but its overloads have the same IL shape"; fail=$((fail + 1))
            fi
        done
        # ProductionStackTrace form: "   at Asm!0xTOKEN!METHOD +0xOFF", then "==========" and a MODULE line.
        asm=${mod%.*}
        guid=$("$ilmap" info --json "$tmp/pdb/$mod" | sed -n 's/^ *"codeview_guid": "\([0-9a-f-]*\)".*/\1/p')
        [ -n "$guid" ] || { echo "FAIL $name: no CodeView GUID from ilmap info"; fail=$((fail + 1)); continue; }
        awk -v m="$mod" -v asm="$asm" -v g="$guid" '
            function modules() { if (open) { print "=========="; print "MODULE: " asm " => " asm ", Version=0.0.0.0, Culture=neutral, PublicKeyToken=null; G:" g "; A:1"; open = 0 } }
            /^== / { modules() }
            index($0, " in " m ":token 0x") {
                at = index($0, "at "); head = substr($0, 1, at + 2); rest = substr($0, at + 3)
                i = index(rest, " in " m ":token "); meth = substr(rest, 1, i - 1)
                t = substr(rest, i + length(" in " m ":token ")); split(t, parts, "+")
                tok = parts[1]; sub(/^0x/, "", tok); off = parts[2]
                printf "%s%s!0x%08s!%s +%s\n", head, asm, tok, meth, off; open = 1; next }
            { print }
            END { modules() }' "$tmp/b" | sed 's/!0x \{1,\}/!0x0/; :a; s/!0x\(0*\) /!0x\10/; ta' >"$tmp/pst"
        sym "$tmp/pst" >"$tmp/got" 2>"$tmp/err"
        grep -v '^==========$' "$tmp/got" | grep -v '^MODULE: ' >"$tmp/got2"
        # Expected: (a), where the runtime had no line either the PST frame stays.
        awk -v m="$mod" 'NR == FNR { a[FNR] = $0; next }
             { if (index(a[FNR], " in " m ":token 0x") && $0 ~ /!0x[0-9a-f]+!.* \+0x[0-9a-f]+$/) print $0; else print a[FNR] }' "$tmp/a" "$tmp/got2" >"$tmp/want"
        check "pst $name" "$tmp/want" "$tmp/got2"
    done
    # Hostile or missing IL: SEARCH... -> the Android frames of Trace.exe, each resolved one equal to
    # (a), and EXPECTED frames counted "ambiguous name".
    hostile_il() {  # NAME EXPECTED SEARCH...
        local what=$1 want_amb=$2; shift 2
        rm -rf "$tmp/hcache"
        "$ilmap" symbolicate --cache-dir "$tmp/hcache" "$@" "$tmp/trace.android" >"$tmp/hgot" 2>"$tmp/herr"
        local rc=$?
        awk 'NR == FNR { a[FNR] = $0; next }
             { if ($0 ~ / \+ 0x[0-9a-f]+\(Unknown Source\)(<---)?$/) print $0; else print a[FNR] }' "$tmp/trace.a" "$tmp/hgot" >"$tmp/hwant"
        local amb
        amb=$(sed -n 's/.*[( ]\([0-9][0-9]*\) ambiguous name.*/\1/p' "$tmp/herr")
        if [ $rc -eq 0 ] && cmp -s "$tmp/hwant" "$tmp/hgot" && [ "${amb:-0}" = "$want_amb" ]; then
            echo "ok   android il $what (${amb:-0} ambiguous)"; pass=$((pass + 1))
        else
            echo "FAIL android il $what: rc $rc, ${amb:-0} ambiguous (want $want_amb): $(cat "$tmp/herr")"
            diff "$tmp/hwant" "$tmp/hgot" | head -n 10 | sed 's/^/     /'; fail=$((fail + 1))
        fi
    }
    if [ -n "$listing" ] && [ -f "$tmp/trace.android" ]; then
        all_amb=$((il_trace_bound + il_trace_call + il_trace_amb))
        mkdir -p "$tmp/h1" "$tmp/h2" "$tmp/h3" "$tmp/h4"
        # 1. Every body of the PE overwritten with 0xFF (a fat header claiming 4 GiB of code).
        cp "$tmp/pdb/Ilmap.Trace.exe" "$tmp/pdb/Ilmap.Trace.pdb" "$tmp/h1/"
        "$listing" --bodies "$tmp/h1/Ilmap.Trace.exe" >"$tmp/bodies"
        while read -r _ at size; do
            head -c "$size" /dev/zero | tr '\0' '\377' | dd of="$tmp/h1/Ilmap.Trace.exe" bs=1 seek="$at" conv=notrunc 2>/dev/null
        done <"$tmp/bodies"
        hostile_il "bodies of 0xFF" "$all_amb" --search "$tmp/h1"
        # 2.-4. A cache given alone, and beside it: the PE cut in half, another build's PE, the PE.
        "$ilmap" compile -q "$tmp/pdb/Ilmap.Trace.exe" -o "$tmp/h2/Ilmap.Trace.ilmap" || { echo "FAIL compile"; fail=$((fail + 1)); }
        cp "$tmp/h2/Ilmap.Trace.ilmap" "$tmp/h3/" && cp "$tmp/h2/Ilmap.Trace.ilmap" "$tmp/h4/"
        head -c $(($(stat -c %s "$tmp/pdb/Ilmap.Trace.exe") / 2)) "$tmp/pdb/Ilmap.Trace.exe" >"$tmp/h2/Ilmap.Trace.exe"
        hostile_il "PE truncated beside the cache" "$all_amb" --search "$tmp/h2/Ilmap.Trace.ilmap"
        cp "$(ls "$root"/corpus/out/cs-frames/*.dll | head -n1)" "$tmp/h3/Ilmap.Trace.exe"
        hostile_il "another PE beside the cache" "$all_amb" --search "$tmp/h3/Ilmap.Trace.ilmap"
        cp "$tmp/pdb/Ilmap.Trace.exe" "$tmp/h4/"
        hostile_il "the PE beside the cache" "$il_trace_amb" --search "$tmp/h4/Ilmap.Trace.ilmap"
    fi
    # The IL must have decided overloads of both kinds (Trace.cs: Over, Relay): a check that can fail.
    echo "android overloads: $il_bound decided by il_boundary, $il_call by call_target, $ambiguous ambiguous"
    if [ "$il_bound" -eq 0 ] || [ "$il_call" -eq 0 ]; then echo "FAIL android: the IL decided no overload by boundary or by call target"; fail=$((fail + 1)); fi
else
    cp "$tmp/pdb/Ilmap.Trace.exe" "$tmp/nopdb/" 
    mono "$tmp/nopdb/Ilmap.Trace.exe" >"$tmp/b" 2>&1
    mono --debug "$tmp/pdb/Ilmap.Trace.exe" >"$tmp/a" 2>&1
    sym "$tmp/b" >"$tmp/got" 2>"$tmp/err"
    # Brackets aside; the documented frames of mono-differences.txt take symbolicate's line.
    norm() { sed -E 's/ \[0x[0-9a-f]+\] in / [IL] in /' "$1"; }
    norm "$tmp/a" >"$tmp/a.n"
    norm "$tmp/got" >"$tmp/got.n"
    grep -v '^#' "$here/mono-differences.txt" | grep -v '^$' | while IFS= read -r frame; do
        pat=$(printf '%s' "$frame" | sed 's/[][\.*^$#]/\\&/g')
        sed -i "s#^\(  at $pat \[IL\] in [^:]*:\)[0-9]* #\1(Mono differs) #" "$tmp/a.n" "$tmp/got.n"
    done
    check "mono Ilmap.Trace.exe" "$tmp/a.n" "$tmp/got.n"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
