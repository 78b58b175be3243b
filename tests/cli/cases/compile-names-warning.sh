# A PE whose method names cannot be built (NestedClass row 1 of the frames DLL made to enclose
# itself: a nesting cycle) still compiles: a warning on stderr, a cache without names that
# verifies and answers lookups; dump --methods of that PE fails with the names error (exit 2).
. "$(dirname "$0")/../common.sh"
need "$FRAMES.dll" "$FRAMES.pdb"
cp "$FRAMES.dll" "$FRAMES.pdb" .
dll=Ilmap.Corpus.Frames.dll
# NestedClass row 1, EnclosingClass cell (2 bytes at file offset 8596): TypeDef 5 -> 11, the
# nested type itself. The guard fails loudly if the corpus DLL was rebuilt differently.
[ "$(od -An -tx1 -j8596 -N2 $dll | tr -d ' \n')" = "0500" ] || { echo "corpus DLL changed: the NestedClass cell is not at 8596"; exit 1; }
printf '\x0b' | dd of=$dll bs=1 seek=8596 conv=notrunc 2>/dev/null
ilmap compile $dll -o c.ilmap; echo "compile: exit $?"
ilmap verify c.ilmap; echo "verify: exit $?"
ilmap info c.ilmap | grep -E '^method_names:'
ilmap lookup c.ilmap 0x0600000a 7; echo "lookup: exit $?"
ilmap dump --methods $dll; echo "dump --methods: exit $?"
