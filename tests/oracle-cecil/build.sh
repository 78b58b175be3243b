#!/bin/sh
# Build the Mono.Cecil oracle out of tree: build.sh OUTDIR
# Output (DLL, apphost, runtimeconfig) goes to OUTDIR; intermediates to OUTDIR/artifacts. Nothing
# is written into the source tree. Prints the path of the apphost on success. Exit 77 (skip) when
# dotnet is missing or the Mono.Cecil package cannot be restored (no NuGet source reachable).
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
if ! command -v dotnet >/dev/null 2>&1; then
    echo "SKIP: dotnet not found; the Mono.Cecil oracle cannot be built"
    exit 77
fi

export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
       DOTNET_GENERATE_ASPNET_CERTIFICATE=false MSBUILDDISABLENODEREUSE=1
if ! dotnet restore "$here/CecilOracle.csproj" --nologo -v quiet \
        --artifacts-path "$out/artifacts" >"$out/restore.log" 2>&1; then
    cat "$out/restore.log" >&2
    echo "SKIP: Mono.Cecil 0.11.6 could not be restored (log: $out/restore.log)"
    exit 77
fi
dotnet build "$here/CecilOracle.csproj" -c Release --nologo -v quiet --no-restore \
    -o "$out" --artifacts-path "$out/artifacts" \
    -p:UseSharedCompilation=false -nodeReuse:false >"$out/build.log" 2>&1 || {
    cat "$out/build.log" >&2
    echo "Mono.Cecil oracle build failed (log: $out/build.log)" >&2
    exit 1
}
if [ ! -x "$out/CecilOracle" ] || [ ! -f "$out/CecilOracle.dll" ]; then
    echo "Mono.Cecil oracle build produced no $out/CecilOracle" >&2
    exit 1
fi
echo "$out/CecilOracle"
