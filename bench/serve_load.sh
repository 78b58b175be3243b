#!/usr/bin/env bash
# bench/serve_load.sh - load and soak of `ilmap serve` with wrk (Debian's package), on 127.0.0.1
# only, each run bounded in time. BENCHMARKS.md "serve: load and soak".
#
#   bench/serve_load.sh [--build DIR] [--duration S] [--connections N] [--soak S] [--write FILE]
#     --build DIR      a Release build with the target ilmap (default build/release)
#     --duration S     seconds per load run (default 20)
#     --connections N  wrk connections (default 8)
#     --soak S         seconds of the soak (default 600; 0: none)
#     --write FILE     replace the part of FILE between the lines <!-- serve-load:begin --> and
#                      <!-- serve-load:end --> with the tables (BENCHMARKS.md); else print them
#
# Servers (the corpus's cs-frames module in the search set, its cache compiled before the runs):
#   1 instance, --workers 1; 1 instance, --workers 2; 2 instances (--workers 1 each) behind nginx
#   as the load balancer (an upstream of both, keep-alive to them).
# Requests: the runtime's recorded trace as text (61 frames, 47 of them in the module), and a batch request of
# 1,000 frames (symbolicator's JSON shape) of that module. Before each run one request is checked
# against `ilmap symbolicate` (text) or for the same frames resolved (batch); wrk counts any status
# but 200 as an error. Soak: 1 instance, --workers 2, the trace at N connections for S seconds;
# its resident memory (VmRSS) is sampled every 10 s.
# The load generator shares the machine with the servers (2 cores here): figures are for
# comparing the configurations with each other in one run. Never a ctest test.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bench-lib.sh"
BUILD="$ROOT/build/release"
DURATION=20
CONNECTIONS=8
SOAK=600
WRITE=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift ;;
    --duration) DURATION="$2"; shift ;;
    --connections) CONNECTIONS="$2"; shift ;;
    --soak) SOAK="$2"; shift ;;
    --write) WRITE="$2"; shift ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "serve_load.sh: unknown option $1" >&2; exit 1 ;;
  esac
  shift
