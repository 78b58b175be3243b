#!/bin/bash
# callee.sh REPO_ROOT ILMAP
# Android-form caller frames decided by their exact callee (docs/symbolicate.md, the Android row,
# step 2), against Mono's own answers. callee/Library.cs (overloads Reader.M(String) and
# M(Stream) that both call an overload named M; BufferedSink.Write overloads that call Send on
# their own type and on the base type Sink; BufferedSink.Flush overriding Sink.Flush) and callee/App.cs (Client.Load overloads, in another
# assembly, calling the library's M overloads through MemberRefs; Client.Fill and Client.All
# calling Box<int>.Put and Reader.Each<int> overloads through MemberRefs on a TypeSpec and
# through MethodSpecs) are built by the SDK's Roslyn
# against Mono's mscorlib, then run by Mono
#   (a) with --debug and the PDBs present: Mono prints "in FILE:LINE" for every frame;
#   (b) without symbols: "[0xOFF] in <mvid>:0", rewritten to the form of .NET on Android
#       ("at NS.T.M + 0xOFF(Unknown Source)"; Mono is Android's runtime).
# symbolicate of (b) must give every frame (a)'s method, parameter names, file and line
# (generic types' "[T]" aside: CoreCLR's names have none), but one: Client.Pair, whose frame
# above is one of two Reader.Two overloads of one span (resolved to the span, not to one
# method), stays "ambiguous name" rather than be guessed. Then the
# same trace without the library in the search set: the frames above the Client overloads stay
# unresolved, so those are told apart by the called name alone (today's rule, unchanged),
# which cannot: each of those frames stays "ambiguous name", none is resolved.
# Exit: 0 equal, 1 different, 2 usage, 77 mono, the SDK's csc or Mono's mscorlib is absent.
set -u
export LC_ALL=C
[ $# -eq 2 ] || { echo "usage: $0 REPO_ROOT ILMAP" >&2; exit 2; }
root=$1 ilmap=$2
here=$root/tests/symbolicate
command -v dotnet >/dev/null || { echo "SKIP: dotnet not found"; exit 77; }
command -v mono >/dev/null || { echo "SKIP: mono not found"; exit 77; }
sdk=$(dotnet --list-sdks 2>/dev/null | tail -n1 | sed -E 's/^([^ ]+) \[(.*)\]$/\2\/\1/')
csc=$sdk/Roslyn/bincore/csc.dll
mscorlib=${MONO_LIB_DIR:-/usr/lib/mono/4.5}
[ -f "$csc" ] || { echo "SKIP: the SDK's csc.dll not found"; exit 77; }
[ -f "$mscorlib/mscorlib.dll" ] || { echo "SKIP: Mono's mscorlib.dll not found (mono-runtime)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-sym-callee.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/pdb" "$tmp/nopdb" "$tmp/app-only"
build() {  # OUT SOURCE [csc options...]
    local out=$1 src=$2; shift 2
    dotnet "$csc" -nologo -noconfig -nostdlib -optimize+ -langversion:7.3 -r:"$mscorlib/mscorlib.dll" \
        -debug:portable -deterministic -pathmap:"$here/callee=/_/" -out:"$out" "$@" "$src" >"$tmp/csc.log" 2>&1 ||
        { cat "$tmp/csc.log"; echo "FAIL: csc $src"; exit 1; }
}
build "$tmp/pdb/Ilmap.Callee.Library.dll" "$here/callee/Library.cs" -t:library
build "$tmp/pdb/Ilmap.Callee.App.exe" "$here/callee/App.cs" -r:"$tmp/pdb/Ilmap.Callee.Library.dll"
cp "$tmp/pdb/Ilmap.Callee.Library.dll" "$tmp/pdb/Ilmap.Callee.App.exe" "$tmp/nopdb/"
cp "$tmp/pdb/Ilmap.Callee.App.exe" "$tmp/pdb/Ilmap.Callee.App.pdb" "$tmp/app-only/"
mono --debug "$tmp/pdb/Ilmap.Callee.App.exe" >"$tmp/a" 2>&1
mono "$tmp/nopdb/Ilmap.Callee.App.exe" >"$tmp/b" 2>&1
grep -q 'in /_/Library.cs:[0-9]' "$tmp/a" || { echo "FAIL: mono --debug printed no line of the library"; cat "$tmp/a"; exit 1; }
grep -q '\] in <[0-9a-f]*>:0' "$tmp/b" || { echo "FAIL: mono printed no <mvid> frame"; cat "$tmp/b"; exit 1; }
# (b) in the Android form: "  at NS.T.M + 0xOFF(Unknown Source)", the offset without leading zeros.
awk '/\[0x[0-9a-f]+\] in <[0-9a-f#]+>:0/ {
        at = index($0, "at "); head = substr($0, 1, at + 2); rest = substr($0, at + 3)
        meth = substr(rest, 1, index(rest, " (") - 1)
        gsub(/\[[^]]*\]\./, ".", meth); gsub(/\+/, ".", meth)  # "Box`1[T].Put" -> "Box`1.Put", as CoreCLR names it
        off = rest; sub(/.*\[0x/, "", off); sub(/\].*/, "", off); sub(/^0+/, "", off); if (off == "") off = "0"
        print head meth " + 0x" off "(Unknown Source)"; next }
     { print }' "$tmp/b" >"$tmp/android"
