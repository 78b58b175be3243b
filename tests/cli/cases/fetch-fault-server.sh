# fetch against the fault-injecting server (faultserver.py): 500s then success (retried with
# backoff), always 500, a slow body (read timeout), a truncated body, a body longer than its
# Content-Length, a 10 GiB Content-Length, an endless chunked body, a wrong checksum, a
# redirect loop: each gives a clear error and a documented exit code, within a bounded time
# (every run under `timeout 20`), and nothing is left in the download caches but the store
# lock and 404 markers (no partial or temporary file).
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../faultserver.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" in/
ilmap store add www in/Ilmap.Corpus.Frames.pdb >/dev/null; echo "store add exit $?"
rm www/ilmap.corpus.frames.pdb/*/ilmap.corpus.frames.ilmap   # the PDB itself is fetched
start_fault_server "$PWD/www"
fetch() {  # fetch CACHE FAULT [OPTIONS...]
  local cache=$1 fault=$2
  shift 2
  timeout 20 ilmap fetch "$@" --symbol-path "srv*$cache*$FAULT_URL/$fault" in/Ilmap.Corpus.Frames.dll 2>stderr.txt >stdout.txt
  echo "exit $?" >>stderr.txt
  cat stdout.txt stderr.txt | sed -E 's#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g; s#ilmap\.corpus\.frames\.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF/#KEY/#g'
}
pdb_requests() { grep -c "^$1 .* ilmap.corpus.frames.pdb/.*/ilmap.corpus.frames.pdb\$" "$FAULT_LOG"; }
echo "-- 500, 500, then the file: found on the 3rd attempt"
fetch ok1 flaky --attempts 3
grep "^flaky .*/ilmap.corpus.frames.pdb\$" "$FAULT_LOG" | cut -d' ' -f1,2
cmp ok1/ilmap.corpus.frames.pdb/*/ilmap.corpus.frames.pdb in/Ilmap.Corpus.Frames.pdb && echo "pdb equal"
echo "-- always 500: 2 attempts"
fetch c1 always500 --attempts 2
pdb_requests always500
echo "-- slow body: read timeout"
fetch c2 slow --attempts 1 --read-timeout 1
echo "-- truncated body: retried, then an error"
fetch c3 truncated --attempts 2
pdb_requests truncated
echo "-- a body longer than its Content-Length: only the declared bytes are read, and refused"
fetch c4 longer
echo "-- Content-Length 10 GiB: refused before the body"
fetch c5 huge --max-size 64MiB
echo "-- an endless chunked body: stopped at the size cap"
fetch c6 endless --max-size 1MiB
echo "-- a wrong checksum"
fetch c7 wrongsum
echo "-- a redirect loop"
fetch c8 loop --attempts 1
echo "-- nothing but the lock and 404 markers in the failed caches"
find c1 c2 c3 c4 c5 c6 c7 c8 -type f -not -name .ilmap-store.lock -not -path '*/.ilmap-404/*' 2>/dev/null | wc -l
