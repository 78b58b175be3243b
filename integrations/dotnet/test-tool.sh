#!/usr/bin/env bash
# End-to-end test of the `ilmap` .NET tool (Ilmap.Tool, package id dotnet-ilmap):
# test-tool.sh ILMAP_EXE CORPUS_DIR OUTDIR (ctest dotnet_ilmap_tool passes them). Packs the tool with
# the given ilmap program into a local feed under OUTDIR (a clean pack: no NU5xxx warning, no
# missing readme or licence; without -p:IlmapNativeDir it fails saying how to pass it), installs it
# with `dotnet tool install --tool-path` (a folder under OUTDIR: the machine's tools are not
# touched), then checks that the installed `ilmap`, a launcher of the packed program:
#   1. prints the project's VERSION for --version;
#   2. compiles a corpus PDB into the same cache as ILMAP_EXE does (byte for byte), and answers
#      `lookup` (one query on the command line, and a batch on standard input) with the same
#      standard output and exit code as ILMAP_EXE on that cache;
#   3. returns the program's exit code and message for an unknown command and a missing file;
#   4. gives the packed program back its executable bit when it lost it;
#   5. without a program for the machine's RID, prints one line and exits 1;
#   6. hands SIGTERM on to the program and exits as it does (143).
# With ILMAP_WINDOWS_BUILD (scripts/build.sh windows) the package carries native/win-x64/ilmap.exe
# too, checked to be a PE32+ x86-64 program (objdump -f: pei-x86-64).
# Exit 77 (skip) without dotnet or when the pack's packages cannot be restored.
set -euo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 ILMAP_EXE CORPUS_DIR OUTDIR" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"
ilmap_require_dotnet
exe=$(realpath "$1")
corpus=$(realpath "$2")
mkdir -p "$3"
out=$(cd "$3" && pwd)
rm -rf "$out/native" "$out/feed" "$out/feed-none" "$out/packages" "$out/pack" "$out/tools" "$out/scratch"
mkdir -p "$out/native" "$out/feed" "$out/scratch"
cp "$exe" "$out/native/ilmap"
fail() { echo "FAIL: $*" >&2; exit 1; }
# linux-arm64 (ILMAP_ARM64_BUILD, as in test-build.sh): packed as native/linux-arm64/ilmap.
arm64=""
if [ -n "${ILMAP_ARM64_BUILD:-}" ] && [ -x "$ILMAP_ARM64_BUILD/tools/ilmap" ]; then
    arm64=yes
    mkdir -p "$out/native/linux-arm64"
    cp "$ILMAP_ARM64_BUILD/tools/ilmap" "$out/native/linux-arm64/ilmap"
fi
# win-x64 (ILMAP_WINDOWS_BUILD, as in test-build.sh): packed as native/win-x64/ilmap.exe.
windows=""
if [ -n "${ILMAP_WINDOWS_BUILD:-}" ] && [ -f "$ILMAP_WINDOWS_BUILD/tools/ilmap.exe" ]; then
    windows=yes
    mkdir -p "$out/native/win-x64"
    cp "$ILMAP_WINDOWS_BUILD/tools/ilmap.exe" "$out/native/win-x64/ilmap.exe"
fi
version=$(head -n 1 "$here/../../VERSION")
pdb="$corpus/out/cs-frames/Ilmap.Corpus.Frames.pdb"
[ -f "$pdb" ] || fail "no $pdb"

# A package folder of our own: every run installs the package packed now.
export NUGET_PACKAGES="$out/packages"
project="$here/Ilmap.Tool/Ilmap.Tool.csproj"
[ -f "$project" ] || fail "no $project"
if ! dotnet restore "$project" "${ilmap_restore_args[@]}" --artifacts-path "$out/pack" -v q \
        "${ilmap_build_args[@]}" >"$out/restore.log" 2>&1; then
    cat "$out/restore.log"
    echo "SKIP: the tool's packages could not be restored (log: $out/restore.log)"
    exit 77
fi
echo "== pack"
if ! dotnet pack "$project" -c Release --no-restore -o "$out/feed" --artifacts-path "$out/pack" \
        -p:IlmapNativeDir="$out/native" -v n "${ilmap_build_args[@]}" >"$out/pack.log" 2>&1; then
    grep -E 'error|warning' "$out/pack.log" >&2 || tail -n 30 "$out/pack.log" >&2
    fail "dotnet pack Ilmap.Tool (log: $out/pack.log)"
fi
! grep -E 'warning NU5|missing a (readme|license)' "$out/pack.log" >&2 \
    || fail "dotnet pack Ilmap.Tool: the package metadata is incomplete (log: $out/pack.log)"
