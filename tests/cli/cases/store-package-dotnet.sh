# store add of real packages built by `dotnet pack` of the corpus Features project (skipped
# without the .NET SDK): the .nupkg (PE) and .snupkg (PDB) give the PE, the PDB and its cache;
# the legacy .symbols.nupkg with sources (IncludeSource) publishes src/ and gives each matched
# document a source-store URL that lookup prints. GUIDs and stamps are masked (they depend on
# the SDK that builds).
. "$(dirname "$0")/../common.sh"
command -v dotnet >/dev/null || { echo "dotnet not found"; exit 77; }
[[ -d $CORPUS/src/Features ]] || { echo "corpus sources not found"; exit 77; }
mkdir b && cp -r "$CORPUS/src" b/src && cp "$CORPUS/NuGet.config" b/
export CORPUS_BUILD_ROOT=$PWD/b/ DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
  MSBUILDDISABLENODEREUSE=1
pack() { dotnet pack b/src/Features/Features.csproj -c Release --disable-build-servers -nologo -v:q -clp:ErrorsOnly "$@" >pack.log 2>&1 || { cat pack.log; exit 1; }; }
pack -p:IncludeSymbols=true -p:SymbolPackageFormat=snupkg -o snupkg
pack -p:IncludeSymbols=true -p:IncludeSource=true -p:SymbolPackageFormat=symbols.nupkg -o legacy
mask() { sed -E 's/[0-9a-f]{32}FFFFFFFF/<guid>FFFFFFFF/g; s#\.dll/[0-9A-F]{8}[0-9a-f]+/#.dll/<stamp><size>/#g'; }
(cd snupkg && ls)
ilmap store add st snupkg/Ilmap.Corpus.Features.1.0.0.nupkg snupkg/Ilmap.Corpus.Features.1.0.0.snupkg | mask; echo "exit $?"
ilmap store verify st; echo "exit $?"
ilmap store add st2 legacy/Ilmap.Corpus.Features.1.0.0.symbols.nupkg --sources src --source-url-root https://src.example | mask; echo "exit $?"
C=$(echo st2/ilmap.corpus.features.pdb/*/ilmap.corpus.features.ilmap)
ilmap lookup --json "$C" 0x06000005 6 | sed -E 's/.*"url":("[^"]*").*/\1/'
cmp src/Ilmap.Corpus.Features/1.0.0/Features/ControlFlow.cs b/src/Features/ControlFlow.cs && echo "source copied"
