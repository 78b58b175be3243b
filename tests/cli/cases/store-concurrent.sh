# Four `store add` runs of the same inputs into one store at once: every file is added by
# exactly one run ("already present" for the others), the store verifies, no temporaries.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb" "$FEATURES.dll" "$EMBEDDED_DLL"
mkdir in && cp "$FRAMES.pdb" "$FEATURES.pdb" "$FEATURES.dll" "$EMBEDDED_DLL" in/
for i in 1 2 3 4; do ilmap store add st in >out$i 2>err$i & done
wait
cat err1 err2 err3 err4
cat out1 out2 out3 out4 | grep -c '^added: '
cat out1 out2 out3 out4 | grep -c '^already present: '
cat out1 out2 out3 out4 | sed 's/^[a-z ]*: //' | sort | uniq -c | awk '{print $1}' | sort -u
find st -name '*.tmp-*' | wc -l
ilmap store verify st; echo "exit $?"
