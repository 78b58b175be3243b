# --context shows the sources embedded in the PDB (docs/symbolicate.md): the DLL's embedded PDB
# holds them, and symbolicate compiles them into its cache when --context asks for them (a
# cache compiled before without them is compiled again). Embedded sources come before a
# --source-root checkout. The blocks are checked against the file the PDB was built from.
. "$(dirname "$0")/../common.sh"
need "$EMBEDDED_ALL.dll" "$CORPUS/src/EmbeddedAll/Queue.cs"
mkdir d src
cp "$EMBEDDED_ALL.dll" d/
frame='   at Ilmap.Corpus.EmbeddedAll.WorkQueue`1.Enqueue(T item) in Ilmap.Corpus.EmbeddedAll.dll:token 0x6000001+0x11'
printf '%s\n' "$frame" "$frame" >t.txt
run() { ilmap symbolicate --search d --cache-dir cc "$@"; }
notes() { grep -o -e '^ilmap: compiled' -e '^ilmap: reused' -e '^ilmap symbolicate: .*'; }
echo "-- without --context: compiled without the sources"
run -v t.txt 2>&1 >/dev/null | notes
echo "-- --context 2: compiled again, with them"
run -v --context 2 t.txt 2>err.txt >out.txt; echo "exit $?"
notes <err.txt
cat out.txt
mkdir -p root/EmbeddedAll && cp "$CORPUS/src/EmbeddedAll/Queue.cs" root/EmbeddedAll/
check_context_blocks out.txt root
echo "-- then reused"
run -v --context 2 t.txt 2>&1 >/dev/null | notes
echo "-- a --source-root holding another text changes nothing: the embedded one is shown"
mkdir -p mod/EmbeddedAll && sed 's/items.Enqueue(item);/MODIFIED/' root/EmbeddedAll/Queue.cs >mod/EmbeddedAll/Queue.cs
run --context 0 --source-root /_/=mod t.txt 2>/dev/null | sed -n '2p'
