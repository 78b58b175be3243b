# --max-decompressed caps what compile inflates: an embedded PDB or an embedded source whose
# declared size is over the cap is refused (exit 2, one message naming the structure), an
# existing cache is left alone, and a cap above the sizes changes nothing.
. "$(dirname "$0")/../common.sh"
need "$EMBEDDED_ALL.dll" "$EMBEDDED_SOURCES.pdb"
cp "$EMBEDDED_ALL.dll" all.dll
cp "$EMBEDDED_SOURCES.pdb" es.pdb
ilmap compile -q all.dll --max-decompressed 2KiB 2>&1; echo "exit $?"
ilmap compile -q es.pdb --embed-sources -o es.ilmap; echo "exit $?"
cp es.ilmap saved.ilmap
ilmap compile -q --force es.pdb --embed-sources -o es.ilmap --max-decompressed 100 2>&1; echo "exit $?"
cmp es.ilmap saved.ilmap && echo "existing cache unchanged"
ilmap compile -q --force es.pdb --embed-sources -o capped.ilmap --max-decompressed 64KiB; echo "exit $?"
cmp capped.ilmap saved.ilmap && echo "same bytes under a cap above the sizes"
ilmap compile -q all.dll --max-decompressed 0 2>/dev/null; echo "exit $?"
ls -A
