# A store that keeps a Windows PDB only as its .pdz (dotnet/diagnostics' HelloWorld.pdz, under
# "helloworld.pdb/<id>/msfz0/helloworld.pdb"): fetch and symbolicate --symbol-path ask the plain
# key first, then the msfz0 key, from a directory store and from nginx, and resolve HelloWorld.exe's
# frames as with the .pdb (and a ProductionStackTrace frame by GUID + age alone); a second fetch
# is local. A server with neither is a miss naming both keys; one that answers the msfz0 key with
# an MSF PDB (another's, or this one's but not in an MSFZ container) or garbage is refused, and
# nothing is kept in the local cache.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
shared=${ILMAP_SHARED_DIR:-$CORPUS/../../shared}
hw=$shared/corpus-more/msfz_diagnostics_HelloWorld
need "$hw/HelloWorld.pdz" "$hw/HelloWorld.pdb" "$hw/HelloWorld.exe" "$shared/corpus-public/win_symreader_VB/VB.pdb"
mkdir pe && cp "$hw/HelloWorld.exe" pe/
K=helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431
ilmap store add pdz "$hw/HelloWorld.pdz"; echo "exit $?"
ilmap store add pdb "$hw/HelloWorld.pdb" >/dev/null; echo "exit $?"
printf '%s\n' 'Unhandled exception. System.Exception: boom' \
  '   at HelloWorld.Program.Main(String[] args) in HelloWorld.exe:token 0x6000001+0x1' \
  '   at HelloWorld.Program.Main(String[] args) in HelloWorld.exe:token 0x6000001+0x0' >trace.txt
ilmap symbolicate --search pe --symbol-path pdb --cache-dir c-pdb --columns trace.txt >want.txt 2>/dev/null
grep -c 'Program.cs:line' want.txt
echo "-- a directory store"
show ilmap fetch --symbol-path pdz pe/HelloWorld.exe
ilmap symbolicate --search pe --symbol-path pdz --cache-dir c-dir --columns trace.txt >got.txt 2>err.txt; echo "exit $?"
cat err.txt
cmp -s got.txt want.txt && echo "symbolicate: as with the .pdb"
echo "-- no PE at all: a ProductionStackTrace MODULE line's GUID + age, from the store"
mkdir empty
printf '%s\n' '   at HelloWorld!0x06000001!HelloWorld.Program.Main +0x1' '==========' \
  'MODULE: HelloWorld => x; G:99891b3e-d7ae-4c3b-abff-8a2b4a9b0c43; A:1' >pst.txt
ilmap symbolicate --search empty --symbol-path pdz --cache-dir c-pst --columns pst.txt 2>err.txt; echo "exit $?"
cat err.txt
echo "-- nginx: plain key 404, then msfz0"
start_nginx "$PWD/pdz"
show ilmap fetch --symbol-path "srv*dl*$URL" pe/HelloWorld.exe
cat "$NGINX_LOG"
cmp -s "dl/$K/msfz0/helloworld.pdb" "$hw/HelloWorld.pdz" && echo "the .pdz is kept under its key"
ilmap store verify dl
echo "-- again: local, no request"
n=$(requests)
show ilmap fetch --symbol-path "srv*dl*$URL" pe/HelloWorld.exe
[[ $(requests) == "$n" ]] && echo "no request"
ilmap symbolicate --search pe --symbol-path "srv*dl2*$URL" --cache-dir c-http --columns trace.txt >got.txt 2>err.txt; echo "exit $?"
cat err.txt
cmp -s got.txt want.txt && echo "symbolicate: as with the .pdb"
echo "-- neither key: a miss naming both"
rm "pdz/$K/msfz0/helloworld.pdb"
: >"$NGINX_LOG"
show ilmap fetch --symbol-path "srv*miss*$URL" pe/HelloWorld.exe
cat "$NGINX_LOG"
show ilmap fetch --symbol-path pdz pe/HelloWorld.exe
echo "-- another PDB under the msfz0 key: refused"
cp "$shared/corpus-public/win_symreader_VB/VB.pdb" "pdz/$K/msfz0/helloworld.pdb"
show ilmap fetch --symbol-path "srv*h1*$URL" pe/HelloWorld.exe
echo "-- this PDB, but not in an MSFZ container, under the msfz0 key: refused"
cp "$hw/HelloWorld.pdb" "pdz/$K/msfz0/helloworld.pdb"
show ilmap fetch --symbol-path "srv*h2*$URL" pe/HelloWorld.exe
echo "-- garbage under the msfz0 key: refused"
yes 'not a PDB' | head -c 4096 >"pdz/$K/msfz0/helloworld.pdb"
show ilmap fetch --symbol-path "srv*h3*$URL" pe/HelloWorld.exe
ilmap symbolicate --search pe --symbol-path "srv*h4*$URL" --cache-dir c-h4 trace.txt 2>err.txt | cmp -s - trace.txt && echo "symbolicate: unresolved, text unchanged"
sed -E 's#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g' err.txt
find h1 h2 h3 h4 c-h4 -type f ! -path '*/.ilmap-404/*' 2>/dev/null | wc -l
