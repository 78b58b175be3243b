#!/bin/sh
# Builds one of the tests' C# programs out of tree: dotnet-build.sh PROJECT.csproj LABEL OUTDIR
# (the oracles' build.sh scripts call it). Output (DLL, apphost, runtimeconfig) goes to OUTDIR,
# intermediates to OUTDIR/artifacts; nothing is written into the source tree. The NuGet.config
# next to each project clears all package sources, so restore stays offline. Prints the path of
# the apphost (OUTDIR/<project name>) on success; LABEL names the program in error messages.
set -eu
if [ $# -ne 3 ]; then
    echo "usage: $0 PROJECT.csproj LABEL OUTDIR" >&2
    exit 1
fi
project=$1
label=$2
name=$(basename "$project" .csproj)
mkdir -p "$3"
out=$(cd "$3" && pwd)

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
       DOTNET_GENERATE_ASPNET_CERTIFICATE=false MSBUILDDISABLENODEREUSE=1
dotnet build "$project" -c Release --nologo -v quiet \
    -o "$out" --artifacts-path "$out/artifacts" \
    -p:UseSharedCompilation=false -nodeReuse:false >"$out/build.log" 2>&1 || {
    cat "$out/build.log" >&2
    echo "$label build failed (log: $out/build.log)" >&2
    exit 1
}
if [ ! -x "$out/$name" ] || [ ! -f "$out/$name.dll" ]; then
    echo "$label build produced no $out/$name" >&2
    exit 1
fi
echo "$out/$name"
