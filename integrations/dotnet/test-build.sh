#!/usr/bin/env bash
# End-to-end test of the NuGet packages: test-build.sh ILMAP_EXE LIBILMAP_SO OUTDIR
# (ctest dotnet_ilmap_build passes them). Packs Ilmap.Build and Ilmap with the given native files
# into a local feed under OUTDIR, creates a sample console project there that references both
# (restored from that feed and the offline folder, into a package folder of its own), then checks:
#   1. dotnet build leaves Sample.ilmap beside Sample.pdb; `ilmap dump` of both is the same, and the
#      sample, run, resolves the top frame of its own exception (token and IL offset) to the line of
#      its throw through the Ilmap library: its managed reader, its native one (libilmap.so from
#      the package), and the managed one in a copy of the output without libilmap;
#   2. a second build leaves the cache alone (same mtime; MSBuild skips the target);
#   3. -p:IlmapCompile=false makes no cache;
#   4. DebugType=embedded: the cache is made from the assembly, and dumps like it;
#   5. dotnet publish copies the cache to the publish folder;
#   6. a corrupt PDB fails the build with ilmap's message.
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
rm -rf "$out/native" "$out/feed" "$out/packages" "$out/sample" "$out/pack"
mkdir -p "$out/native" "$out/feed" "$out/sample"
cp "$exe" "$out/native/ilmap"
cp "$lib" "$out/native/libilmap.so"
fail() { echo "FAIL: $*" >&2; exit 1; }

# Packages: restore/pack with the offline folder only; a package folder of our own, so that
# every run uses the packages packed now (NuGet caches a package by id and version).
export NUGET_PACKAGES="$out/packages"
for p in Ilmap.Build/Ilmap.Build.csproj Ilmap/Ilmap.csproj; do
    if ! dotnet pack "$here/$p" -c Release -o "$out/feed" "${ilmap_restore_args[@]}" \
            --artifacts-path "$out/pack" -p:IlmapNativeDir="$out/native" -v quiet \
            "${ilmap_build_args[@]}" >"$out/pack.log" 2>&1; then
        cat "$out/pack.log" >&2
        fail "dotnet pack $p"
    fi
done
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

static class Program
{
    static void Fail() => throw new InvalidOperationException("the sample's own exception");

    static int Main(string[] args)
    {
        string cache = Path.Combine(AppContext.BaseDirectory, "Sample.ilmap");
        var reader = args.Length > 0 && args[0] == "native" ? IlmapReader.Native : IlmapReader.Managed;
        using var c = IlmapCache.Open(cache, reader);
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
CS

build() { dotnet build "$s/Sample.csproj" "${ilmap_build_args[@]}" "$@"; }
if ! dotnet restore "$s/Sample.csproj" "${ilmap_build_args[@]}" -v quiet >"$out/restore.log" 2>&1; then
    cat "$out/restore.log"
    echo "SKIP: the sample's packages could not be restored (log: $out/restore.log)"
    exit 77
fi
# The packages as restored (NuGet extracted them into our package folder) carry the native files.
[ -f "$NUGET_PACKAGES/ilmap.build/$version/runtimes/linux-x64/native/ilmap" ] \
    || fail "the Ilmap.Build package lacks runtimes/linux-x64/native/ilmap"
[ -f "$NUGET_PACKAGES/ilmap/$version/runtimes/linux-x64/native/libilmap.so" ] \
    || fail "the Ilmap package lacks runtimes/linux-x64/native/libilmap.so"

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
echo "ok: Sample.ilmap dumps as Sample.pdb; the sample resolves the top frame of its own exception to $answer (managed, native, and managed without libilmap)"

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
echo "Ilmap.Build: 6 passed, 0 failed"
