#!/bin/sh
# Build SentryProbe out of tree: build.sh OUTDIR. The program, its PDB and Sentry.dll go to
# OUTDIR/bin; intermediates to OUTDIR/artifacts; nothing is written into the source tree.
# Paths are mapped as continuous-integration builds map them (this folder -> /_/tests/sentry),
# so nothing of this machine's layout reaches the PDB or the events; the PDB gets a SourceLink
# map (/_/tests/sentry/ -> https://sources.example/ilmap/tests/sentry/) and the sources
# embedded, so the cache has URLs and source text to show.
# Exit 77 (skip) when the Sentry package cannot be restored (no registry and not yet in the
# global packages folder).
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
printf '{"documents":{"/_/tests/sentry/*":"https://sources.example/ilmap/tests/sentry/*"}}\n' >"$out/sourcelink.json"
if ! dotnet restore "$here/SentryProbe.csproj" --artifacts-path "$out/artifacts" -v quiet \
        -nodeReuse:false >"$out/restore.log" 2>&1; then
    cat "$out/restore.log"
    echo "SKIP: the Sentry package could not be restored (log: $out/restore.log)"
    exit 77
fi
dotnet build "$here/SentryProbe.csproj" -c Release --no-restore --nologo -v quiet \
    -o "$out/bin" --artifacts-path "$out/artifacts" "-p:SourceLink=$out/sourcelink.json" "-p:PathMap=$here=/_/tests/sentry" \
    -p:UseSharedCompilation=false -nodeReuse:false >"$out/build.log" 2>&1 || {
    cat "$out/build.log" >&2
    echo "SentryProbe build failed (log: $out/build.log)" >&2
    exit 1
}
if [ ! -x "$out/bin/SentryProbe" ] || [ ! -f "$out/bin/SentryProbe.pdb" ]; then
    echo "SentryProbe build produced no $out/bin/SentryProbe (+ .pdb)" >&2
    exit 1
fi
