#!/usr/bin/env bash
# End-to-end test of the NuGet packages: test-build.sh ILMAP_EXE LIBILMAP_SO OUTDIR
# (ctest dotnet_ilmap_build passes them). Packs Ilmap.Build and Ilmap with the given native files
# into a local feed under OUTDIR (checking that each pack is clean: no NU5xxx warning, no missing
# readme or licence, and that a pack without -p:IlmapNativeDir fails saying how to pass it),
# creates a sample console project there that references both (restored from that feed and the
# offline folder, into a package folder of its own), then checks:
#   1. dotnet build leaves Sample.ilmap beside Sample.pdb; `ilmap dump` of both is the same, and the
#      sample, run, resolves the top frame of its own exception (token and IL offset) to the line of
#      its throw through the Ilmap library: its managed reader, its native one (libilmap.so from
#      the package), and the managed one in a copy of the output without libilmap, where the
#      native reader throws PlatformNotSupportedException; the ilmap program (a build tool, under
#      the package's tools/linux-x64/) is neither in the output nor in Sample.deps.json;
#   2. a second build leaves the cache alone (same mtime; MSBuild skips the target);
#   3. -p:IlmapCompile=false makes no cache;
#   4. DebugType=embedded: the cache is made from the assembly, and dumps like it;
#   5. dotnet publish copies the cache to the publish folder, and not the ilmap program;
#   6. a corrupt PDB fails the build with ilmap's message;
#   7. a machine the package has no ilmap program for (-p:_IlmapHostRid=osx-arm64): the build
#      succeeds with one warning ILMAP003 and no cache; with IlmapExe given, the cache is made;
#      the program the targets pick for each RID (IlmapExe evaluated with -p:_IlmapHostRid=...):
#      tools/linux-x64/ilmap, tools/win-x64/ilmap.exe (when packed), none for win-arm64;
#   8. IlmapShowILOffsets=true puts the runtime's switch into Sample.runtimeconfig.json, and the
#      sample without its PDB prints "token 0x...+0x..." in its exception's stack trace, which
#      `ilmap lookup` resolves to the line of the throw; without the property it prints none;
#   9. a library for net10.0 and net8.0 packed with IncludeSymbols=true, SymbolPackageFormat=snupkg
#      and IlmapInSymbolPackage=true has each framework's .ilmap in the .snupkg beside its .pdb
#      (and not in the .nupkg), and so in a .symbols.nupkg; without IlmapInSymbolPackage its
#      .snupkg holds the .pdbs alone.
# With ILMAP_WINDOWS_BUILD (scripts/build.sh windows) the packages carry win-x64 too: each file a
# PE32+ x86-64 image (objdump -f: pei-x86-64), and the ilmap.dll taken out of the Ilmap .nupkg
# answers the C API test under Wine (tests/windows/capi.sh; ILMAP_CAPI_TEST is the Linux one).
# Exit 77 (skip) without dotnet or when the packages cannot be restored.
set -euo pipefail
if [ $# -ne 3 ]; then
    echo "usage: $0 ILMAP_EXE LIBILMAP_SO OUTDIR" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"
ilmap_require_dotnet
exe=$(realpath "$1")
lib=$(realpath "$2")
mkdir -p "$3"
out=$(cd "$3" && pwd)
rm -rf "$out/native" "$out/feed" "$out/feed-none" "$out/packages" "$out/sample" "$out/pack" "$out/lib" \
       "$out/no-native" "$out/no-pdb" "$out/publish"
mkdir -p "$out/native" "$out/feed" "$out/sample"
cp "$exe" "$out/native/ilmap"
cp "$lib" "$out/native/libilmap.so"
fail() { echo "FAIL: $*" >&2; exit 1; }
# linux-arm64 (ILMAP_ARM64_BUILD: the folder of scripts/build.sh arm64, when it was built): packed
# too, and checked to be in the packages.
arm64=""
if [ -n "${ILMAP_ARM64_BUILD:-}" ] && [ -x "$ILMAP_ARM64_BUILD/tools/ilmap" ] && [ -f "$ILMAP_ARM64_BUILD/capi/libilmap.so.1" ]; then
    arm64=yes
    mkdir -p "$out/native/linux-arm64"
    cp "$ILMAP_ARM64_BUILD/tools/ilmap" "$out/native/linux-arm64/ilmap"
    cp -L "$ILMAP_ARM64_BUILD/capi/libilmap.so.1" "$out/native/linux-arm64/libilmap.so"
fi
# win-x64 (ILMAP_WINDOWS_BUILD: the folder of scripts/build.sh windows, when it was built).
windows=""
if [ -n "${ILMAP_WINDOWS_BUILD:-}" ] && [ -f "$ILMAP_WINDOWS_BUILD/tools/ilmap.exe" ] && [ -f "$ILMAP_WINDOWS_BUILD/capi/ilmap.dll" ]; then
    windows=yes
    mkdir -p "$out/native/win-x64"
    cp "$ILMAP_WINDOWS_BUILD/tools/ilmap.exe" "$ILMAP_WINDOWS_BUILD/capi/ilmap.dll" "$out/native/win-x64/"
fi

# Packages: restore/pack with the offline folder only; a package folder of our own, so that
# every run uses the packages packed now (NuGet caches a package by id and version).
export NUGET_PACKAGES="$out/packages"
# Normal verbosity: NuGet's notes on the package (a missing readme, NU5xxx warnings) show there.
for p in Ilmap.Build Ilmap; do
    log="$out/pack-$p.log"
    if ! dotnet pack "$here/$p/$p.csproj" -c Release -o "$out/feed" "${ilmap_restore_args[@]}" \
            --artifacts-path "$out/pack" -p:IlmapNativeDir="$out/native" -v n \
            "${ilmap_build_args[@]}" >"$log" 2>&1; then
        grep -E 'error|warning' "$log" >&2 || tail -n 30 "$log" >&2
        fail "dotnet pack $p (log: $log)"
    fi
    if grep -E 'warning NU5|missing a (readme|license)' "$log" >&2; then
        fail "dotnet pack $p: the package metadata is incomplete (log: $log)"
    fi
    # Without the native files the pack stops before writing a package, and says what to pass.
    if dotnet pack "$here/$p/$p.csproj" -c Release -o "$out/feed-none" "${ilmap_restore_args[@]}" \
            --artifacts-path "$out/pack" -v q "${ilmap_build_args[@]}" >"$out/pack-none-$p.log" 2>&1; then
        fail "dotnet pack $p without IlmapNativeDir succeeded"
    fi
    grep -q "error : $p: pass the folder of the built .*-p:IlmapNativeDir=DIR" "$out/pack-none-$p.log" \
        || { cat "$out/pack-none-$p.log" >&2; fail "dotnet pack $p without IlmapNativeDir: no message saying how to pass it"; }
    [ -z "$(find "$out/feed-none" -name '*.nupkg' 2>/dev/null)" ] || fail "dotnet pack $p without IlmapNativeDir wrote a package"
done
echo "ok: packed Ilmap.Build and Ilmap (no NU5xxx warning, readme and licence present; without IlmapNativeDir the pack fails)"
version=$(head -n 1 "$here/../../VERSION")  # the one version of the project
ls "$out/feed/Ilmap.Build.$version.nupkg" "$out/feed/Ilmap.$version.nupkg" >/dev/null

s="$out/sample"
# The sample stands alone: no Directory.Build.* of the folders above it.
echo '<Project />' >"$s/Directory.Build.props"
echo '<Project />' >"$s/Directory.Build.targets"
cat >"$s/NuGet.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="ilmap-local" value="$out/feed" />
$( [ -d "$ilmap_nuget_source" ] && echo "    <add key=\"offline\" value=\"$ilmap_nuget_source\" />" )
$( i=0; for m in "${ilmap_machine_sources[@]}"; do i=$((i + 1)); echo "    <add key=\"machine$i\" value=\"$m\" />"; done )
  </packageSources>
</configuration>
XML
cat >"$s/Sample.csproj" <<XML
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFramework>net10.0</TargetFramework>
    <Nullable>enable</Nullable>
    <ImplicitUsings>disable</ImplicitUsings>
    <AllowUnsafeBlocks>true</AllowUnsafeBlocks>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Ilmap.Build" Version="$version" PrivateAssets="all" />
    <PackageReference Include="Ilmap" Version="$version" />
  </ItemGroup>
</Project>
XML
cat >"$s/Program.cs" <<'CS'
using System;
using System.Diagnostics;
using System.IO;
using Ilmap;

// Sample [managed|native|trace]: resolves the top frame of its own exception through
// Sample.ilmap with the reader named (exit 4 when it is not supported here), or, with "trace",
// prints the exception as the runtime formats it.
static class Program
{
    static void Fail() => throw new InvalidOperationException("the sample's own exception");

    static int Main(string[] args)
    {
        string mode = args.Length > 0 ? args[0] : "managed";
        if (mode == "trace")
        {
            try
            {
                Fail();
            }
            catch (InvalidOperationException e)
            {
                Console.WriteLine(e.ToString());
            }
            return 0;
        }
        string cache = Path.Combine(AppContext.BaseDirectory, "Sample.ilmap");
        IlmapCache c;
        try
        {
            c = IlmapCache.Open(cache, mode == "native" ? IlmapReader.Native : IlmapReader.Managed);
        }
        catch (PlatformNotSupportedException e)
        {
            Console.WriteLine($"PlatformNotSupportedException: {e.Message}");
            return 4;
        }
        using (c)
        {
            try
            {
                Fail();
                return 2;
            }
            catch (InvalidOperationException e)
            {
                // The top frame of its own exception, as a crash reporter holds it: token and IL offset.
                StackFrame frame = new StackTrace(e, false).GetFrame(0)!;
                if (!c.TryLookup(frame.GetMethod()!.MetadataToken, frame.GetILOffset(), out var loc))
                    return 3;
                Console.WriteLine($"{Path.GetFileName(loc.File)}:{loc.Line}");
                return 0;
            }
        }
    }
}
CS

build() { dotnet build "$s/Sample.csproj" "${ilmap_build_args[@]}" "$@"; }
if ! dotnet restore "$s/Sample.csproj" "${ilmap_build_args[@]}" -v quiet >"$out/restore.log" 2>&1; then
    cat "$out/restore.log"
    echo "SKIP: the sample's packages could not be restored (log: $out/restore.log)"
    exit 77
fi
# The packages as restored (NuGet extracted them into our package folder) carry the native files.
[ -f "$NUGET_PACKAGES/ilmap.build/$version/tools/linux-x64/ilmap" ] \
    || fail "the Ilmap.Build package lacks tools/linux-x64/ilmap"
[ ! -e "$NUGET_PACKAGES/ilmap.build/$version/runtimes" ] \
    || fail "the Ilmap.Build package has runtime assets (runtimes/): the ilmap program would reach the app"
[ -f "$NUGET_PACKAGES/ilmap/$version/runtimes/linux-x64/native/libilmap.so" ] \
    || fail "the Ilmap package lacks runtimes/linux-x64/native/libilmap.so"
if [ -n "$arm64" ]; then
    for f in ilmap.build/$version/tools/linux-arm64/ilmap ilmap/$version/runtimes/linux-arm64/native/libilmap.so; do
        [ -f "$NUGET_PACKAGES/$f" ] || fail "the package lacks ${f#*/*/}"
        [[ $(readelf -h "$NUGET_PACKAGES/$f") == *"Machine:"*"AArch64"* ]] || fail "${f#*/*/} is not an AArch64 file"
    done
    echo "ok: linux-arm64 assets in Ilmap.Build and Ilmap"
else
    echo "note: no linux-arm64 build (ILMAP_ARM64_BUILD): the packages carry linux-x64 only"
fi
if [ -n "$windows" ]; then
    for f in ilmap.build/$version/tools/win-x64/ilmap.exe ilmap/$version/runtimes/win-x64/native/ilmap.dll; do
        [ -f "$NUGET_PACKAGES/$f" ] || fail "the package lacks ${f#*/*/}"
        [[ $(x86_64-w64-mingw32-objdump -f "$NUGET_PACKAGES/$f") == *"file format pei-x86-64"* ]] \
            || fail "${f#*/*/} is not a PE32+ x86-64 image"
    done
    echo "ok: win-x64 assets in Ilmap.Build and Ilmap (pei-x86-64)"
    # The library as the package holds it, under Wine, through the C API test.
    mkdir -p "$out/win-dll"
    unzip -p "$out/feed/Ilmap.$version.nupkg" runtimes/win-x64/native/ilmap.dll >"$out/win-dll/ilmap.dll"
    if [ -n "${ILMAP_CAPI_TEST:-}" ]; then
        rc=0
        "$here/../../tests/windows/capi.sh" "$exe" "$ILMAP_CAPI_TEST" "$lib" "$ILMAP_WINDOWS_BUILD" "$here/../.." \
            "$out/win-dll/ilmap.dll" >"$out/win-capi.log" 2>&1 || rc=$?
        case $rc in
            0) echo "ok: the Ilmap package's win-x64 ilmap.dll answers the C API test under Wine" ;;
            77) echo "note: the package's ilmap.dll not run: $(tail -n 1 "$out/win-capi.log")" ;;
            *) cat "$out/win-capi.log" >&2; fail "the Ilmap package's win-x64 ilmap.dll under Wine" ;;
        esac
    fi
