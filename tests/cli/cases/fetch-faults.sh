# fetch error paths against nginx: 500 (retried, bounded, exit 2), a body slower than the read
# timeout (exit 2), a body over --max-size (exit 2), bad symbol paths (usage); nothing is left in
# the local caches; a server named without a local cache downloads into the default cache
# directory ($XDG_CACHE_HOME/ilmap/symbols), and without HOME and XDG_CACHE_HOME is a usage error;
# a 302 is followed, a redirect loop stops after 5 (exit 2).
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" in/
ilmap store add www in/Ilmap.Corpus.Frames.pdb >/dev/null; echo "store add exit $?"
start_nginx "$PWD/www"
echo "-- 500: 2 attempts for each of the cache and the PDB"
show ilmap fetch --attempts 2 --symbol-path "srv*c1*$URL/fail" in/Ilmap.Corpus.Frames.dll
grep -c ' 500 ' "$NGINX_LOG"
echo "-- slow body"
show ilmap fetch --attempts 1 --read-timeout 1 --symbol-path "srv*c2*$URL/slow" in/Ilmap.Corpus.Frames.dll
echo "-- over the size cap"
show ilmap fetch --max-size 1000 --symbol-path "srv*c3*$URL" in/Ilmap.Corpus.Frames.dll
find c1 c2 c3 -type f -not -name .ilmap-store.lock 2>/dev/null | wc -l
echo "-- usage"
show ilmap fetch --symbol-path "srv*$URL" in/Ilmap.Corpus.Frames.dll | sed "s#$XDG_CACHE_HOME#XDG_CACHE_HOME#"
(unset HOME XDG_CACHE_HOME; show ilmap fetch --symbol-path "srv*$URL" in/Ilmap.Corpus.Frames.dll)
show ilmap fetch --symbol-path "srv*" in/Ilmap.Corpus.Frames.dll
show ilmap fetch --symbol-path "srv*c4*ftp://example.invalid/s" in/Ilmap.Corpus.Frames.dll
show ilmap fetch --symbol-path "$URL" in/Ilmap.Corpus.Frames.dll
echo "-- a local directory store, then the server"
show ilmap fetch --symbol-path "www;srv*c5*$URL/fail" in/Ilmap.Corpus.Frames.dll
echo "-- a 302 is followed; a redirect loop stops"
show ilmap fetch --symbol-path "srv*c6*$URL/moved" in/Ilmap.Corpus.Frames.dll
show ilmap fetch --attempts 1 --symbol-path "srv*c7*$URL/loop" in/Ilmap.Corpus.Frames.dll
