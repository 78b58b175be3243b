#!/usr/bin/env bash
# Builds the ilmap test corpus with the .NET SDK (offline, deterministic).
#
#   bash corpus/build.sh           rebuild corpus/out/, corpus/runtime-frames.tsv, corpus/manifest.tsv
#   bash corpus/build.sh --check   rebuild in a temporary directory and compare with the committed files
#                                  (exit 1 on any difference)
#
# Everything is built under a fresh temporary directory (sources are copied there, generated sources
# are written there, bin/obj/packages live there); only the final DLL/PDB files are copied back.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=build
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  *) echo "usage: $0 [--check]" >&2; exit 1 ;;
esac

command -v dotnet >/dev/null || { echo "build.sh: dotnet (the .NET SDK) is not on PATH" >&2; exit 1; }

root=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-corpus.XXXXXX")
trap 'rm -rf "$root"' EXIT

# case | project folder under src/ | assembly name | kind | language
# kind: how the debug information is stored (see README.md). This table is also written to manifest.tsv.
cases=(
  "cs-features|Features|Ilmap.Corpus.Features|portable|cs"
  "cs-features-embedded|FeaturesEmbedded|Ilmap.Corpus.FeaturesEmbedded|embedded|cs"
  "cs-sourcelink|Shapes|Ilmap.Corpus.Shapes|sourcelink|cs"
  "cs-embedded-sources|EmbeddedSources|Ilmap.Corpus.EmbeddedSources|embedded-sources|cs"
  "cs-embedded-all|EmbeddedAll|Ilmap.Corpus.EmbeddedAll|embedded+embedded-sources+sourcelink|cs"
  "cs-windows-paths|WindowsPaths|Ilmap.Corpus.WindowsPaths|portable|cs"
  "cs-bigmethod|BigMethod|Ilmap.Corpus.BigMethod|portable|cs"
  "cs-manymethods|ManyMethods|Ilmap.Corpus.ManyMethods|portable|cs"
  "cs-frames|Frames|Ilmap.Corpus.Frames|portable|cs"
  "cs-signatures|Signatures|Ilmap.Corpus.Signatures|portable|cs"
  "vb-basic|VbBasic|Ilmap.Corpus.VbBasic|portable|vb"
  "fs-basic|FsBasic|Ilmap.Corpus.FsBasic|portable|fs"
  "cs-breakpoints|Breakpoints|Ilmap.Corpus.Breakpoints|portable|cs"
)

export CORPUS_BUILD_ROOT="$root/"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export DOTNET_GENERATE_ASPNET_CERTIFICATE=false MSBUILDDISABLENODEREUSE=1
export SOURCE_DATE_EPOCH=0

cp -r "$here/src" "$root/src"
cp "$here/NuGet.config" "$root/NuGet.config"

# Generated sources (not committed).
for g in "$here"/gen/*.sh; do
  [ -e "$g" ] || continue
  bash "$g" "$root/src"
done

echo "build.sh: building in $root" >&2
dotnet build "$root/src/corpus.slnx" -c Release --disable-build-servers -m:1 -nologo -v:q \
  -clp:ErrorsOnly -p:TreatWarningsAsErrors=false >&2

out="$root/out"
mkdir -p "$out"
manifest="$root/manifest.tsv"
printf 'case\tdll\tpdb\tkind\tlanguage\n' > "$manifest"
for row in "${cases[@]}"; do
  IFS='|' read -r name proj asm kind lang <<<"$row"
  bin="$root/build/bin/$proj/Release/net10.0"
  mkdir -p "$out/$name"
  cp "$bin/$asm.dll" "$out/$name/"
  pdb="out/$name/$asm.pdb"
  if [ -f "$bin/$asm.pdb" ]; then
    cp "$bin/$asm.pdb" "$out/$name/"
  else
    pdb=-
  fi
  printf '%s\tout/%s/%s.dll\t%s\t%s\t%s\n' "$name" "$name" "$asm" "$pdb" "$kind" "$lang" >> "$manifest"
done

# The runtime's own answers: run the Frames program (twice, to make sure its output is stable).
frames="$root/runtime-frames.tsv"
framesdll="$root/build/bin/Frames/Release/net10.0/Ilmap.Corpus.Frames.dll"
dotnet "$framesdll" > "$frames"
dotnet "$framesdll" > "$frames.2"
cmp -s "$frames" "$frames.2" || { echo "build.sh: Frames output differs between two runs" >&2; exit 1; }
rm "$frames.2"

# No machine paths may leak into the outputs.
leaks=$(grep -a -l -r -F -e "$root" -e "$here" -e "/tmp/" -e "${HOME:-/nonexistent}/" \
          "$out" "$manifest" "$frames" || true)
if [ -n "$leaks" ]; then
  echo "build.sh: machine paths found in: $leaks" >&2
  exit 1
fi

if [ "$mode" = check ]; then
  status=0
  diff -r "$here/out" "$out" >&2 || status=1
  cmp "$here/manifest.tsv" "$manifest" >&2 || status=1
  cmp "$here/runtime-frames.tsv" "$frames" >&2 || status=1
  if [ $status -eq 0 ]; then echo "build.sh --check: outputs match the committed corpus" >&2
  else echo "build.sh --check: outputs DIFFER from the committed corpus" >&2; fi
  exit $status
fi

rm -rf "$here/out"
cp -r "$out" "$here/out"
cp "$manifest" "$here/manifest.tsv"
cp "$frames" "$here/runtime-frames.tsv"
echo "build.sh: wrote corpus/out/, corpus/manifest.tsv, corpus/runtime-frames.tsv" >&2
