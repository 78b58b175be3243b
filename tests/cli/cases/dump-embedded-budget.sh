# Embedded sources: documents sharing one blob inflate it once, and all distinct sources of a
# PDB share the --max-decompressed budget (dump --documents and compile --embed-sources):
# 40 documents x one 64 KiB blob pass a 100 KiB budget; 3 distinct 64 KiB blobs exceed it (exit 2).
. "$(dirname "$0")/../common.sh"
need "$GOLDEN/embedded-source-shared.pdb" "$GOLDEN/embedded-source-over-budget.pdb"
cp "$GOLDEN/embedded-source-shared.pdb" shared.pdb
cp "$GOLDEN/embedded-source-over-budget.pdb" three.pdb
ilmap dump --documents --max-decompressed 100KiB shared.pdb | sed -n '1p;40p'; echo "exit ${PIPESTATUS[0]}"
ilmap dump --documents --max-decompressed 100KiB three.pdb; echo "exit $?"
ilmap dump --documents three.pdb | cut -f 1,2,6; echo "exit ${PIPESTATUS[0]}"
ilmap compile -q --embed-sources --max-decompressed 100KiB shared.pdb -o shared.ilmap; echo "compile shared: exit $?"
ilmap dump --documents shared.ilmap | sed -n '40p'
ilmap compile -q --embed-sources --max-decompressed 100KiB three.pdb -o three.ilmap; echo "compile three: exit $?"
[[ -e three.ilmap ]] && echo "three.ilmap written" || echo "no three.ilmap"