else
    echo "note: no win-x64 build (ILMAP_WINDOWS_BUILD): the packages carry no win-x64 files"
fi

echo "== 1. build: the cache beside the PDB"
build -c Debug --no-restore -v n >"$out/build1.log" 2>&1 || { cat "$out/build1.log"; fail "first build"; }
bin="$s/bin/Debug/net10.0"
[ -f "$bin/Sample.ilmap" ] || { cat "$out/build1.log"; fail "no $bin/Sample.ilmap"; }
"$exe" dump "$bin/Sample.pdb" >"$out/dump-pdb.txt"
"$exe" dump "$bin/Sample.ilmap" >"$out/dump-cache.txt"
[ -s "$out/dump-pdb.txt" ] || fail "empty dump of the PDB"
cmp "$out/dump-pdb.txt" "$out/dump-cache.txt" || fail "dump of the cache differs from dump of the PDB"
# The line of the throw in the sample's source: where its exception's top frame must resolve.
want="Program.cs:$(grep -n 'throw new InvalidOperationException' "$s/Program.cs" | cut -d: -f1)"
answer=$(dotnet "$bin/Sample.dll") || fail "the sample did not run (exit $?)"
[ "$answer" = "$want" ] || fail "the sample found the top frame of its exception at '$answer', not $want"
native=$(dotnet "$bin/Sample.dll" native) || fail "the sample did not run with the native reader (exit $?)"
[ "$native" = "$answer" ] || fail "the native reader found the frame at '$native', the managed one at '$answer'"
# The managed reader (the default) needs no native library: a copy of the output without it.
rm -rf "$out/no-native" && cp -r "$bin" "$out/no-native" && rm -rf "$out/no-native/runtimes"
[ -z "$(find "$out/no-native" -name 'libilmap*')" ] || fail "libilmap left in the copy"
alone=$(env -u ILMAP_LIBRARY dotnet "$out/no-native/Sample.dll") || fail "the sample without libilmap did not run (exit $?)"
[ "$alone" = "$answer" ] || fail "without libilmap the sample found the frame at '$alone', not '$answer'"
# There the native reader is not supported, and says so (unless the machine has libilmap installed).
if ldconfig -p 2>/dev/null | grep -q 'libilmap\.so'; then
    echo "note: libilmap is installed on this machine: the PlatformNotSupportedException check is skipped"