# The listing in a file first: `unzip -l | grep -q` fails under pipefail when grep stops reading early.
unzip -l "$out/feed/dotnet-ilmap.$version.nupkg" >"$out/scratch/package.list"
grep -q " tools/net8.0/any/native/linux-x64/ilmap$" "$out/scratch/package.list" \
    || fail "the package lacks tools/net8.0/any/native/linux-x64/ilmap"
if [ -n "$arm64" ]; then
    grep -q " tools/net8.0/any/native/linux-arm64/ilmap$" "$out/scratch/package.list" \
        || fail "the package lacks tools/net8.0/any/native/linux-arm64/ilmap"
    unzip -p "$out/feed/dotnet-ilmap.$version.nupkg" tools/net8.0/any/native/linux-arm64/ilmap >"$out/scratch/arm64-ilmap"
    [[ $(readelf -h "$out/scratch/arm64-ilmap") == *"Machine:"*"AArch64"* ]] || fail "native/linux-arm64/ilmap is not an AArch64 program"
    echo "ok: the package carries the linux-arm64 program"
fi
if [ -n "$windows" ]; then
    grep -q " tools/net8.0/any/native/win-x64/ilmap.exe$" "$out/scratch/package.list" \
        || fail "the package lacks tools/net8.0/any/native/win-x64/ilmap.exe"
    unzip -p "$out/feed/dotnet-ilmap.$version.nupkg" tools/net8.0/any/native/win-x64/ilmap.exe >"$out/scratch/win-ilmap.exe"
    [[ $(x86_64-w64-mingw32-objdump -f "$out/scratch/win-ilmap.exe") == *"file format pei-x86-64"* ]] \
        || fail "native/win-x64/ilmap.exe is not a PE32+ x86-64 program"
    echo "ok: the package carries the win-x64 program (pei-x86-64)"
fi
if dotnet pack "$project" -c Release --no-restore -o "$out/feed-none" --artifacts-path "$out/pack" -v q \
        "${ilmap_build_args[@]}" >"$out/pack-none.log" 2>&1; then
    fail "dotnet pack Ilmap.Tool without IlmapNativeDir succeeded"
fi
grep -q 'error : ilmap tool: pass the folder of the built ilmap program: dotnet pack -p:IlmapNativeDir=DIR' "$out/pack-none.log" \
    || { cat "$out/pack-none.log" >&2; fail "dotnet pack Ilmap.Tool without IlmapNativeDir: no message saying how to pass it"; }
echo "ok: packed (no NU5xxx warning, readme and licence present; without IlmapNativeDir the pack fails)"

echo "== install"
# Only the local feed: no other source may offer a package of that name.
cat >"$out/NuGet.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="ilmap-local" value="$out/feed" />
  </packageSources>
</configuration>
XML
dotnet tool install --tool-path "$out/tools" dotnet-ilmap --configfile "$out/NuGet.config" --version "$version" \
    >"$out/install.log" 2>&1 || { cat "$out/install.log"; fail "dotnet tool install"; }
tool="$out/tools/ilmap"
[ -x "$tool" ] || fail "no $tool after the install"
echo "ok"

echo "== 1. --version"
got=$("$tool" --version) || fail "ilmap --version: exit $?"
[ "$got" = "ilmap $version" ] || fail "ilmap --version printed '$got', not 'ilmap $version'"
echo "ok: $got"

echo "== 2. compile and lookup as the program itself"
w="$out/scratch"
"$tool" compile "$pdb" -o "$w/tool.ilmap" -q || fail "ilmap (tool) compile: exit $?"
"$exe" compile "$pdb" -o "$w/native.ilmap" -q || fail "ilmap compile: exit $?"
cmp "$w/tool.ilmap" "$w/native.ilmap" || fail "the tool's cache differs from the program's"
"$tool" lookup "$w/tool.ilmap" 0x06000002 0 >"$w/one-tool.txt" || fail "ilmap (tool) lookup: exit $?"
"$exe" lookup "$w/tool.ilmap" 0x06000002 0 >"$w/one-native.txt" || fail "ilmap lookup: exit $?"
[ -s "$w/one-native.txt" ] || fail "empty answer"
cmp "$w/one-tool.txt" "$w/one-native.txt" || fail "the tool's lookup answer differs: $(cat "$w/one-tool.txt") vs $(cat "$w/one-native.txt")"
# A batch through standard input: every method of the cache and some that are not, at a few offsets.
for m in $(seq 1 40); do for o in 0 1 7 0x20 -1; do printf '0x%08x %s\n' $((0x06000000 + m)) "$o"; done; done >"$w/queries.txt"
set +e
"$tool" lookup "$w/tool.ilmap" <"$w/queries.txt" >"$w/batch-tool.txt" 2>"$w/batch-tool.err"; rc_tool=$?
"$exe" lookup "$w/tool.ilmap" <"$w/queries.txt" >"$w/batch-native.txt" 2>"$w/batch-native.err"; rc_native=$?
set -e
[ "$rc_tool" = "$rc_native" ] || fail "batch lookup: the tool exits $rc_tool, the program $rc_native"
cmp "$w/batch-tool.txt" "$w/batch-native.txt" || fail "batch lookup: the tool's answers differ"
cmp "$w/batch-tool.err" "$w/batch-native.err" || fail "batch lookup: the tool's standard error differs"
echo "ok: $(grep -vc '??' "$w/batch-tool.txt") answers and $(grep -c '??' "$w/batch-tool.txt") misses, as the program's; $(cat "$w/one-tool.txt")"

