# Directory mode and MSFZ PDBs: a lone HelloWorld.pdz compiles (to the cache of its .pdb's
# contents); beside HelloWorld.exe it is the PE's (one job, the PE's); beside a same-named .pdb
# the .pdb is compiled and the .pdz left to it. --json lists the jobs.
. "$(dirname "$0")/../common.sh"
shared=${ILMAP_SHARED_DIR:-$CORPUS/../../shared}
hw=$shared/corpus-more/msfz_diagnostics_HelloWorld
need "$hw/HelloWorld.pdz" "$hw/HelloWorld.pdb" "$hw/HelloWorld.exe"
mkdir -p tree/lone tree/withpe tree/withpdb
cp "$hw/HelloWorld.pdz" tree/lone/
cp "$hw/HelloWorld.pdz" "$hw/HelloWorld.exe" tree/withpe/
cp "$hw/HelloWorld.pdz" "$hw/HelloWorld.pdb" tree/withpdb/
ilmap compile -q "$hw/HelloWorld.pdb" -o want.ilmap
ilmap compile tree --json >out.json; echo "exit $?"
python3 -c 'import json, sys
d = json.load(open("out.json"))
print(d["compiled"], "compiled,", d["skipped"], "skipped,", d["failed"], "failed")
for j in d["results"]: print(j["input"], j["result"], j["output"])'
find tree -type f | sort
for c in tree/lone/HelloWorld.ilmap tree/withpdb/HelloWorld.ilmap; do
  cmp -s <(ilmap dump "$c") <(ilmap dump want.ilmap) && echo "$c: dump as the .pdb's"
done
