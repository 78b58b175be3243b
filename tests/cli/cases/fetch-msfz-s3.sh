# A bucket (tests/cli/faultserver.py as an S3 endpoint, path-style, /ok/: objects as they are)
# that keeps HelloWorld's PDB only as its .pdz: fetch asks the plain key (404), then the msfz0
# key, and keeps the .pdz under that key; symbolicate --symbol-path on the bucket resolves
# HelloWorld.exe's frames as with the .pdb. Garbage under the msfz0 key: refused, nothing kept.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../faultserver.sh"
shared=${ILMAP_SHARED_DIR:-$CORPUS/../../shared}
hw=$shared/corpus-more/msfz_diagnostics_HelloWorld
need "$hw/HelloWorld.pdz" "$hw/HelloWorld.pdb" "$hw/HelloWorld.exe"
unset AWS_ENDPOINT_URL_S3 AWS_SESSION_TOKEN
export AWS_ACCESS_KEY_ID=test-key AWS_SECRET_ACCESS_KEY=test-secret AWS_REGION=us-east-1
mkdir pe withpdb && cp "$hw/HelloWorld.exe" pe/ && cp "$hw/HelloWorld.exe" "$hw/HelloWorld.pdb" withpdb/
K=helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431
ilmap store add www/symbols/ci "$hw/HelloWorld.pdz" >/dev/null; echo "store add exit $?"
start_fault_server "$PWD/www"
export AWS_ENDPOINT_URL=$FAULT_URL/ok
printf '%s\n' '   at HelloWorld.Program.Main(String[] args) in HelloWorld.exe:token 0x6000001+0x1' >trace.txt
ilmap symbolicate --search withpdb --cache-dir c0 --columns trace.txt >want.txt 2>/dev/null
show() { "$@" 2>stderr.txt; local rc=$?; sed -E 's#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g' stderr.txt; echo "exit $rc"; }
show ilmap fetch --symbol-path "srv*dl*s3://symbols/ci" pe/HelloWorld.exe
sed "s#symbols/ci/##" "$FAULT_LOG"
cmp -s "dl/$K/msfz0/helloworld.pdb" "$hw/HelloWorld.pdz" && echo "the .pdz is kept under its key"
ilmap symbolicate --search pe --symbol-path "srv*dl2*s3://symbols/ci" --cache-dir c1 --columns trace.txt >got.txt 2>err.txt
echo "exit $?"; cat err.txt
cmp -s got.txt want.txt && echo "symbolicate: as with the .pdb"
echo "-- garbage under the msfz0 key: refused"
yes 'not a PDB' | head -c 4096 >"www/symbols/ci/$K/msfz0/helloworld.pdb"
show ilmap fetch --symbol-path "srv*dl3*s3://symbols/ci" pe/HelloWorld.exe
find dl3 -type f ! -path '*/.ilmap-404/*' 2>/dev/null | wc -l