echo "== 3. exit codes and messages"
for args in "no-such-command" "lookup $w/missing.ilmap 0x06000001 0" "lookup $w/tool.ilmap 0x06000099 0"; do
    set +e
    # shellcheck disable=SC2086
    "$tool" $args >"$w/t.out" 2>"$w/t.err"; rc_tool=$?
    # shellcheck disable=SC2086
    "$exe" $args >"$w/n.out" 2>"$w/n.err"; rc_native=$?
    set -e
    [ "$rc_tool" = "$rc_native" ] || fail "ilmap $args: the tool exits $rc_tool, the program $rc_native"
    [ "$rc_tool" != 0 ] || fail "ilmap $args: exit 0"
    cmp "$w/t.out" "$w/n.out" && cmp "$w/t.err" "$w/n.err" || fail "ilmap $args: the tool's output differs"
    echo "ok: ilmap $args -> exit $rc_tool"
done

echo "== 4. the executable bit"
packed=$(find "$out/tools/.store" -path '*/native/linux-x64/ilmap' -type f)
[ -n "$packed" ] || fail "no native/linux-x64/ilmap in the installed tool"
chmod a-x "$packed"
"$tool" --version >/dev/null || fail "the tool did not run a program without its executable bit (exit $?)"
[ -x "$packed" ] || fail "the tool did not restore the executable bit"
echo "ok"

echo "== 5. no program for this machine"
# The package as it would be for another RID only: its program moved to native/linux-s390x/.
rid_dir=$(dirname "$packed")
other="$(dirname "$rid_dir")/linux-s390x"
mv "$rid_dir" "$other"
set +e
"$tool" --version >"$w/none.out" 2>"$w/none.err"; rc=$?
set -e
mv "$other" "$rid_dir"
[ "$rc" = 1 ] || fail "without a program: exit $rc, not 1"
[ ! -s "$w/none.out" ] || fail "without a program: output on stdout"
[ "$(wc -l <"$w/none.err")" = 1 ] || { cat "$w/none.err"; fail "without a program: not one line"; }
grep -q '^ilmap: error: this package has no ilmap program for .*(it carries: \(linux-arm64, \)\?linux-s390x\(, win-x64\)\?)' "$w/none.err" \
    || { cat "$w/none.err"; fail "without a program: the message does not say so"; }
cat "$w/none.err"
echo "ok"
echo "== 6. SIGTERM to the launcher reaches the program"
# A batch lookup waits on its standard input (a FIFO held open by a writer of ours).
rm -f "$w/fifo" && mkfifo "$w/fifo"
sleep 120 >"$w/fifo" &
holder=$!
"$tool" lookup "$w/tool.ilmap" <"$w/fifo" >/dev/null 2>&1 &
launcher=$!
child=
for _ in $(seq 1 100); do
    child=$(pgrep -P "$launcher" || true)
    [ -n "$child" ] && break
    sleep 0.1
done
[ -n "$child" ] || { kill "$launcher" "$holder" 2>/dev/null; fail "the launcher started no program"; }
kill -TERM "$launcher"
set +e
wait "$launcher"; rc=$?
set -e
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
[ "$rc" = 143 ] || fail "the launcher, sent SIGTERM, exits $rc, not 143 (the program's death by SIGTERM)"
! kill -0 "$child" 2>/dev/null || fail "the program ($child) still runs after the launcher's SIGTERM"
echo "ok: exit $rc, the program ended"
echo "ilmap tool: 6 passed, 0 failed"
