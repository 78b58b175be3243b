#!/bin/sh
# Real Sentry events, symbolicated: run.sh ILMAP_EXE SENTRY_CHECK OUTDIR (ctest sentry_sdk_events).
#  1. build.sh builds SentryProbe (NuGet package Sentry) into OUTDIR/bin;
#  2. runs it with its PDB beside it (OUTDIR/with: the SDK and the runtime fill in lines) and
#     without (OUTDIR/without: frames carry only function_id + instruction_addr);
#  3. `ilmap compile --embed-sources` makes the cache of SentryProbe.pdb (with the DLL: names);
#  4. ilmap_sentry_check verify symbolicates OUTDIR/without into OUTDIR/symbolicated and checks
#     every frame against OUTDIR/with (the SDK's frames and the runtime's truth.tsv).
# Exit 77 (skip) without dotnet or when the Sentry package cannot be restored.
set -eu
if [ $# -ne 3 ]; then
    echo "usage: $0 ILMAP_EXE SENTRY_CHECK OUTDIR" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
ilmap=$1
check=$2
mkdir -p "$3"
out=$(cd "$3" && pwd)
if ! command -v dotnet >/dev/null 2>&1; then
    echo "SKIP: dotnet not found"
    exit 77
fi
rc=0
"$here/build.sh" "$out" || rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
rm -rf "$out/with" "$out/without" "$out/symbolicated" "$out/hidden"
"$out/bin/SentryProbe" "$out/with"
mkdir -p "$out/hidden"
mv "$out/bin/SentryProbe.pdb" "$out/hidden/"
rc=0
"$out/bin/SentryProbe" "$out/without" || rc=$?
mv "$out/hidden/SentryProbe.pdb" "$out/bin/"
[ "$rc" -eq 0 ] || exit "$rc"
if grep -q '"lineno"' "$out/without"/*.envelope; then
    echo "the run without the PDB still has line numbers: the test would prove nothing" >&2
    exit 1
fi
"$ilmap" compile "$out/bin/SentryProbe.dll" --embed-sources -o "$out/SentryProbe.ilmap"
"$check" verify "$out/SentryProbe.ilmap" "$out/with" "$out/without" "$out/symbolicated" "/_/tests/sentry=$here"