else
    set +e
    pnse=$(env -u ILMAP_LIBRARY dotnet "$out/no-native/Sample.dll" native 2>&1)
    rc=$?
    set -e
    [ $rc -eq 4 ] || fail "the native reader without libilmap: exit $rc, not 4 (PlatformNotSupportedException): $pnse"
    case "$pnse" in
        *"carries for linux-x64, linux-arm64 and win-x64 only"*ILMAP_LIBRARY*IlmapReader.Managed*) ;;
        *) fail "the PlatformNotSupportedException does not say what to do: $pnse" ;;
    esac
fi
# The ilmap program is a build tool: not in the app's output, not a dependency in its deps.json.
[ -z "$(find "$bin" -name 'ilmap' -o -name 'ilmap.exe')" ] || fail "the ilmap program was copied into $bin"
! grep -n '/ilmap"' "$bin/Sample.deps.json" || fail "Sample.deps.json lists the ilmap program"
echo "ok: Sample.ilmap dumps as Sample.pdb; the sample resolves the top frame of its own exception to $answer (managed, native, and managed without libilmap, where the native reader is not supported); no ilmap program in the output or deps.json"

echo "== 2. second build: cache untouched"
before=$(stat -c %Y.%y "$bin/Sample.ilmap")
sleep 1
build -c Debug --no-restore -v d >"$out/build2.log" 2>&1 || { cat "$out/build2.log"; fail "second build"; }
after=$(stat -c %Y.%y "$bin/Sample.ilmap")
[ "$before" = "$after" ] || fail "the second build rewrote Sample.ilmap ($before -> $after)"
grep -q 'Skipping target "IlmapCompileCache" because all output files are up-to-date' "$out/build2.log" \
    || fail "MSBuild did not skip IlmapCompileCache (log: $out/build2.log)"
