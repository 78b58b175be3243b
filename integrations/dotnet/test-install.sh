#!/usr/bin/env bash
# The NuGet packages installed as README.md says: test-install.sh BUILD README OUTDIR (ctest
# dotnet_ilmap_install passes them; BUILD is a CMake build with tools/ilmap and capi/libilmap.so.1,
# ILMAP_ARM64_BUILD the arm64 one when it was built). Stages the native files with stage-native.sh
# and packs Ilmap, Ilmap.Build and the tool as scripts/package.sh does, into the folder README's
# block names (`dotnet nuget add source "$PWD/FOLDER"`) of a stand-in ilmap checkout, then:
#   1. the stripped libraries: each libilmap.so in the Ilmap package has no symbol table and names
#      its debug file (.gnu_debuglink), and Ilmap.VERSION.symbols.nupkg holds that file beside it
#      (runtimes/RID/native/libilmap.so.debug, the same build id);
#   2. README's commands as written: the ```sh block of its "Install" section that adds the NuGet
#      source, each line run in the folder its comment names ("in the ilmap checkout", "in your
#      project's folder": a fresh `dotnet new console` project), as a new user: a HOME of its own
#      whose NuGet configuration is the machine's (its default source stands in for nuget.org),
#      no NuGet.config around the folders. Every .NET command of README's install table must be
#      a line of that block, so the table cannot drift from what is run. Then the project builds,
#      Ilmap.Build leaves App.ilmap beside App.pdb, the app opens it through Ilmap and answers a
#      lookup of its own Main, and the installed tool prints the project's version;
#   3. `dotnet publish -r linux-x64` of that project copies linux-x64's libilmap.so alone (and no
#      runtimes/ folder), while the portable build has one per RID of the package. Without an
#      arm64 build the package is given a stand-in linux-arm64 library (a copy of the x64 one), so
#      that there are two RIDs to choose from, and the test says so.
# Exit 77 (skip) without dotnet, or when the machine's NuGet sources cannot serve the Ilmap
# package's dependencies (the pack restores them first).
set -euo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 BUILD README OUTDIR" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"
ilmap_require_dotnet
build=$(cd "$1" && pwd)
readme=$(realpath "$2")
mkdir -p "$3"
out=$(cd "$3" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
version=$(head -n 1 "$here/../../VERSION")
# The machine's NuGet sources, read outside any NuGet.config of this tree, before HOME changes.
mapfile -t sources < <(cd / && dotnet nuget list source --format short 2>/dev/null | awk '$1 ~ /^E/ {print $2}')
[ ${#sources[@]} -gt 0 ] || { echo "SKIP: this machine has no enabled NuGet source"; exit 77; }

# A folder away from this tree: no NuGet.config or Directory.Build.* of ours above the project.
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-install.XXXXXX")
checkout="$work/ilmap"
# The folder README's commands make a source of: package.sh's output, as README names it.
feed_rel=$(sed -n 's|^dotnet nuget add source "\$PWD/\([^"]*\)".*|\1|p' "$readme" | sed -n 1p)
[ -n "$feed_rel" ] || fail "README.md has no line 'dotnet nuget add source \"\$PWD/FOLDER\"'"
feed="$checkout/$feed_rel"
project="$work/App"
newhome="$work/home"
mkdir -p "$feed" "$newhome/.nuget/NuGet"

echo "== packs (stage-native.sh, as scripts/package.sh)"
native="$out/native"
rm -rf "$native" "$out/pack"
arm64_build=""
if [ -n "${ILMAP_ARM64_BUILD:-}" ] && [ -f "$ILMAP_ARM64_BUILD/capi/libilmap.so.1" ]; then
    arm64_build=$ILMAP_ARM64_BUILD
fi
bash "$here/stage-native.sh" "$native" "$build" ${arm64_build:+"$arm64_build"}
if [ -z "$arm64_build" ]; then
    echo "note: no linux-arm64 build (ILMAP_ARM64_BUILD): a copy of the linux-x64 library stands in for it"
    mkdir -p "$native/linux-arm64"
    cp "$native/libilmap.so" "$native/libilmap.so.debug" "$native/linux-arm64/"
fi
export NUGET_PACKAGES="$out/pack-packages"
for p in Ilmap Ilmap.Build Ilmap.Tool; do
    if ! dotnet restore "$here/$p/$p.csproj" "${ilmap_restore_args[@]}" --artifacts-path "$out/pack" \
            -v q "${ilmap_build_args[@]}" >"$out/restore-$p.log" 2>&1; then
        cat "$out/restore-$p.log"
        echo "SKIP: $p's packages could not be restored from this machine's sources (log: $out/restore-$p.log)"
        exit 77
    fi
    dotnet pack "$here/$p/$p.csproj" -c Release --no-restore -o "$feed" --artifacts-path "$out/pack" \
        -p:IlmapNativeDir="$native" -v n "${ilmap_build_args[@]}" >"$out/pack-$p.log" 2>&1 \
        || { grep -E 'error|warning' "$out/pack-$p.log" >&2; fail "dotnet pack $p (log: $out/pack-$p.log)"; }
done
unset NUGET_PACKAGES
ls "$feed"

echo "== 1. the Ilmap package's native libraries are stripped, their debug files in the symbols package"
nupkg="$feed/Ilmap.$version.nupkg"
symbols="$feed/Ilmap.$version.symbols.nupkg"
[ -f "$symbols" ] || fail "no $(basename "$symbols")"
rm -rf "$out/unpacked" && mkdir -p "$out/unpacked/pkg" "$out/unpacked/sym"
unzip -q "$nupkg" -d "$out/unpacked/pkg" && unzip -q "$symbols" -d "$out/unpacked/sym"
build_id() { readelf -n "$1" | awk '/Build ID/ {print $3}'; }
for rid in linux-x64 linux-arm64; do
    lib="$out/unpacked/pkg/runtimes/$rid/native/libilmap.so"
    dbg="$out/unpacked/sym/runtimes/$rid/native/libilmap.so.debug"
    [ -f "$lib" ] || fail "the Ilmap package lacks runtimes/$rid/native/libilmap.so"
    ! readelf -S -W "$lib" | grep -E '\.symtab|\.debug_' || fail "$rid's libilmap.so is not stripped"
    readelf -S -W "$lib" | grep '\.gnu_debuglink' >/dev/null || fail "$rid's libilmap.so does not name its debug file"
    [ ! -e "$out/unpacked/pkg/runtimes/$rid/native/libilmap.so.debug" ] || fail "the Ilmap package carries $rid's debug file"
    [ -f "$dbg" ] || fail "the symbols package lacks runtimes/$rid/native/libilmap.so.debug"
    readelf -S -W "$dbg" | grep '\.symtab' >/dev/null || fail "$rid's libilmap.so.debug has no symbol table"
    [ "$(build_id "$lib")" = "$(build_id "$dbg")" ] || fail "$rid: the debug file's build id is not the library's"
    echo "ok: $rid libilmap.so $(stat -c %s "$lib") bytes, stripped; debug file $(stat -c %s "$dbg") bytes, build id $(build_id "$lib")"
done

echo "== 2. README's commands, as a new user"
# README's block: the ```sh block of "## Install" that adds the NuGet source.
# One awk reading the file: a pipe into an awk that exits at the block would end the first one
# with SIGPIPE now and then, and pipefail with set -e would stop the test without a word.
block=$(awk '/^## /{inst = ($0 == "## Install")} !inst{next}
    /^```sh$/{b=1; t=""; next} /^```$/{if (b && t ~ /dotnet nuget add source/) {printf "%s", t; exit} b=0; next}
    b{t = t $0 "\n"}' "$readme")
[ -n "$block" ] || fail "README.md's Install section has no \`\`\`sh block that adds a NuGet source"
printf '%s\n' "$block" >"$out/readme-commands.sh"
# Every .NET command of the install table is a line of the block.
while IFS= read -r cmd; do
    grep -qxF -- "$cmd" "$out/readme-commands.sh" || fail "README's install table gives '$cmd', which its sh block does not run"
done < <(grep '^| \.NET' "$readme" | grep -o '`dotnet [^`]*`' | tr -d '`')
# The new user: a HOME of their own, configured with the machine's sources.
{
    echo '<?xml version="1.0" encoding="utf-8"?>'
    echo '<configuration>'
    echo '  <packageSources>'
    i=0
    for s in "${sources[@]}"; do i=$((i + 1)); echo "    <add key=\"default$i\" value=\"$s\" />"; done
    echo '  </packageSources>'
    echo '</configuration>'
} >"$newhome/.nuget/NuGet/NuGet.Config"
as_user() { env -u NUGET_PACKAGES -u DOTNET_CLI_HOME HOME="$newhome" "$@"; }
as_user dotnet new console --output "$project" --name App >"$out/new.log" 2>&1 \
    || { cat "$out/new.log"; fail "dotnet new console"; }
where=""
n=0
while IFS= read -r line; do
    case "$line" in
        "# in the ilmap checkout"*) where=$checkout; continue ;;
        "# in your project's folder"*) where=$project; continue ;;
        "#"* | "") continue ;;
    esac
    [ -n "$where" ] || fail "README's command '$line' comes before a comment saying where it runs"
    n=$((n + 1))
    echo "\$ (${where#"$work/"}) $line"
    (cd "$where" && as_user bash -euc "$line") >"$out/readme-$n.log" 2>&1 \
        || { cat "$out/readme-$n.log"; fail "README's command '$line' failed (in $where)"; }
done <"$out/readme-commands.sh"
[ $n -ge 3 ] || fail "README's block has only $n commands"
grep -q 'Include="Ilmap"' "$project/App.csproj" || fail "App.csproj does not reference Ilmap"
grep -q 'Include="Ilmap.Build"' "$project/App.csproj" || fail "App.csproj does not reference Ilmap.Build"
cat >"$project/Program.cs" <<'CS'
using Ilmap;

// Opens the cache Ilmap.Build made of this app and looks up the first sequence point of Main.
var method = typeof(Program).GetMethod("<Main>$", System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.NonPublic)!;
using var cache = IlmapCache.Open(Path.Combine(AppContext.BaseDirectory, "App.ilmap"));
if (!cache.TryLookup(method.MetadataToken, 0, out SourceLocation loc))
    return 3;
Console.WriteLine($"{Path.GetFileName(loc.File)}:{loc.Line}");
return 0;
CS
(cd "$project" && as_user dotnet build -v q "${ilmap_build_args[@]}") >"$out/app-build.log" 2>&1 \
    || { cat "$out/app-build.log"; fail "the project does not build with the packages"; }
bin="$project/bin/Debug/net10.0"
[ -f "$bin/App.ilmap" ] || fail "Ilmap.Build left no App.ilmap beside App.pdb"
answer=$(as_user dotnet "$bin/App.dll") || fail "the app did not run (exit $?)"
[ "$answer" = "Program.cs:4" ] || fail "the app looked up its Main at '$answer', not Program.cs:4"
tool_version=$(as_user "$newhome/.dotnet/tools/ilmap" --version) || fail "the installed tool did not run"
[[ $tool_version == *"$version"* ]] || fail "the installed tool says '$tool_version', not $version"
echo "ok: ran $n commands; the app resolves its Main to $answer through App.ilmap; the tool prints '$tool_version'"

echo "== 3. dotnet publish -r linux-x64 copies linux-x64's libilmap.so alone"
for rid in linux-x64 linux-arm64; do
    [ -f "$bin/runtimes/$rid/native/libilmap.so" ] || fail "the portable build lacks runtimes/$rid/native/libilmap.so"
done
(cd "$project" && as_user dotnet publish -r linux-x64 --self-contained false -o "$work/publish" -v q "${ilmap_build_args[@]}") \
    >"$out/publish.log" 2>&1 || { cat "$out/publish.log"; fail "dotnet publish -r linux-x64"; }
mapfile -t libs < <(cd "$work/publish" && find . -name 'libilmap*' | sort)
[ "${libs[*]}" = "./libilmap.so" ] || fail "the linux-x64 publish folder holds ${libs[*]:-no libilmap}, not ./libilmap.so alone"
[[ $(readelf -h "$work/publish/libilmap.so") == *"Machine:"*"X86-64"* ]] || fail "the published libilmap.so is not an x86-64 file"
cmp "$work/publish/libilmap.so" "$out/unpacked/pkg/runtimes/linux-x64/native/libilmap.so" || fail "the published libilmap.so is not the package's"
[ ! -e "$work/publish/runtimes" ] || fail "the linux-x64 publish folder has a runtimes/ folder"
echo "ok: publish -r linux-x64: libilmap.so alone ($(stat -c %s "$work/publish/libilmap.so") bytes)"
rm -rf "$work"
echo "Ilmap install: 3 passed, 0 failed"
