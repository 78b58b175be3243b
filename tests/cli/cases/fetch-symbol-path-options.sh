# --symbol-path on lookup and compile (the helper fetch and symbolicate share): lookup takes a
# PE (or PDB) for CACHE and answers from the cache the symbol path holds (fetched, verified);
# compile fetches a PE's PDB only when it is not found locally; wrong files are refused (exit
# 3); a cache argument is used as is; bad symbol paths are usage errors.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb" "$FEATURES.dll"
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" in/
ilmap store add www in >/dev/null; echo "store add exit $?"
start_nginx "$PWD/www"
mkdir pe && cp "$FRAMES.dll" "$FEATURES.dll" pe/
F=ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF
echo "-- lookup: a PE, its cache fetched"
show ilmap lookup --symbol-path "srv*c1*$URL" pe/Ilmap.Corpus.Frames.dll 0x06000001 0
ls c1/$F
echo "-- lookup: a PDB; a local store; a cache argument as is"
show ilmap lookup --symbol-path "srv*c1*$URL" in/Ilmap.Corpus.Frames.pdb 0x06000001 0
show ilmap lookup --symbol-path www pe/Ilmap.Corpus.Frames.dll 0x06000001 0
: >"$NGINX_LOG"
show ilmap lookup --symbol-path "srv*c9*$URL" c1/$F/ilmap.corpus.frames.ilmap 0x06000001 0
echo "requests: $(requests)"
echo "-- lookup: not on the server (exit 3); only a PDB in a local store (exit 3)"
show ilmap lookup --symbol-path "srv*c2*$URL" pe/Ilmap.Corpus.Features.dll 0x06000001 0
mkdir -p pdbonly/$F && cp in/Ilmap.Corpus.Frames.pdb pdbonly/$F/ilmap.corpus.frames.pdb
show ilmap lookup --symbol-path pdbonly pe/Ilmap.Corpus.Frames.dll 0x06000001 0
echo "-- compile: the PDB fetched when not beside the PE; the same cache as from the PDB"
: >"$NGINX_LOG"
show ilmap compile -q --symbol-path "srv*c3*$URL" pe/Ilmap.Corpus.Frames.dll -o fetched.ilmap
ilmap compile -q pe/Ilmap.Corpus.Frames.dll --pdb in/Ilmap.Corpus.Frames.pdb -o local.ilmap
cmp fetched.ilmap local.ilmap && echo "caches equal"
cat "$NGINX_LOG" | cut -d' ' -f1,2
find c3 -name '*.ilmap' | wc -l
echo "-- compile: the PDB beside the PE is used, no request"
cp in/Ilmap.Corpus.Frames.pdb pe/
: >"$NGINX_LOG"
show ilmap compile -q --symbol-path "srv*c4*$URL" pe/Ilmap.Corpus.Frames.dll -o beside.ilmap
echo "requests: $(requests)"
rm pe/Ilmap.Corpus.Frames.pdb
echo "-- compile: another PDB under the key: refused (exit 3), no output"
cp "$FEATURES.pdb" www/$F/ilmap.corpus.frames.pdb
show ilmap compile -q --symbol-path "srv*c5*$URL" pe/Ilmap.Corpus.Frames.dll -o wrong.ilmap
ls wrong.ilmap 2>/dev/null
echo "-- compile, directory mode: one PDB fetched, one the server lacks skipped"
mkdir dir && cp "$FRAMES.dll" "$FEATURES.dll" dir/
cp in/Ilmap.Corpus.Frames.pdb www/$F/ilmap.corpus.frames.pdb
show ilmap compile --symbol-path "srv*c6*$URL" dir --out-dir outdir
ls outdir
echo "-- usage"
(unset HOME XDG_CACHE_HOME; show ilmap compile -q --symbol-path "srv*$URL" pe/Ilmap.Corpus.Frames.dll -o x.ilmap)
show ilmap compile -q --symbol-path www --pdb in/Ilmap.Corpus.Frames.pdb pe/Ilmap.Corpus.Frames.dll -o x.ilmap
show ilmap lookup --symbol-path "srv*" pe/Ilmap.Corpus.Frames.dll 0x06000001 0
