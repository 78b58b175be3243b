#!/usr/bin/env bash
# record.sh - records the real .NET traces of this folder (docs/symbolicate.md, scripts/demo.sh):
#   cs-frames.il-offsets.txt   the exceptions of corpus/out/cs-frames's scenarios as CoreCLR prints them
#                              without PDBs, with Switch.System.Diagnostics.StackTrace.ShowILOffsets on
#                              (run by tests/symbolicate/trace/Trace.cs, built by the SDK's Roslyn).
#   cs-frames.lines.txt        the same run with the PDB beside the DLL: what symbolicate must give.
# Needs dotnet and Mono's mscorlib (reference assemblies for Trace.cs). Deterministic but for the
# runtime version.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
sdk=$(dotnet --list-sdks | tail -n1 | sed -E 's/^([^ ]+) \[(.*)\]$/\2\/\1/')
lib=${MONO_LIB_DIR:-/usr/lib/mono/4.5}
ver=$(dotnet --list-runtimes | awk '$1 == "Microsoft.NETCore.App" { v = $2 } END { print v }')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-traces.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/pdb" "$tmp/nopdb"
dotnet "$sdk/Roslyn/bincore/csc.dll" -nologo -noconfig -nostdlib -langversion:7.3 -r:"$lib/mscorlib.dll" \
    -r:"$lib/System.Core.dll" -r:"$lib/System.dll" -debug:portable -deterministic \
    -pathmap:"$root/tests/symbolicate/trace=/_/" -out:"$tmp/pdb/Ilmap.Trace.exe" "$root/tests/symbolicate/trace/Trace.cs"
cp "$tmp/pdb/Ilmap.Trace.exe" "$tmp/nopdb/"
cp "$root"/corpus/out/cs-frames/Ilmap.Corpus.Frames.{dll,pdb} "$tmp/pdb/"
cp "$root"/corpus/out/cs-frames/Ilmap.Corpus.Frames.dll "$tmp/nopdb/"
printf '{"runtimeOptions":{"tfm":"net%s.0","framework":{"name":"Microsoft.NETCore.App","version":"%s"},"configProperties":{"Switch.System.Diagnostics.StackTrace.ShowILOffsets":true}}}\n' \
    "${ver%%.*}" "$ver" >"$tmp/rc.json"
dotnet exec --runtimeconfig "$tmp/rc.json" "$tmp/nopdb/Ilmap.Trace.exe" "$tmp/nopdb/Ilmap.Corpus.Frames.dll" >"$here/cs-frames.il-offsets.txt"
dotnet exec --runtimeconfig "$tmp/rc.json" "$tmp/pdb/Ilmap.Trace.exe" "$tmp/pdb/Ilmap.Corpus.Frames.dll" >"$here/cs-frames.lines.txt"
echo "recorded $(grep -c ':token 0x' "$here/cs-frames.il-offsets.txt") frames with IL offsets"
