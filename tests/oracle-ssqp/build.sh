#!/bin/sh
# Build the SSQP client oracle out of tree: build.sh OUTDIR
# Output (DLL, apphost, runtimeconfig) goes to OUTDIR; intermediates to OUTDIR/artifacts.
# Nothing is written into the source tree. Prints the path of the apphost on success.
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
       DOTNET_GENERATE_ASPNET_CERTIFICATE=false MSBUILDDISABLENODEREUSE=1
# NuGet.config (next to the project) clears all package sources: restore stays offline.
dotnet build "$here/SsqpOracle.csproj" -c Release --nologo -v quiet \
    -o "$out" --artifacts-path "$out/artifacts" \
    -p:UseSharedCompilation=false -nodeReuse:false >"$out/build.log" 2>&1 || {
    cat "$out/build.log" >&2
    echo "ssqp oracle build failed (log: $out/build.log)" >&2
    exit 1
}
if [ ! -x "$out/SsqpOracle" ] || [ ! -f "$out/SsqpOracle.dll" ]; then
    echo "ssqp oracle build produced no $out/SsqpOracle" >&2
    exit 1
fi
echo "$out/SsqpOracle"
