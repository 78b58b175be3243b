# Four `store add` runs of the same inputs into one store at once, two of them with --jobs 4:
# every file and every cache is added by exactly one run ("already present" for the others),
# nothing is refused, the store verifies, no temporaries.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb" "$FEATURES.dll" "$EMBEDDED_DLL"
mkdir in && cp "$FRAMES.pdb" "$FEATURES.pdb" "$FEATURES.dll" "$EMBEDDED_DLL" in/
for i in $(seq -w 0 11); do cp "$FRAMES.pdb" in/fr$i.pdb; cp "$FEATURES.pdb" in/fe$i.pdb; done
ilmap store add st in >out1 2>err1 & p1=$!
ilmap store add --jobs 4 st in >out2 2>err2 & p2=$!
ilmap store add st in >out3 2>err3 & p3=$!
ilmap store add -j 4 st in >out4 2>err4 & p4=$!
for p in $p1 $p2 $p3 $p4; do wait $p; echo "exit $?"; done
cat err1 err2 err3 err4
cat out1 out2 out3 out4 | grep -c '^added: '
cat out1 out2 out3 out4 | grep -c '^already present: '
cat out1 out2 out3 out4 | grep -c '(cache added)$\|(cache added: '
cat out1 out2 out3 out4 | grep -c '(cache already present)$\|(cache already present: '
# Each file's line once per run, and each run's summary counts 28 files.
cat out1 out2 out3 out4 | grep ': ' | sed 's/^[a-z ]*: //; s/ (cache .*//' | sort | uniq -c | awk '{print $1}' | sort -u
for i in 1 2 3 4; do tail -n 1 out$i; done | sed 's/^[0-9]* added, [0-9]* already present/N added, M already present/' | sort | uniq -c
for i in 1 2 3 4; do tail -n 1 out$i | awk '{a += $1; p += $3} END {print a + p}'; done | sort -u
find st -name '*.tmp-*' | wc -l
ilmap store verify st; echo "exit $?"
