#!/bin/bash
# check-names.sh REPO_ROOT NAMES_ORACLE NAMES_DUMP [ILMAP]
# ilmap's method names (decode/names, printed by the test helper ilmap_names_dump) against the
# .NET runtime's (NamesOracle, see README.md), for every corpus PE REPO_ROOT/corpus/out/*/*.dll:
#   - every MethodDef: the CoreCLR frame text (the runtime's StackTrace.ToString of that method)
#     and the Mono text (Mono's rule evaluated over CoreCLR reflection) must be equal;
#   - every frame the runtime itself printed for the scenarios of cs-frames and cs-signatures
#     (real exceptions through async methods, iterators, lambdas, local functions, generics) must
#     equal ilmap's text for the frame's token;
#   - with ILMAP: every corpus PE compiled into a cache, whose `ilmap dump --methods` (the
#     cache's names section, format 1.1) must equal the runtime's two columns line for line;
#   - every MethodDef of a few assemblies of the runtime's own shared framework, and of the SDK's
#     FSharp.Core, must give the same two texts.
# Exit: 0 all agree, 1 some differ, 2 usage, 77 the oracle is absent.
set -u
export LC_ALL=C
if [ $# -ne 3 ] && [ $# -ne 4 ]; then
    echo "usage: $0 REPO_ROOT NAMES_ORACLE NAMES_DUMP [ILMAP]" >&2
    exit 2
fi
root=$1
oracle=$2
dump=$3
ilmap=${4:-}
[ -x "$oracle" ] || { echo "SKIP: oracle $oracle not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oracle-names.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# FSharp.Core for the F# corpus: the SDK ships it in sdk/<version>/FSharp/.
probe=()
while read -r version base; do
    base=${base#[}; base=${base%]}
    [ -d "$base/$version/FSharp" ] && probe+=("$base/$version/FSharp")
done < <(dotnet --list-sdks 2>/dev/null)

pass=0
fail=0
# compare NAME A B: A, B are "token TAB text..." files; prints up to 5 differences.
compare() {
    if cmp -s "$2" "$3"; then
        echo "ok   $1 ($(wc -l <"$2") lines)"
        pass=$((pass + 1))
    else
        echo "FAIL $1 (< runtime, > ilmap)"
        diff "$2" "$3" | grep '^[<>]' | head -n 10 | sed 's/^/     /'
        fail=$((fail + 1))
    fi
}

for dll in "$root"/corpus/out/*/*.dll; do
    name=$(basename "$(dirname "$dll")")
    if ! "$oracle" methods "$dll" "${probe[@]}" >"$tmp/oracle" 2>"$tmp/err"; then
        echo "FAIL $name: oracle: $(head -n1 "$tmp/err")"
        fail=$((fail + 1))
        continue
    fi
    if ! "$dump" "$dll" >"$tmp/mine" 2>"$tmp/err"; then
        echo "FAIL $name: ilmap: $(head -n1 "$tmp/err")"
        fail=$((fail + 1))
        continue
    fi
    cut -f1,2 "$tmp/oracle" >"$tmp/a"; cut -f1,2 "$tmp/mine" >"$tmp/b"
    compare "$name coreclr" "$tmp/a" "$tmp/b"
    cut -f1,3 "$tmp/oracle" >"$tmp/a"; cut -f1,3 "$tmp/mine" >"$tmp/b"
    compare "$name mono" "$tmp/a" "$tmp/b"
    # The same names through a cache and the CLI (texts without control characters, so the
    # escaping of dump is the identity here).
    if [ -n "$ilmap" ]; then
        if "$ilmap" compile -q --force "$dll" -o "$tmp/c.ilmap" 2>"$tmp/err" &&
           "$ilmap" dump --methods "$tmp/c.ilmap" >"$tmp/cli" 2>>"$tmp/err"; then
            compare "$name cache dump --methods" "$tmp/oracle" "$tmp/cli"
        else
            echo "FAIL $name cache: $(head -n1 "$tmp/err")"
            fail=$((fail + 1))
        fi
    fi

    # The runtime's own frames, for corpus programs with scenarios (exit 3: none).
    "$oracle" frames "$dll" "${probe[@]}" >"$tmp/frames" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 3 ]; then
        continue
    elif [ $rc -ne 0 ] || [ ! -s "$tmp/frames" ]; then
        echo "FAIL $name runtime frames: $(head -n1 "$tmp/err")"
        fail=$((fail + 1))
        continue
    fi
    # ilmap's text for each frame's token, in the runtime's frame order.
    awk -F'\t' 'NR == FNR { t[$1] = $2; next } { print $1 "\t" t[$1] }' "$tmp/mine" "$tmp/frames" >"$tmp/b"
    compare "$name runtime frames" "$tmp/frames" "$tmp/b"
done

# Framework assemblies of the runtime the oracle runs on (both sides read the same files): large,
# real-world metadata (CoreLib's 41k methods, compiler-generated names with ',' that FullName
# escapes, F# and VB libraries).
fw=$("$oracle" runtime-dir 2>/dev/null)
for asm in System.Private.CoreLib System.Net.Http System.Linq System.Text.Json Microsoft.VisualBasic.Core; do
    dll=$fw/$asm.dll
    [ -f "$dll" ] || { echo "FAIL framework $asm: $dll not found"; fail=$((fail + 1)); continue; }
    if ! "$oracle" methods "$dll" >"$tmp/oracle" 2>"$tmp/err" || ! "$dump" "$dll" >"$tmp/mine" 2>>"$tmp/err"; then
        echo "FAIL framework $asm: $(head -n1 "$tmp/err")"
        fail=$((fail + 1))
        continue
    fi
    compare "framework $asm" "$tmp/oracle" "$tmp/mine"
done
for dir in "${probe[@]}"; do
    [ -f "$dir/FSharp.Core.dll" ] || continue
    if "$oracle" methods "$dir/FSharp.Core.dll" >"$tmp/oracle" 2>"$tmp/err" && "$dump" "$dir/FSharp.Core.dll" >"$tmp/mine"; then
        compare "sdk FSharp.Core" "$tmp/oracle" "$tmp/mine"
    else
        echo "FAIL sdk FSharp.Core: $(head -n1 "$tmp/err")"
        fail=$((fail + 1))
    fi
    break
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
