# symbolicate with caches fetched from a symbol server (a store written by `store add`, served by
# nginx): the trace names only the module; the PE is in --search without its PDB; the cache comes
# over HTTP (--symbol-path), verified, and answers the frame; a second run asks nothing; a
# server that has only another build's PDB under the name leaves the frame unresolved.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb"
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" in/
ilmap store add www in >/dev/null; echo "store add exit $?"
start_nginx "$PWD/www"
mkdir pe && cp "$FRAMES.dll" pe/
printf '%s\n' 'Unhandled exception. System.InvalidOperationException: boom' \
  '   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7' >trace.txt
echo "-- fetched cache answers"
ilmap symbolicate --search pe --symbol-path "srv*dl*$URL" --cache-dir cc --columns trace.txt; echo "exit $?"
cat "$NGINX_LOG"
echo "-- again: local, no request"
n=$(requests)
ilmap symbolicate --search pe --symbol-path "srv*dl*$URL" --cache-dir cc trace.txt 2>/dev/null; echo "exit $?"
[[ $(requests) == "$n" ]] && echo "no request"
echo "-- another build's PDB under the key: unresolved, text unchanged"
F=ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF
rm -f www/$F/ilmap.corpus.frames.ilmap
cp "$FEATURES.pdb" www/$F/ilmap.corpus.frames.pdb
ilmap symbolicate --search pe --symbol-path "srv*dl2*$URL" --cache-dir cc2 trace.txt; echo "exit $?"
find dl2 cc2 -name '*.pdb' -o -name '*.ilmap' 2>/dev/null | wc -l
