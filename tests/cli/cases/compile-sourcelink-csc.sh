# SourceLink JSON as the compiler embeds it: csc's -sourcelink:FILE copies the file into the PDB
# byte for byte, so PDBs reach ilmap with whatever JSON their build wrote. Three PDBs of one small
# library are made here by the SDK's own csc (skipped without it): its JSON with comments and
# trailing commas, as dotnet/sourcelink's reader accepts them (the URL is kept); JSON cut short and
# JSON of the wrong shape (a warning, every point kept, no URL). For each, dump of the cache equals
# dump of the PDB and a lookup on every IL offset answers as the PDB's points say.
. "$(dirname "$0")/../common.sh"
command -v dotnet >/dev/null || { echo "dotnet not found"; exit 77; }
sdk=$(dotnet --list-sdks 2>/dev/null | tail -n1 | sed -E 's/^([^ ]+) \[(.*)\]$/\2\/\1/')
csc=$sdk/Roslyn/bincore/csc.dll
runtime_ref=$(ls -d "$sdk"/../../packs/Microsoft.NETCore.App.Ref/*/ref/net*/ 2>/dev/null | tail -n1)
[[ -f $csc && -f ${runtime_ref}System.Runtime.dll ]] || { echo "the SDK's csc.dll or reference assemblies not found"; exit 77; }
mkdir src
cat > src/Lib.cs <<'CS'
namespace Ilmap.Test
{
    public static class Lib
    {
        public static int Twice(int x)
        {
            int y = x * 2;
            return y;
        }
    }
}
CS
cat > lenient.json <<'JSON'
{
  // comments and trailing commas, as dotnet/sourcelink reads them
  "documents": {
    "/_/*": "https://example.invalid/ilmap/*", /* a block comment */
  },
}
JSON
printf '{"documents": {"/_/*": "https://example.invalid/ilmap/*"' > cut.json
printf '{"documents": ["/_/*", "https://example.invalid/ilmap/*"]}' > shape.json
# build NAME: NAME.dll and NAME.pdb (Portable) with NAME.json as their SourceLink.
build() {
  (cd src && dotnet "$csc" -nologo -noconfig -nostdlib -r:"${runtime_ref}System.Runtime.dll" -target:library \
     -debug:portable -deterministic -pathmap:"$PWD=/_/" -sourcelink:"../$1.json" -out:"../$1.dll" Lib.cs) \
     > "$1.csc.log" 2>&1 || { cat "$1.csc.log"; echo "$1: csc failed"; exit 1; }
}
for p in lenient cut shape; do
  build $p
  # the JSON is in the PDB as written
  grep -qF "$(head -c 20 $p.json)" $p.pdb && echo "$p: the PDB holds the JSON as written"
  ilmap compile -q $p.dll -o $p.ilmap; echo "$p: compile exit $?"
  if cmp -s <(ilmap dump --sequence-points $p.pdb) <(ilmap dump --sequence-points $p.ilmap); then
    echo "$p: dump of the cache equals dump of the PDB ($(ilmap dump --sequence-points $p.pdb | grep -vc '^#') points)"
  else
    echo "$p: dump differs"
  fi
  for off in 0 1 2 4 5 8 9 12; do ilmap lookup $p.ilmap 0x06000001 $off --json; done
done
