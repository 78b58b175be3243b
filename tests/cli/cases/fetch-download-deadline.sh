# A server that drips the body at 8 KiB/s (faultserver.py /drip/: above the 1 KiB/s low-speed
# limit, so --read-timeout never fires, and 64 MiB long: 2 hours) is cut off by the deadline for
# the whole download, --download-timeout, in fetch, lookup --symbol-path, compile --symbol-path
# and symbolicate --symbol-path: a clear error, the documented exit code, no file left behind.
# Every run is under `timeout 20`: without the deadline it would be killed (exit 124).
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../faultserver.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir in pe && cp "$FRAMES.pdb" "$FRAMES.dll" in/ && cp "$FRAMES.dll" pe/
ilmap store add www in/Ilmap.Corpus.Frames.pdb >/dev/null; echo "store add exit $?"
start_fault_server "$PWD/www" 60
show() { sed -E 's#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g; s#ilmap\.corpus\.frames\.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF/#KEY/#g'; }
echo "-- fetch --download-timeout 1"
timeout 20 ilmap fetch --download-timeout 1 --symbol-path "srv*c1*$FAULT_URL/drip" pe/Ilmap.Corpus.Frames.dll 2>&1 | show
echo "exit ${PIPESTATUS[0]}"
echo "-- lookup --symbol-path --download-timeout 1"
timeout 20 ilmap lookup --download-timeout 1 --symbol-path "srv*c2*$FAULT_URL/drip" pe/Ilmap.Corpus.Frames.dll 0x0600000a 7 2>&1 | show
echo "exit ${PIPESTATUS[0]}"
echo "-- compile --symbol-path --download-timeout 1"
timeout 20 ilmap compile --download-timeout 1 --symbol-path "srv*c3*$FAULT_URL/drip" pe/Ilmap.Corpus.Frames.dll -o out.ilmap 2>&1 | show
echo "exit ${PIPESTATUS[0]}"
echo "-- symbolicate --symbol-path --download-timeout 1"
printf '%s\n' '   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7' >trace.txt
timeout 20 ilmap symbolicate --download-timeout 1 --search pe --cache-dir cc --symbol-path "srv*c4*$FAULT_URL/drip" -v trace.txt 2>&1 >/dev/null | grep -e 'deadline' -e 'frames' | show
echo "exit ${PIPESTATUS[0]}"
echo "-- nothing left in the download caches but the lock and 404 markers"
find c1 c2 c3 c4 cc -type f -not -name .ilmap-store.lock -not -path '*/.ilmap-404/*' 2>/dev/null | wc -l
echo "-- the option's range"
ilmap fetch --download-timeout 0 --symbol-path "srv*c6*$FAULT_URL/drip" pe/Ilmap.Corpus.Frames.dll >/dev/null 2>&1; echo "exit $?"