echo "ok: skipped, mtime unchanged"

echo "== 3. IlmapCompile=false: no cache"
build -c Release --no-restore -p:IlmapCompile=false -v q >"$out/build3.log" 2>&1 || { cat "$out/build3.log"; fail "build with IlmapCompile=false"; }
[ -f "$s/bin/Release/net10.0/Sample.pdb" ] || fail "no Release PDB"
[ ! -e "$s/bin/Release/net10.0/Sample.ilmap" ] || fail "IlmapCompile=false made a cache"
echo "ok"

echo "== 4. embedded PDB: the cache from the assembly"
emb="$s/bin/Embedded/net10.0"
# A configuration of its own: a DebugType given on the command line alone does not recompile.
build -c Embedded --no-restore -p:DebugType=embedded -v q >"$out/build4.log" 2>&1 \
    || { cat "$out/build4.log"; fail "build with DebugType=embedded"; }
[ ! -e "$emb/Sample.pdb" ] || fail "embedded build wrote a standalone PDB"
[ -f "$emb/Sample.ilmap" ] || fail "no cache for the embedded PDB"
"$exe" dump "$emb/Sample.dll" >"$out/dump-dll.txt"
"$exe" dump "$emb/Sample.ilmap" >"$out/dump-embedded.txt"
cmp "$out/dump-dll.txt" "$out/dump-embedded.txt" || fail "dump of the embedded cache differs from dump of the assembly"
echo "ok"

