# Downloads go to a temporary file in the cache, not to memory: an endless body (faultserver.py
# /endless/: 64 MiB of zeros, chunked) with --max-size 63MiB is stopped at the cap while the
# process stays far below that size (peak RSS within 24 MiB of a small download's: the body
# vector grew to 63 MiB and more), and the temporary file is gone; a good download is renamed
# into place, leaving no temporary either.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../faultserver.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" in/
ilmap store add www in/Ilmap.Corpus.Frames.pdb >/dev/null; echo "store add exit $?"
rm www/ilmap.corpus.frames.pdb/*/ilmap.corpus.frames.ilmap   # the PDB itself is fetched
start_fault_server "$PWD/www"
# rss_of CMD... - runs CMD (stdout and stderr to cmd.out), prints its exit code and peak RSS (KiB).
rss_of() {
  python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=open("cmd.out", "w"), stderr=subprocess.STDOUT)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
show() { sed -E 's#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g; s#ilmap\.corpus\.frames\.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF/#KEY/#g' cmd.out; }
echo "-- a good download"
read -r rc small < <(rss_of timeout 20 ilmap fetch --symbol-path "srv*ok*$FAULT_URL/ok" in/Ilmap.Corpus.Frames.dll)
echo "exit $rc"
show | cut -f1
cmp ok/ilmap.corpus.frames.pdb/*/ilmap.corpus.frames.pdb in/Ilmap.Corpus.Frames.pdb && echo "pdb equal"
echo "-- an endless body, --max-size 63MiB"
read -r rc big < <(rss_of timeout 20 ilmap fetch --max-size 63MiB --symbol-path "srv*c1*$FAULT_URL/endless" in/Ilmap.Corpus.Frames.dll)
echo "exit $rc"
show
if (( big - small < 24 * 1024 )); then echo "peak RSS within 24 MiB of the small download's"; else echo "peak RSS $big KiB, small download $small KiB"; fi
echo "-- no temporary file left"
find ok c1 -name '*.tmp-*' | wc -l
find c1 -type f -not -name .ilmap-store.lock -not -path '*/.ilmap-404/*' | wc -l