# A frame line as "METHOD(param names) FILE:LINE", from Mono's text (a) or CoreCLR's (symbolicate);
# any other line as it is.
norm() {
    awk '/^ *at / && / in \/.*:(line )?[0-9]+ ?$/ {
            rest = substr($0, index($0, "at ") + 3)
            p = index(rest, "(")
            if (!p) { loc = rest; sub(/ in .*/, "", rest); sub(/.* in /, "", loc); sub(/:line /, ":", loc); print "  at " rest " " loc; next }
            meth = substr(rest, 1, p - 1); sub(/ $/, "", meth)
            gsub(/\[[^]]*\]\./, ".", meth); gsub(/\+/, ".", meth)
            args = substr(rest, p + 1, index(rest, ")") - p - 1); n = split(args, parts, ", "); names = ""
            for (i = 1; i <= n; i++) { k = split(parts[i], w, " "); names = names (i > 1 ? "," : "") w[k] }
            loc = rest; sub(/.* in /, "", loc); sub(/ $/, "", loc); sub(/:line /, ":", loc)
            print "  at " meth "(" names ") " loc; next }
         { sub(/ $/, ""); print }' "$1"
}
fail=0 pass=0
"$ilmap" symbolicate --search "$tmp/pdb" --cache-dir "$tmp/cache" "$tmp/android" >"$tmp/got" 2>"$tmp/err"
# Expected: (a), but Client.Pair's frame stays as it was: the frame above it (Reader.Two, two
# overloads of one span) resolved to a line, not to one method, so the name decides, and both
# Pair overloads call a Two.
norm "$tmp/a" | awk 'NR == FNR { an[FNR] = $0; next }
    { if (an[FNR] ~ /Client\.Pair \+ 0x/) print an[FNR]; else print $0 }' "$tmp/android" - >"$tmp/want.n"
norm "$tmp/got" >"$tmp/got.n"
# Reader.Two itself resolves to its span, printed with the name alone (overloads that agree on
# the line but not on the name): there the parameters are not compared.
awk 'NR == FNR { g[FNR] = $0; next } { if (g[FNR] ~ /^ *at [^(]* \//) sub(/\([^)]*\)/, ""); print }' \
    "$tmp/got.n" "$tmp/want.n" >"$tmp/want2.n" && mv "$tmp/want2.n" "$tmp/want.n"
frames=$(grep -c '^ *at ' "$tmp/a")
if cmp -s "$tmp/want.n" "$tmp/got.n" && grep -q ": $frames frames, $((frames - 1)) resolved, 1 unresolved (1 ambiguous name)\$" "$tmp/err"; then
    echo "ok   android frames of Mono's trace: $frames frames, each Mono's own method and line but Client.Pair's (ambiguous)"; pass=$((pass + 1))
else
    echo "FAIL android frames of Mono's trace (< Mono --debug, > symbolicate): $(cat "$tmp/err")"
    diff "$tmp/want.n" "$tmp/got.n" | sed 's/^/     /'; fail=$((fail + 1))
fi
"$ilmap" symbolicate --search "$tmp/pdb" --cache-dir "$tmp/cache" --json "$tmp/android" >"$tmp/json" 2>/dev/null
n_call=$(grep -c '"chosen_by":"call_target"' "$tmp/json")
echo "     chosen_by: $(grep -o '"chosen_by":"[a-z_]*"' "$tmp/json" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
# The caller frames of the overloads, each told apart only by the method its call names:
# Reader.M x8, Reader.Each x2, Box`1.Put x2, BufferedSink.Write x2, Client.Load x3, Client.Fill x2,
# Client.All x2; and Client.Drain, whose callvirt names Sink.Flush while the frame above is its
# override BufferedSink.Flush: by name (Flush vs ReadByte), never excluded for the other token.
if [ "$n_call" -ne 22 ]; then echo "FAIL: $n_call frames decided by call_target, want 22"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
# Without the library, the frames above Client's overloads are unresolved: the called name
# decides, and cannot (Load, Fill, All and Pair each call one name): those 8 frames stay
# ambiguous; Drain (Flush vs ReadByte) and Program.Run's 11 resolve.
"$ilmap" symbolicate --search "$tmp/app-only" --cache-dir "$tmp/cache2" "$tmp/android" >"$tmp/got2" 2>"$tmp/err2"
left=$(grep -c 'at Ilmap.Callee.App.Client.[A-Za-z]* + 0x' "$tmp/got2")
runs=$(grep -c 'in /_/App.cs:line' "$tmp/got2")
if [ "$left" -eq 8 ] && grep -q '[( ]8 ambiguous name' "$tmp/err2" && [ "$runs" -eq 12 ]; then
    echo "ok   frames above unresolved: 8 Client frames stay ambiguous by name, Drain and Run's 11 resolve"; pass=$((pass + 1))
else
    echo "FAIL frames above unresolved: $left Client frames left, $runs Run frames resolved: $(cat "$tmp/err2")"; fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
