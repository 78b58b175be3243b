# A PE whose CodeView entry names HelloWorld.pdb, with only HelloWorld.pdz (the same PDB in an
# MSFZ container, dotnet/diagnostics' test files) beside it: compile, symbolicate and serve find
# the .pdz and answer as with the .pdb; so does symbolicate when the .pdz is elsewhere under
# --search. A .pdb of another id beside the PE is passed over for the .pdz; a .pdz of another
# id is refused like such a .pdb, and both are listed among the files tried.
. "$(dirname "$0")/../common.sh"
shared=${ILMAP_SHARED_DIR:-$CORPUS/../../shared}
hw=$shared/corpus-more/msfz_diagnostics_HelloWorld
need "$hw/HelloWorld.pdz" "$hw/HelloWorld.pdb" "$hw/HelloWorld.exe" "$shared/corpus-public/win_symreader_VB/VB.pdb"
mkdir withpdb beside apart apart/bin apart/symbols
cp "$hw/HelloWorld.exe" "$hw/HelloWorld.pdb" withpdb/
cp "$hw/HelloWorld.exe" "$hw/HelloWorld.pdz" beside/
cp "$hw/HelloWorld.exe" apart/bin/ && cp "$hw/HelloWorld.pdz" apart/symbols/
printf '%s\n' 'Unhandled exception. System.Exception: boom' \
  '   at HelloWorld.Program.Main(String[] args) in HelloWorld.exe:token 0x6000001+0x1' \
  '   at HelloWorld.Program.Main(String[] args) in HelloWorld.exe:token 0x6000001+0x0' >trace.txt
ilmap compile -q withpdb/HelloWorld.exe -o want.ilmap; echo "compile with the .pdb: exit $?"
ilmap symbolicate --search withpdb --cache-dir c0 --columns trace.txt >want.txt 2>/dev/null
grep -c 'Program.cs:line' want.txt
echo "-- compile"
ilmap compile -q beside/HelloWorld.exe -o got.ilmap; echo "exit $?"
cmp -s <(ilmap dump got.ilmap) <(ilmap dump want.ilmap) && echo "dump: as with the .pdb"
ilmap info beside/HelloWorld.exe | grep -E '^(pdb_source|pdb_path|container):'
ilmap lookup got.ilmap 0x06000001 1
echo "-- symbolicate"
ilmap symbolicate --search beside --cache-dir c1 --columns trace.txt >got.txt 2>err.txt; echo "exit $?"; cat err.txt
cmp -s got.txt want.txt && echo "beside: as with the .pdb"
ilmap symbolicate --search apart --cache-dir c2 --columns trace.txt >got.txt 2>err.txt; echo "exit $?"; cat err.txt
cmp -s got.txt want.txt && echo "elsewhere under --search: as with the .pdb"
echo "-- serve"
ilmap serve --port 0 --search beside --cache-dir c3 2>serve.log &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null' EXIT
for i in $(seq 100); do grep -q listening serve.log && break; sleep 0.1; done
url=$(sed -nE 's/^ilmap serve: listening on (http:[^ ]*)$/\1/p' serve.log)
python3 -c 'import sys, urllib.request
r = urllib.request.Request(sys.argv[1] + "/symbolicate", data=open("trace.txt", "rb").read(),
                           headers={"Content-Type": "text/plain"})
sys.stdout.write(urllib.request.urlopen(r).read().decode())' "$url" >served.txt
ilmap symbolicate --search withpdb --cache-dir c4 trace.txt 2>/dev/null | cmp -s - served.txt && echo "served: as with the .pdb"
kill $serve_pid 2>/dev/null
echo "-- a .pdb of another id beside: the .pdz is used"
cp "$shared/corpus-public/win_symreader_VB/VB.pdb" beside/HelloWorld.pdb
ilmap compile -q beside/HelloWorld.exe -o other.ilmap; echo "exit $?"
cmp -s <(ilmap dump other.ilmap) <(ilmap dump want.ilmap) && echo "dump: as with the .pdb"
echo "-- a .pdz of another id: refused"
rm beside/HelloWorld.pdb
cp "$shared/corpus-public/win_symreader_VB/VB.pdb" beside/HelloWorld.pdz
ilmap compile -q beside/HelloWorld.exe -o bad.ilmap 2>&1; echo "exit $?"
[[ -e bad.ilmap ]] || echo "no cache written"
