#!/usr/bin/env bash
# memory.sh ILMAP CORPUS_DIR - memory of one request to `ilmap serve`: hostile JSON bodies of
# about 10 MiB (a batch request of `{}` frames, one of empty arrays, a Sentry event of `{}`
# frames) sent one at a time; the server's peak resident size (VmHWM in /proc/PID/status) is
# read before and after each, and its growth must stay under 4 x (body + answer) + 32 MiB:
# the body is held by the server, the answer is built whole, and the rest (a few bytes per
# module, the per-frame scans, the allocator's slack) is small. A tree of the request, as the
# batch path built before, took 1.24 GB for the `{}` body. Exit 77 without curl or /proc.
set -uo pipefail
export LC_ALL=C
ILMAP=$(realpath "$1") CORPUS=$(realpath "$2")
command -v curl >/dev/null || { echo "SKIP: curl not found (install the Debian package curl)"; exit 77; }
[[ -r /proc/self/status ]] || { echo "SKIP: no /proc"; exit 77; }
. "$(dirname "$(realpath "$0")")/lib.sh"
serve_setup ilmap-serve-memory
mkdir bin srv
cp "$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.dll" "$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.pdb" bin/
start_in srv A "$ILMAP" serve --port 0 --search ../bin --cache-dir ../cache --workers 1 --max-body 11MiB
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
hwm_kib() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$PID_A/status"; }

python3 - <<'PY'
n = 10 * 1024 * 1024
def fill(item, overhead):
    return ','.join([item] * ((n - overhead) // (len(item) + 1)))
open('frames.json', 'w').write('{"stacktraces":[{"frames":[' + fill('{}', 64) + ']}],"modules":[]}')
open('arrays.json', 'w').write('{"stacktraces":[{"frames":[]}],"modules":[],"x":[' + fill('[]', 64) + ']}')
open('event.json', 'w').write('{"exception":{"values":[{"stacktrace":{"frames":[' + fill('{}', 64) + ']}}]}}')
PY

# A small request first, so that what every request costs (a worker's module index) is counted.
curl -sS -o /dev/null -H 'Content-Type: application/json' --data-binary '{"stacktraces":[],"modules":[]}' "$URL_A/symbolicate"
for body in arrays.json event.json frames.json; do
  before=$(hwm_kib)
  code=$(curl -sS -o answer.out -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @"$body" "$URL_A/symbolicate")
  after=$(hwm_kib)
  [[ $code == 200 ]] || { fail "$body: status $code: $(head -c 200 answer.out)"; continue; }
  size=$(stat -c %s "$body") answer=$(stat -c %s answer.out)
  bound=$(( (4 * (size + answer) + 32 * 1024 * 1024) / 1024 ))
  echo "$body: $size bytes, answer $answer bytes: VmHWM $before -> $after KiB (+$((after - before)), bound +$bound)"
  (( after - before <= bound )) || fail "$body: peak memory grew by $((after - before)) KiB, more than $bound KiB"
done
[[ $failures -eq 0 ]] || { echo "memory.sh: $failures failures"; exit 1; }
echo "memory.sh: ok"
