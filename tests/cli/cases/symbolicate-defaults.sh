# Defaults a user of other symbol tools expects (docs/symbolicate.md, docs/symbol-stores.md):
# symbolicate without --search looks in the current directory; $_NT_SYMBOL_PATH is the symbol
# path of symbolicate, lookup and compile when --symbol-path is not given (--symbol-path wins);
# caches compiled without --cache-dir go to $XDG_CACHE_HOME/ilmap; frames left unresolved leave
# the exit code 0 unless --strict.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
frame='   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7'
mkdir app empty dllonly
cp "$FRAMES.pdb" "$FRAMES.dll" app/
cp "$FRAMES.dll" dllonly/
printf '%s\n' "$frame" >trace.txt
export XDG_CACHE_HOME=$PWD/xdg
echo "-- no --search: the current directory"
(cd app && ilmap symbolicate ../trace.txt; echo "exit $?")
ls xdg/ilmap/ilmap.corpus.frames.pdb/*/
echo "-- a store as \$_NT_SYMBOL_PATH"
ilmap store add store app/ >/dev/null 2>&1; echo "store add exit $?"
# A ProductionStackTrace frame names its module by CodeView GUID and age: the store has it.
guid=$(ilmap info --json app/Ilmap.Corpus.Frames.dll | sed -n 's/^ *"codeview_guid": "\([0-9a-f-]*\)".*/\1/p')
printf '%s\n' '   at Ilmap.Corpus.Frames!0x0600000a!Ilmap.Corpus.Frames.Scenarios.Fail(String why) +0x7' '==========' \
  "MODULE: Ilmap.Corpus.Frames => Ilmap.Corpus.Frames, Version=1.0.0.0; G:${guid//-/}; A:1" >pst.txt
_NT_SYMBOL_PATH=$PWD/store ilmap symbolicate --search empty --cache-dir cc pst.txt; echo "exit $?"
_NT_SYMBOL_PATH=$PWD/store ilmap lookup dllonly/Ilmap.Corpus.Frames.dll 0x600000a 7; echo "lookup exit $?"
_NT_SYMBOL_PATH=$PWD/store ilmap compile -q dllonly/Ilmap.Corpus.Frames.dll -o dllonly.ilmap; echo "compile exit $?"
ilmap lookup dllonly.ilmap 0x600000a 7
echo "-- --symbol-path wins over \$_NT_SYMBOL_PATH"
_NT_SYMBOL_PATH=$PWD/store ilmap lookup --symbol-path "$PWD/empty" dllonly/Ilmap.Corpus.Frames.dll 0x600000a 7; echo "lookup exit $?"
echo "-- without either, the DLL is compiled: its PDB is neither beside it nor embedded"
ilmap lookup dllonly/Ilmap.Corpus.Frames.dll 0x600000a 7; echo "lookup exit $?"
echo "-- exit 0 with frames left unresolved, 3 with --strict (the text is written either way)"
printf '%s\n' "$frame" '   at A.B() in Nowhere.dll:token 0x6000001+0x1' >two.txt
(cd app && ilmap symbolicate ../two.txt 2>/dev/null | wc -l; echo "exit ${PIPESTATUS[0]}")
(cd app && ilmap symbolicate --strict ../two.txt 2>/dev/null | wc -l; echo "exit ${PIPESTATUS[0]}")
(cd app && ilmap symbolicate --strict ../trace.txt 2>/dev/null | wc -l; echo "exit ${PIPESTATUS[0]}")