done
BUILD=$(cd "$BUILD" && pwd)  # the script works in a temporary folder
ILMAP="$BUILD/tools/ilmap"
CORPUS="$ROOT/corpus"
[[ -x $ILMAP ]] || { echo "serve_load.sh: build the target ilmap in $BUILD first" >&2; exit 1; }
command -v wrk >/dev/null || { echo "serve_load.sh: wrk not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] ||
  { echo "serve_load.sh: nginx not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
dll=$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.dll
[[ -f $dll ]] || { echo "serve_load.sh: $dll missing (corpus/build.sh)" >&2; exit 1; }

[[ -z $WRITE ]] || WRITE=$(realpath "$WRITE")
. "$ROOT/tests/serve/lib.sh"  # serve_setup, start_in, free_port, start_nginx
serve_setup ilmap-serve-load
log() { echo "[serve-load] $*" >&2; }

mkdir bin
cp "$dll" "${dll%.dll}.pdb" bin/
cp "$CORPUS/traces/cs-frames.il-offsets.txt" trace.txt
"$ILMAP" symbolicate --search bin --cache-dir cache <trace.txt >want.txt 2>/dev/null
id=$("$ILMAP" info bin/Ilmap.Corpus.Frames.pdb | sed -n 's/^debug_id: *//p')
# 1,000 frames: the trace's (token, IL offset) pairs of the module, repeated.
grep -o 'Ilmap.Corpus.Frames.dll:token 0x[0-9a-f]*+0x[0-9a-f]*' trace.txt | sed 's/.*token 0x\([0-9a-f]*\)+\(0x[0-9a-f]*\)/\1 \2/' |
  python3 -c '
import json, sys
pairs = [l.split() for l in sys.stdin if l.strip()]
frames = [{"function_id": "0x%x" % (int(t, 16) & 0xffffff), "instruction_addr": o, "addr_mode": "rel:0"}
          for t, o in (pairs[i % len(pairs)] for i in range(1000))]
print(json.dumps({"stacktraces": [{"frames": frames}],
                  "modules": [{"type": "pe_dotnet", "debug_id": sys.argv[1], "debug_file": "Ilmap.Corpus.Frames.pdb"}]}))
' "$id" >batch.json
cat >post.lua <<'LUA'
wrk.method = "POST"
local f = assert(io.open(os.getenv("BODY"), "rb"))
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = os.getenv("CTYPE")
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %.1f %.3f %.3f\n", summary.requests,
    e.connect + e.read + e.write + e.status + e.timeout, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
LUA

# serve NAME ARGS...: an instance on a free port; sets PORT and PID.
serve() {
  local name=$1
  shift
  start_in . "$name" "$ILMAP" serve --port 0 --search bin --cache-dir cache --max-concurrent 64 --max-connections 256 "$@"
  local pid=PID_$name port=PORT_$name
  PID=${!pid} PORT=${!port}
}
stop() { kill -TERM "$1"; wait "$1" 2>/dev/null || true; }
# balancer PORT_A PORT_B: nginx in front of both (keep-alive to them); sets PORT and NGINX_PID.
balancer() {
  PORT=$(free_port)
  start_nginx lb "$PORT" "
  access_log off;
  upstream ilmap { server 127.0.0.1:$1; server 127.0.0.1:$2; keepalive 32; }
  server {
    listen 127.0.0.1:$PORT;
    client_max_body_size 10m;
    location / {
      proxy_pass http://ilmap;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      proxy_next_upstream error timeout http_502 http_503 http_429 non_idempotent;
    }
  }"
}

# check URL: one request of each kind answers as it should.
check() {
  curl -sS -o got.txt --data-binary @trace.txt -H 'Content-Type: text/plain' "$1/symbolicate"
  cmp -s want.txt got.txt || { echo "serve_load.sh: $1 does not answer as ilmap symbolicate" >&2; exit 1; }
  local n
  n=$(curl -sS --data-binary @batch.json -H 'Content-Type: application/json' "$1/symbolicate" | grep -o '"status":"symbolicated"' | wc -l)
  # The same count from every configuration (some of the trace's offsets have no sequence point).
  [[ $n -gt 0 && ( -z ${BATCH_RESOLVED:-} || $n -eq $BATCH_RESOLVED ) ]] ||
    { echo "serve_load.sh: $1 resolved $n of the batch's 1,000 frames (${BATCH_RESOLVED:-} before)" >&2; exit 1; }
  BATCH_RESOLVED=$n
}
# run URL BODY TYPE: one wrk run; prints "requests errors req/s p50_ms p99_ms".
run() {
  BODY=$2 CTYPE=$3 wrk -t 2 -c "$CONNECTIONS" -d "${DURATION}s" -s post.lua "$1/symbolicate" | sed -n 's/^RESULT //p'
}

rows=()
measure() {  # LABEL URL
  local label=$1 url=$2 r
  check "$url"
  for kind in text batch; do
    if [[ $kind == text ]]; then r=$(run "$url" "$work/trace.txt" text/plain)
    else r=$(run "$url" "$work/batch.json" application/json); fi
    log "$label $kind: $r"
    read -r n err rps p50 p99 <<<"$r"
    if [[ $kind == text ]]; then fps=$(python3 -c "print(f'{$rps * 61:,.0f}')")
    else fps=$(python3 -c "print(f'{$rps * 1000:,.0f}')"); fi
    rows+=("| $label | $([[ $kind == text ]] && echo 'trace text, 61 frames' || echo 'batch, 1,000 frames') | $rps | $fps | $p50 | $p99 | $n | $err |")
  done
}

load_before=$(bench_load)
serve one --workers 1
measure "1 instance, --workers 1" "http://127.0.0.1:$PORT"
stop "$PID"
serve two --workers 2
measure "1 instance, --workers 2" "http://127.0.0.1:$PORT"
stop "$PID"
serve a --workers 1
pa=$PORT ida=$PID
serve b --workers 1
pb=$PORT idb=$PID
balancer "$pa" "$pb"
measure "2 instances behind nginx" "http://127.0.0.1:$PORT"
stop "$NGINX_PID"; stop "$ida"; stop "$idb"

soak_rows=()
if [[ $SOAK -gt 0 ]]; then
  serve soak --workers 2
  check "http://127.0.0.1:$PORT"
  log "soak: $SOAK s"
  BODY=$work/trace.txt CTYPE=text/plain wrk -t 2 -c "$CONNECTIONS" -d "${SOAK}s" -s post.lua "http://127.0.0.1:$PORT/symbolicate" >soak.out &
  wpid=$!
  t=0
  while kill -0 "$wpid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$PID/status")
    [[ $((t % 60)) -eq 0 ]] && soak_rows+=("| $t | $(python3 -c "print(f'{$rss / 1024:.1f}')") |")
    echo "$t $rss" >>rss.txt
    sleep 10
    t=$((t + 10))
  done
  wait "$wpid"
  read -r n err rps p50 p99 < <(sed -n 's/^RESULT //p' soak.out)
  soak_summary="Soak: $SOAK s, $CONNECTIONS connections, $n requests ($err errors), $rps req/s, p50 $p50 ms, p99 $p99 ms."
  first=$(awk '$1 >= 60 {print $2; exit}' rss.txt)
  [[ -n $first ]] || first=$(head -n 1 rss.txt | cut -d' ' -f2)
  last=$(tail -n 1 rss.txt | cut -d' ' -f2)
  max=$(sort -k2 -n rss.txt | tail -n 1 | cut -d' ' -f2)
  soak_rows+=("| $(tail -n 1 rss.txt | cut -d" " -f1) (last sample) | $(python3 -c "print(f'{$last / 1024:.1f}')") |")
  soak_summary+=" Resident memory after 60 s: $((first / 1024)) MiB; at the end: $((last / 1024)) MiB; highest: $((max / 1024)) MiB."
  stop "$PID"
fi
load_after=$(bench_load)

{
  bench_stamp "bench/serve_load.sh --build $(bench_rel "$BUILD") --duration $DURATION --connections $CONNECTIONS --soak $SOAK" "$load_before" "$load_after"
  echo "wrk $(wrk -v 2>&1 | head -n 1 | cut -d' ' -f2) with 2 threads on the same machine. Every status but 200 counts as an error. The batch's frames resolved: $BATCH_RESOLVED of 1,000"
  echo "(the others: frames of iterator and async methods, which the runtime printed with the kickoff method's token and"
  echo "an offset in its MoveNext; a batch frame is looked up in the method it names, as a Sentry frame is: \`missing_symbol\`)."
  echo
  echo "| servers | request | requests/s | frames/s | p50 ms | p99 ms | requests | errors |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  printf '%s\n' "${rows[@]}"
  if [[ $SOAK -gt 0 ]]; then
    echo
    echo "$soak_summary"
    echo
    echo "| seconds | resident MiB |"
    echo "| ---: | ---: |"
    printf '%s\n' "${soak_rows[@]}"
  fi
} >section.md
if [[ -n $WRITE ]]; then
  bench_write "$WRITE" serve-load section.md
  log "wrote $WRITE"
else
  cat section.md
fi
