# Method names in the cache (format 1.1 on): compiled from a PE, from a PDB with --pe, and from a
# PDB with its PE beside it; dump --methods of the cache equals dump --methods of the PE; a PDB
# alone gives a cache without names; a --pe that does not name the PDB is a mismatch (exit 3).
. "$(dirname "$0")/../common.sh"
need "$FRAMES.dll" "$FRAMES.pdb" "$FEATURES.dll"
mkdir pe alone
cp "$FRAMES.dll" "$FRAMES.pdb" pe/
cp "$FRAMES.pdb" alone/frames.pdb
ilmap compile -q pe/Ilmap.Corpus.Frames.dll -o dll.ilmap; echo "compile dll: exit $?"
ilmap dump --methods dll.ilmap | head -n 3
ilmap dump --methods dll.ilmap | grep -F 'MoveNext' | head -n 2
ilmap dump --methods --json dll.ilmap | head -n 1
ilmap dump --methods pe/Ilmap.Corpus.Frames.dll > from-pe.txt; echo "dump pe: exit $?"
ilmap dump --methods dll.ilmap > from-cache.txt
cmp from-pe.txt from-cache.txt && echo "pe == cache ($(wc -l < from-cache.txt) methods)"
ilmap info dll.ilmap | grep -E '^(format_version|method_names|method_name_count|assembly_name|module_name):'
ilmap compile -q pe/Ilmap.Corpus.Frames.pdb -o beside.ilmap; echo "compile pdb beside its dll: exit $?"
ilmap dump --methods beside.ilmap | cmp - from-pe.txt && echo "beside == pe"
ilmap compile -q alone/frames.pdb -o alone.ilmap; echo "compile pdb alone: exit $?"
ilmap info alone.ilmap | grep -E '^method_names'
ilmap dump --methods alone.ilmap; echo "dump --methods: exit $?"
ilmap compile alone/frames.pdb --pe pe/Ilmap.Corpus.Frames.dll -o alone.ilmap > /dev/null; echo "compile --pe: exit $?"
ilmap dump --methods alone.ilmap | cmp - from-pe.txt && echo "--pe == pe"
ilmap compile alone/frames.pdb --pe "$FEATURES.dll" -o other.ilmap 2>&1 | sed "s|$CORPUS|CORPUS|g"; echo "compile --pe other: exit ${PIPESTATUS[0]}"
[ -e other.ilmap ] || echo "no cache written"
ilmap compile pe/Ilmap.Corpus.Frames.dll --pe pe/Ilmap.Corpus.Frames.dll -o x.ilmap; echo "--pe with a PE: exit $?"
ilmap dump --methods alone/frames.pdb; echo "dump --methods of a PDB: exit $?"
# A format 1.0 cache (written before format 2.0) is refused by its major version, with both
# versions named; `compile` over it rebuilds it (a 1.x cache is never up to date).
old=$CORPUS/../tests/reader/format-1.0.ilmap
cp "$old" old.ilmap
ilmap info old.ilmap > /dev/null; echo "info 1.0: exit $?"
ilmap compile -q pe/Ilmap.Corpus.Frames.pdb -o old.ilmap; echo "compile over 1.0: exit $?"
ilmap info old.ilmap | grep -E '^(format_version|method_names):'