echo "== 5. publish: the cache is copied"
dotnet publish "$s/Sample.csproj" -c Debug --no-restore -o "$out/publish" "${ilmap_build_args[@]}" -v q \
    >"$out/publish.log" 2>&1 || { cat "$out/publish.log"; fail "publish"; }
cmp "$bin/Sample.ilmap" "$out/publish/Sample.ilmap" || fail "publish output lacks the cache"
[ -z "$(find "$out/publish" -name 'ilmap' -o -name 'ilmap.exe')" ] || fail "the ilmap program was published"
! grep -n '/ilmap"' "$out/publish/Sample.deps.json" || fail "the published Sample.deps.json lists the ilmap program"
echo "ok"

echo "== 6. corrupt PDB: the build fails with ilmap's message"
obj_pdb="$s/obj/Release/net10.0/Sample.pdb"
[ -f "$obj_pdb" ] || fail "no $obj_pdb"
printf 'not a portable pdb' >"$obj_pdb"
if build -c Release --no-restore -v q >"$out/build6.log" 2>&1; then
    cat "$out/build6.log"
    fail "the build with a corrupt PDB succeeded"
fi
grep -q 'error ILMAP002: ilmap compile failed (exit 2): ilmap: error: ' "$out/build6.log" \
    || { cat "$out/build6.log"; fail "the failed build does not show ilmap's message"; }
[ ! -e "$s/bin/Release/net10.0/Sample.ilmap" ] || fail "a cache was left for the corrupt PDB"
grep -o 'error ILMAP002: [^[]*' "$out/build6.log" | head -1
echo "ok"

echo "== 7. a machine without an ilmap program in the package: one warning, no cache"
foreign="$s/bin/Foreign/net10.0"
build -c Foreign --no-restore -p:_IlmapHostRid=osx-arm64 -v q >"$out/build7.log" 2>&1 \
    || { cat "$out/build7.log"; fail "the build on a machine without an ilmap program failed"; }
[ -f "$foreign/Sample.pdb" ] || fail "no $foreign/Sample.pdb"
[ ! -e "$foreign/Sample.ilmap" ] || fail "a cache was made without an ilmap program"
# One warning in all (the summary's count; the warning is printed again above it), ILMAP003.
grep -q '^ *1 Warning(s)' "$out/build7.log" || { cat "$out/build7.log"; fail "not one warning"; }
! grep ': warning ' "$out/build7.log" | grep -v 'warning ILMAP003' || fail "a warning other than ILMAP003"
grep -q 'warning ILMAP003: .*osx-arm64.*IlmapExe' "$out/build7.log" \
    || { cat "$out/build7.log"; fail "the warning does not name the platform and IlmapExe"; }
