# store add of many files with --jobs: the output (one line per file in input order, then the
# summary) is the same for -j 1 and -j 8; a second run finds every file "already present";
# --json is one document whose counts and stored keys match the store; -q prints only errors
# (and the summary when something failed); every stored file verifies.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb" "$FEATURES.dll" "$EMBEDDED_DLL"
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb" "$FEATURES.dll" "$EMBEDDED_DLL" in/
# 40 more PDBs under their own keys: the key of a PDB starts with its file name.
for i in $(seq -w 0 19); do cp "$FRAMES.pdb" in/fr$i.pdb; cp "$FEATURES.pdb" in/fe$i.pdb; done
ilmap store add -j 1 st1 in >out1 2>err1; echo "-j 1 exit $?"
ilmap store add --jobs 8 st8 in >out8 2>err8; echo "-j 8 exit $?"
cat err1 err8
cmp out1 out8 && echo "same output for -j 1 and -j 8"
grep -c '^added: .* (cache added)$' out8
tail -n 1 out8
(cd st1 && find . -type f | sort) >files1
(cd st8 && find . -type f | sort) >files8
cmp files1 files8 && echo "same files for -j 1 and -j 8"
grep -c '\.ilmap$' files8
echo "--- again"
ilmap store add -j 8 st8 in >again 2>&1; echo "exit $?"
grep -c '^already present: ' again
grep -vc '^already present: ' again
tail -n 1 again
echo "--- json"
ilmap store add --json -j 4 js in >js.json 2>js.err; echo "exit $?"
cat js.err
python3 - js.json js <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
print({k: doc[k] for k in ("added", "already_present", "refused", "failed")})
res = doc["results"]
print(len(res), "results", sorted({r["result"] for r in res}))
inputs = [r["input"] for r in res]
print("input order:", inputs == sorted(inputs))
keys = [s["key"] for r in res for s in r["stored"]]
missing = [k for k in keys if not os.path.isfile(os.path.join(sys.argv[2], k))]
print(len(keys), "stored keys,", len(missing), "missing")
pe = [r for r in res if r["input"].endswith("FeaturesEmbedded.dll")][0]
print(pe["input"], pe["key"], [(s["key"], s["outcome"]) for s in pe["stored"]])
PY
echo "--- quiet"
ilmap store add -q -j 8 js in; echo "exit $?"
mkdir bad && printf 'not a pdb' >bad/zz.pdb && cp in/fr00.pdb bad/
printf '\x55' | dd of=bad/fr00.pdb bs=1 seek=$(( $(stat -c %s bad/fr00.pdb) - 1 )) conv=notrunc 2>/dev/null
ilmap store add -q -j 8 js bad 2>&1; echo "exit $?"
ilmap store add --json js bad 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["refused"], d["failed"], [(r["result"], r["exit_code"]) for r in d["results"]])'
echo "--- verify"
ilmap store verify st8; echo "exit $?"
ilmap store verify js; echo "exit $?"
