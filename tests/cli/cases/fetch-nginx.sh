# fetch from a store served by nginx: the cache is preferred and answers lookup; a PDB is
# fetched (with the SymbolChecksum header) when the server has no cache, and its cache compiled
# into the local cache; a second fetch is
# local; a 404 is remembered (negative cache); a wrong cache falls back to the PDB; a wrong or
# tampered PDB is refused and nothing is left in the local cache.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb" "$FEATURES.dll" "$CORPUS/out/cs-manymethods/Ilmap.Corpus.ManyMethods.dll"
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb" "$FEATURES.dll" in/
ilmap store add www in >/dev/null; echo "store add exit $?"
start_nginx "$PWD/www"
mkdir pe && cp "$FRAMES.dll" "$FEATURES.dll" "$CORPUS/out/cs-manymethods/Ilmap.Corpus.ManyMethods.dll" pe/
F=ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF
echo "-- cache preferred"
show ilmap fetch --symbol-path "srv*cache*$URL" pe/Ilmap.Corpus.Frames.dll
ilmap lookup cache/$F/ilmap.corpus.frames.ilmap 0x06000001 0; echo "exit $?"
cat "$NGINX_LOG"
echo "-- again: local, no request"
n=$(requests)
show ilmap fetch --symbol-path "srv*cache*$URL" pe/Ilmap.Corpus.Frames.dll
[[ $(requests) == "$n" ]] && echo "no request"
echo "-- no cache on the server: the PDB, with SymbolChecksum; its cache compiled locally"
rm www/$F/ilmap.corpus.frames.ilmap
: >"$NGINX_LOG"
show ilmap fetch --symbol-path "cache*c2;srv*$URL" pe/Ilmap.Corpus.Frames.dll
cmp c2/$F/ilmap.corpus.frames.pdb in/Ilmap.Corpus.Frames.pdb && echo "pdb equal"
ilmap lookup c2/$F/ilmap.corpus.frames.ilmap 0x06000001 0; echo "exit $?"
cat "$NGINX_LOG"
echo "-- 404, remembered"
: >"$NGINX_LOG"
show ilmap fetch --symbol-path "srv*c3*$URL" pe/Ilmap.Corpus.ManyMethods.dll
show ilmap fetch --symbol-path "srv*c3*$URL" pe/Ilmap.Corpus.ManyMethods.dll
requests
show ilmap fetch --negative-ttl 0 --symbol-path "srv*c3*$URL" pe/Ilmap.Corpus.ManyMethods.dll
requests
echo "-- a wrong cache: refused, the PDB is used (and a right cache compiled)"
cp www/ilmap.corpus.features.pdb/*/ilmap.corpus.features.ilmap www/$F/ilmap.corpus.frames.ilmap
show ilmap fetch -v --symbol-path "srv*c4*$URL" pe/Ilmap.Corpus.Frames.dll
ilmap verify c4/$F/ilmap.corpus.frames.ilmap >/dev/null; echo "verify exit $?"
ilmap store verify c4
echo "-- a PDB with another id under the key: refused"
rm www/$F/ilmap.corpus.frames.ilmap
cp in/Ilmap.Corpus.Features.pdb www/$F/ilmap.corpus.frames.pdb
show ilmap fetch --symbol-path "srv*c5*$URL" pe/Ilmap.Corpus.Frames.dll
echo "-- the right id, other bytes (PdbChecksum): refused"
cp in/Ilmap.Corpus.Frames.pdb www/$F/ilmap.corpus.frames.pdb
printf '\x55' | dd of=www/$F/ilmap.corpus.frames.pdb bs=1 seek=$(( $(stat -c %s in/Ilmap.Corpus.Frames.pdb) - 1 )) conv=notrunc 2>/dev/null
show ilmap fetch --symbol-path "srv*c5*$URL" pe/Ilmap.Corpus.Frames.dll
find c5 -name '*.pdb' -o -name '*.ilmap' -o -name '*.tmp-*' | wc -l