! grep -n 'ILMAP00[12]' "$out/build7.log" || fail "an ilmap error on a machine without an ilmap program"
grep -o 'warning ILMAP003: [^[]*' "$out/build7.log" | head -1
# An explicit IlmapExe wins.
build -c Foreign --no-restore -p:_IlmapHostRid=osx-arm64 -p:IlmapExe="$exe" -v q >"$out/build7b.log" 2>&1 \
    || { cat "$out/build7b.log"; fail "the build with IlmapExe on a machine without an ilmap program failed"; }
! grep -n 'ILMAP003' "$out/build7b.log" || fail "the warning stays with IlmapExe given"
[ -f "$foreign/Sample.ilmap" ] || fail "IlmapExe given: no cache"
# The program the targets pick for each machine (the decision alone: the property evaluated).
picks() { dotnet msbuild "$s/Sample.csproj" -nologo -getProperty:IlmapExe -p:_IlmapHostRid="$1" 2>&1 | tr -d '\r'; }
tools=$NUGET_PACKAGES/ilmap.build/$version/tools
[ "$(picks linux-x64)" = "$tools/linux-x64/ilmap" ] || fail "linux-x64 picks '$(picks linux-x64)'"
[ -z "$(picks win-arm64)" ] || fail "win-arm64, which the package has no program for, picks '$(picks win-arm64)'"
if [ -n "$windows" ]; then
    [ "$(picks win-x64)" = "$tools/win-x64/ilmap.exe" ] || fail "win-x64 picks '$(picks win-x64)', not tools/win-x64/ilmap.exe"
    echo "ok: linux-x64 picks tools/linux-x64/ilmap, win-x64 tools/win-x64/ilmap.exe, win-arm64 none"
else
    echo "ok: linux-x64 picks tools/linux-x64/ilmap, win-arm64 none"
fi
echo "ok"

echo "== 8. IlmapShowILOffsets=true: stack traces show the token and IL offset"
iloff="$s/bin/ILOffsets/net10.0"
build -c ILOffsets --no-restore -p:IlmapShowILOffsets=true -v q >"$out/build8.log" 2>&1 \
    || { cat "$out/build8.log"; fail "build with IlmapShowILOffsets=true"; }
switch='"Switch.System.Diagnostics.StackTrace.ShowILOffsets": true'
grep -qF "$switch" "$iloff/Sample.runtimeconfig.json" \
    || { cat "$iloff/Sample.runtimeconfig.json"; fail "Sample.runtimeconfig.json lacks $switch"; }
! grep -n 'ShowILOffsets' "$bin/Sample.runtimeconfig.json" || fail "the switch is set without IlmapShowILOffsets"
# The runtime prints them for frames without line information: run copies without the PDB.
rm -rf "$out/no-pdb" && mkdir -p "$out/no-pdb"
cp -r "$iloff" "$out/no-pdb/on" && cp -r "$bin" "$out/no-pdb/off" && rm "$out/no-pdb/on/Sample.pdb" "$out/no-pdb/off/Sample.pdb"
dotnet "$out/no-pdb/on/Sample.dll" trace >"$out/trace-on.txt" || fail "the sample did not run (trace)"
dotnet "$out/no-pdb/off/Sample.dll" trace >"$out/trace-off.txt" || fail "the sample did not run (trace)"
top=$(grep -m1 'Program.Fail()' "$out/trace-on.txt" || true)
[[ "$top" =~ token\ (0x[0-9a-f]+)\+(0x[0-9a-f]+) ]] \
    || { cat "$out/trace-on.txt"; fail "no 'token 0x...+0x...' in the top frame of the trace with IlmapShowILOffsets=true"; }
! grep -n 'token 0x' "$out/trace-off.txt" || fail "IL offsets in the trace without IlmapShowILOffsets"
where=$("$exe" lookup "$iloff/Sample.ilmap" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}") || fail "ilmap lookup of $top"
[[ "$where" == *"/${want%%:*}:${want##*:}:"* ]] || fail "the frame '$top' resolves to $where, not $want"
echo "ok: ${top#"${top%%[! ]*}"} -> $where"

echo "== 9. symbol package: the cache beside the PDB in the .snupkg"
lib="$out/lib"
mkdir -p "$lib"
cp "$s/NuGet.config" "$s/Directory.Build.props" "$s/Directory.Build.targets" "$lib/"
cat >"$lib/Lib.csproj" <<XML2
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFrameworks>net10.0;net8.0</TargetFrameworks>
    <IncludeSymbols>true</IncludeSymbols>
    <SymbolPackageFormat>snupkg</SymbolPackageFormat>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Ilmap.Build" Version="$version" PrivateAssets="all" />
  </ItemGroup>
</Project>
XML2
echo 'namespace Lib; public static class C { public static int F(int x) => x + 1; }' >"$lib/C.cs"
# Without IlmapInSymbolPackage the .snupkg stays as NuGet makes it (nuget.org takes only .pdb files).
dotnet pack "$lib/Lib.csproj" -c Release -o "$lib/feed-plain" "${ilmap_build_args[@]}" -v q >"$out/pack9a.log" 2>&1 \
    || { cat "$out/pack9a.log"; fail "dotnet pack of the library"; }
unzip -l "$lib/feed-plain/Lib.1.0.0.snupkg" >"$out/snupkg-plain.txt" || fail "no Lib.1.0.0.snupkg"
grep -q ' lib/net10.0/Lib.pdb$' "$out/snupkg-plain.txt" || { cat "$out/snupkg-plain.txt"; fail "the .snupkg lacks lib/net10.0/Lib.pdb"; }
! grep -n 'ilmap' "$out/snupkg-plain.txt" || fail "the cache is in the .snupkg without IlmapInSymbolPackage=true"
dotnet pack "$lib/Lib.csproj" -c Release -o "$lib/feed" -p:IlmapInSymbolPackage=true "${ilmap_build_args[@]}" -v q \
    >"$out/pack9.log" 2>&1 || { cat "$out/pack9.log"; fail "dotnet pack of the library with IlmapInSymbolPackage=true"; }
unzip -l "$lib/feed/Lib.1.0.0.snupkg" >"$out/snupkg.txt" || fail "no Lib.1.0.0.snupkg"
[[ $(unzip -p "$lib/feed/Lib.1.0.0.snupkg" '\[Content_Types\].xml') == *'Extension="ilmap"'* ]] \
    || fail "the .snupkg's [Content_Types].xml lacks the .ilmap extension"
! unzip -l "$lib/feed/Lib.1.0.0.nupkg" | grep -n 'ilmap' || fail "the .nupkg carries the cache or the ilmap program"
# The legacy format, .symbols.nupkg, takes the cache through NuGet's own filter.
dotnet pack "$lib/Lib.csproj" -c Release -o "$lib/feed-legacy" -p:IlmapInSymbolPackage=true -p:SymbolPackageFormat=symbols.nupkg \
    "${ilmap_build_args[@]}" -v q >"$out/pack9b.log" 2>&1 || { cat "$out/pack9b.log"; fail "dotnet pack of the library (symbols.nupkg)"; }
for tfm in net10.0 net8.0; do
    grep -q " lib/$tfm/Lib.pdb\$" "$out/snupkg.txt" || { cat "$out/snupkg.txt"; fail "the .snupkg lacks lib/$tfm/Lib.pdb"; }
    grep -q " lib/$tfm/Lib.ilmap\$" "$out/snupkg.txt" || { cat "$out/snupkg.txt"; fail "the .snupkg lacks lib/$tfm/Lib.ilmap"; }
    cmp <(unzip -p "$lib/feed/Lib.1.0.0.snupkg" "lib/$tfm/Lib.ilmap") "$lib/bin/Release/$tfm/Lib.ilmap" \
        || fail "the $tfm cache in the .snupkg is not the one built"
    cmp <(unzip -p "$lib/feed-legacy/Lib.1.0.0.symbols.nupkg" "lib/$tfm/Lib.ilmap") "$lib/bin/Release/$tfm/Lib.ilmap" \
        || fail "the $tfm cache is not in the .symbols.nupkg"
done
grep 'lib/net.*/Lib\.' "$out/snupkg.txt"
echo "ok"
echo "Ilmap.Build: 9 passed, 0 failed"
