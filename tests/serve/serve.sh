#!/usr/bin/env bash
# serve.sh ILMAP CORPUS_DIR - `ilmap serve` over HTTP, checked with curl against the CLI: the
# server runs on 127.0.0.1 and a free port (--port 0, read from its first stderr line) in a
# temporary directory, over corpus/out/cs-frames and the CoreCLR trace recorded with
# ShowILOffsets. Every check compares a result (bytes, status, header); the first failure
# prints what differed and the test exits 1. Exit 77 only without curl.
set -uo pipefail
export LC_ALL=C
ILMAP=$(realpath "$1") CORPUS=$(realpath "$2")
command -v curl >/dev/null || { echo "SKIP: curl not found (install the Debian package curl)"; exit 77; }
. "$(dirname "$(realpath "$0")")/lib.sh"
serve_setup ilmap-serve
mkdir bin srv
cp "$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.dll" "$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.pdb" bin/
cp "$CORPUS/traces/cs-frames.il-offsets.txt" trace.txt
echo 's3cret-token' >token

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check_eq() {  # check_eq WHAT WANT GOT
  [[ $2 == "$3" ]] || fail "$1: want '$2', got '$3'"
}

# start_server NAME ARGS...: starts `ilmap serve --port 0 ARGS` in srv/ (its stderr in NAME.log);
# sets PID_<NAME> and URL_<NAME>.
start_server() {
  local name=$1
  shift
  start_in srv "$name" "$ILMAP" serve --port 0 --search ../bin --cache-dir ../cache "$@"
}
# req OUT ARGS...: curl, body in OUT, headers in OUT.h; prints the status.
req() {
  local out=$1
  shift
  curl -sS -o "$out" -D "$out.h" -w '%{http_code}' "$@"
}
is_json_error() { grep -qE '^\{"error":".+"\}$' "$1" || fail "$2: body is not a JSON error: $(head -c 200 "$1")"; }
header() {  # header FILE NAME: the value of a response header (first one)
  sed -n "s/^$2: \\(.*\\)\\r\$/\\1/Ip" "$1.h" | head -n 1
}

touch marker
sleep 1  # file times have a resolution: what the server writes must be newer than the marker

# --- what the CLI prints, the reference -------------------------------------------------------
"$ILMAP" symbolicate --search bin --cache-dir cli-cache <trace.txt >want.txt 2>/dev/null
"$ILMAP" symbolicate --search bin --cache-dir cli-cache --columns --urls <trace.txt >want-columns.txt 2>/dev/null
"$ILMAP" symbolicate --search bin --cache-dir cli-cache --json <trace.txt >want-json.txt 2>/dev/null
grep -q 'Scenarios.cs:line 37' want.txt || fail "the CLI reference did not resolve the trace"

start_server A --token-file ../token --max-body 64KiB
A=$URL_A
auth=(-H 'Authorization: Bearer s3cret-token')

# --- health ---------------------------------------------------------------------------------------
check_eq "GET /healthz status" 200 "$(req h.out "$A/healthz")"
check_eq "GET /healthz body" ok "$(cat h.out)"
check_eq "GET /readyz status" 200 "$(req r.out "$A/readyz")"

# --- POST /symbolicate equals `ilmap symbolicate`, byte for byte ---------------------------------
check_eq "POST /symbolicate status" 200 "$(req s.out "${auth[@]}" -H 'Content-Type: text/plain' --data-binary @trace.txt "$A/symbolicate")"
cmp -s want.txt s.out || { fail "POST /symbolicate differs from ilmap symbolicate:"; diff want.txt s.out | head -10; }
check_eq "X-Ilmap-Frames" 61 "$(header s.out X-Ilmap-Frames)"
check_eq "X-Ilmap-Resolved" 47 "$(header s.out X-Ilmap-Resolved)"
check_eq "X-Ilmap-Unresolved" 14 "$(header s.out X-Ilmap-Unresolved)"
# curl's default type for --data-binary is taken as text too
check_eq "POST without text/plain" 200 "$(req s2.out "${auth[@]}" --data-binary @trace.txt "$A/symbolicate")"
cmp -s want.txt s2.out || fail "POST /symbolicate with curl's default type differs"
check_eq "POST ?columns=1&urls=1" 200 "$(req s3.out "${auth[@]}" -H 'Content-Type: text/plain; charset=utf-8' --data-binary @trace.txt "$A/symbolicate?columns=1&urls=1")"
cmp -s want-columns.txt s3.out || fail "POST /symbolicate?columns=1&urls=1 differs from symbolicate --columns --urls"

check_eq "POST ?json=1" 200 "$(req s4.out "${auth[@]}" -H 'Content-Type: text/plain' --data-binary @trace.txt "$A/symbolicate?json=1")"
cmp -s want-json.txt s4.out || fail "POST /symbolicate?json=1 differs from symbolicate --json"
check_eq "POST ?json=1 Content-Type" application/x-ndjson "$(header s4.out Content-Type)"

# --- 8 requests at once: the same answer each time -------------------------------------------------
for i in 1 2 3 4 5 6 7 8; do
  curl -sS -o "par$i.out" -w '%{http_code}\n' "${auth[@]}" -H 'Content-Type: text/plain' --data-binary @trace.txt "$A/symbolicate" >"par$i.code" &
done
wait_curls() { local p; for p in $(jobs -p); do [[ " ${pids[*]} " == *" $p "* ]] || wait "$p"; done; }
wait_curls
for i in 1 2 3 4 5 6 7 8; do
  check_eq "parallel request $i status" 200 "$(cat "par$i.code")"
  cmp -s want.txt "par$i.out" || fail "parallel request $i differs from ilmap symbolicate"
done

# --- GET /lookup/<debug_id>/<token>/<il_offset> equals `ilmap lookup --json` ---------------------
id=$("$ILMAP" info bin/Ilmap.Corpus.Frames.pdb | sed -n 's/^debug_id: *//p')
[[ $id =~ ^[0-9a-f-]{45}$ ]] || fail "no debug id from ilmap info: '$id'"
for q in "0x600000a 7" "0x6000014 9" "0x6000013 0x5" "19 0" "0x60000ff 0"; do
  set -- $q
  "$ILMAP" lookup --json --cache-dir cli-cache bin/Ilmap.Corpus.Frames.dll "$1" "$2" >want-lookup.txt 2>/dev/null
  check_eq "GET /lookup/ID/$1/$2 status" 200 "$(req l.out "${auth[@]}" "$A/lookup/$id/$1/$2")"
  cmp -s want-lookup.txt l.out || fail "GET /lookup/ID/$1/$2: '$(cat l.out)', lookup --json: '$(cat want-lookup.txt)'"
  check_eq "GET /lookup/ID/$1/$2 Content-Type" application/json "$(header l.out Content-Type)"
done
grep -q '"file":null' want-lookup.txt || fail "the last lookup should have no answer"
check_eq "debug id without dashes" 200 "$(req l.out "${auth[@]}" "$A/lookup/${id//-/}/0x600000a/7")"
grep -q '"line":37,' l.out || fail "debug id without dashes: $(cat l.out)"
check_eq "lookup without token" 401 "$(req l.out "$A/lookup/$id/0x600000a/7")"
for bad in "../../etc/passwd" "..%2F..%2Fetc/0x600000a/7" "$id/0x600000a" "$id/0x600000a/7/8" "$id//7" \
           "zz/0x600000a/7" "..-..-../1/1" "$id%00/1/1" "$id/0x0200000a/7" "$id/0x600000a/-2" "$id/0x600000a/0x1ffffffff"; do
  check_eq "GET /lookup/$bad" 400 "$(req l.out "${auth[@]}" --path-as-is "$A/lookup/$bad")"
  is_json_error l.out "GET /lookup/$bad"
done
check_eq "unknown debug id" 404 "$(req l.out "${auth[@]}" "$A/lookup/00000000-0000-0000-0000-000000000000-00000000/1/0")"
grep -q 'module not found' l.out || fail "unknown debug id: $(cat l.out)"

# --- POST /symbolicate with a Sentry event (application/json) equals `ilmap symbolicate` -----------
printf '{"event_id":"0123456789abcdef0123456789abcdef","exception":{"values":[{"type":"ScenarioException","stacktrace":{"frames":[%s,%s]}}]},"debug_meta":{"images":[{"type":"pe_dotnet","debug_id":"%s","debug_file":"Ilmap.Corpus.Frames.pdb"}]}}\n' \
  '{"function":"Fail","function_id":"0xa","instruction_addr":"0x7","addr_mode":"rel:0"}' \
  '{"function":"Level2","function_id":"0x14","instruction_addr":"0x9","addr_mode":"rel:0"}' "$id" >event.json
"$ILMAP" symbolicate --search bin --cache-dir cli-cache event.json >want-event.json 2>/dev/null
grep -q '"lineno":37' want-event.json || fail "the CLI did not resolve the Sentry event: $(cat want-event.json)"
check_eq "POST /symbolicate (Sentry event)" 200 "$(req ev.out "${auth[@]}" -H 'Content-Type: application/json' --data-binary @event.json "$A/symbolicate")"
cmp -s want-event.json ev.out || fail "Sentry event: '$(cat ev.out)', symbolicate: '$(cat want-event.json)'"
check_eq "Sentry event: Content-Type" application/json "$(header ev.out Content-Type)"
check_eq "Sentry event: X-Ilmap-Resolved" 2 "$(header ev.out X-Ilmap-Resolved)"
# Sent without a JSON type (curl --data-binary's form type, or none), it is read as
# `ilmap symbolicate` reads its input: by its first line.
check_eq "Sentry event as curl's default type" 200 "$(req ev.out "${auth[@]}" --data-binary @event.json "$A/symbolicate")"
cmp -s want-event.json ev.out || fail "Sentry event as curl's default type: '$(cat ev.out)'"
check_eq "Sentry event as curl's default type: X-Ilmap-Resolved" 2 "$(header ev.out X-Ilmap-Resolved)"
check_eq "Sentry event without Content-Type" 200 "$(req ev.out "${auth[@]}" -H 'Content-Type:' --data-binary @event.json "$A/symbolicate")"
cmp -s want-event.json ev.out || fail "Sentry event without Content-Type: '$(cat ev.out)'"
check_eq "not a Sentry event as JSON" 400 "$(req ev.out "${auth[@]}" -H 'Content-Type: application/json' --data-binary @trace.txt "$A/symbolicate")"
grep -qE '^\{"error":"the body is not a Sentry event' ev.out || fail "not a Sentry event: $(cat ev.out)"

# --- POST /symbolicate with a batch request (symbolicator's shape) ------------------------------
# The resolved frames carry what the CLI wrote into the same frames of the Sentry event above;
# each frame and module says what became of it.
printf '{"stacktraces":[{"frames":[%s,%s]},{"frames":[%s,%s,%s,%s]}],"modules":[%s,%s,%s,%s]}\n' \
  '{"function_id":"0xa","instruction_addr":"0x7","addr_mode":"rel:0"}' \
  '{"function_id":"0x14","instruction_addr":"0x9","addr_mode":"rel:0","lineno":1}' \
  '{"function_id":"0xa","instruction_addr":"0x7","addr_mode":"rel:1"}' \
  '{"function_id":"zz","instruction_addr":"0x7","addr_mode":"rel:0"}' \
  '{"function_id":"0xa","instruction_addr":"0x7","addr_mode":"rel:2"}' \
  '{"function_id":"0x7fffff","instruction_addr":"0x0","addr_mode":"rel:0"}' \
  "{\"type\":\"pe_dotnet\",\"debug_id\":\"$id\",\"debug_file\":\"Ilmap.Corpus.Frames.pdb\"}" \
  '{"type":"pe_dotnet","debug_id":"00000000-0000-0000-0000-000000000000-00000000","debug_file":"Gone.pdb"}' \
  '{"type":"macho"}' '{"type":"pe_dotnet","debug_id":"00000000-0000-0000-0000-000000000000-00000001"}' >batch.json
check_eq "POST /symbolicate (batch)" 200 "$(req b.out "${auth[@]}" -H 'Content-Type: application/json' --data-binary @batch.json "$A/symbolicate")"
check_eq "batch: Content-Type" application/json "$(header b.out Content-Type)"
check_eq "batch: X-Ilmap-Resolved" 2 "$(header b.out X-Ilmap-Resolved)"
python3 - b.out want-event.json <<'PY' || fail "batch answer: $(cat b.out)"
import json, sys
got = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))["exception"]["values"][0]["stacktrace"]["frames"]
assert got["status"] == "completed", got["status"]
a, b = got["stacktraces"][0]["frames"], got["stacktraces"][1]["frames"]
for f, w in zip(a, want):  # the Sentry event's frames, resolved by the CLI (lineno overwritten)
    assert f["status"] == "symbolicated", f
    for k in ("abs_path", "filename", "lineno", "colno"):
        assert f.get(k) == w.get(k), (k, f.get(k), w.get(k))
assert [f["status"] for f in b] == ["missing", "malformed", "unknown_image", "missing_symbol"], b
assert "lineno" not in b[0] and b[1]["function_id"] == "zz"
assert [m["status"] for m in got["modules"]] == ["found", "missing", "malformed", "unused"], got["modules"]
PY
for bad in '[]' '{"stacktraces":[]}' '{"stacktraces":{},"modules":[]}' '{"stacktraces":[1],"modules":[]}' '{"stacktraces":[{"frames":[]}],"modules":[] '; do
  check_eq "batch request $bad" 400 "$(req b.out "${auth[@]}" -H 'Content-Type: application/json' --data-binary "$bad" "$A/symbolicate")"
  is_json_error b.out "batch request $bad"
done

# --- errors: status, JSON body, headers -----------------------------------------------------------
check_eq "no token" 401 "$(req e.out -H 'Content-Type: text/plain' --data-binary @trace.txt "$A/symbolicate")"
is_json_error e.out "no token"
check_eq "no token: WWW-Authenticate" 'Bearer realm="ilmap"' "$(header e.out WWW-Authenticate)"
check_eq "wrong token" 401 "$(req e.out -H 'Authorization: Bearer s3cret-tokeN' --data-binary @trace.txt "$A/symbolicate")"
check_eq "token of another scheme" 401 "$(req e.out -H 'Authorization: Basic czNjcmV0LXRva2Vu' --data-binary @trace.txt "$A/symbolicate")"
check_eq "lower-case scheme" 200 "$(req e.out -H 'Authorization: bearer s3cret-token' --data-binary @trace.txt "$A/symbolicate")"
check_eq "unknown path" 404 "$(req e.out "${auth[@]}" "$A/nope")"
is_json_error e.out "unknown path"
check_eq "wrong method" 405 "$(req e.out "${auth[@]}" "$A/symbolicate")"
is_json_error e.out "wrong method"
check_eq "wrong method: Allow" POST "$(header e.out Allow)"
check_eq "POST /healthz" 405 "$(req e.out -X POST "$A/healthz")"
check_eq "POST /healthz: Allow" 'GET, HEAD' "$(header e.out Allow)"
check_eq "content type" 415 "$(req e.out "${auth[@]}" -H 'Content-Type: image/png' --data-binary @trace.txt "$A/symbolicate")"
is_json_error e.out "content type"
head -c 65537 /dev/zero | tr '\0' a >big.txt
check_eq "body over --max-body (Content-Length)" 413 "$(req e.out "${auth[@]}" -H 'Content-Type: text/plain' -H 'Expect: 100-continue' --data-binary @big.txt "$A/symbolicate")"
is_json_error e.out "413 (Content-Length)"
check_eq "body over --max-body (chunked)" 413 "$(req e.out "${auth[@]}" -H 'Content-Type: text/plain' -H 'Expect:' -X POST -T - "$A/symbolicate" <big.txt)"
is_json_error e.out "413 (chunked)"
head -c 65536 /dev/zero | tr '\0' a >fits.txt
check_eq "body of exactly --max-body" 200 "$(req e.out "${auth[@]}" -H 'Content-Type: text/plain' --data-binary @fits.txt "$A/symbolicate")"
cmp -s fits.txt e.out || fail "a body of exactly --max-body did not come back unchanged"
# A body with another method is read and dropped; past --max-body it is refused as any other.
check_eq "GET /healthz with a small body" 200 "$(req h.out -X GET -H 'Expect:' --data-binary @fits.txt "$A/healthz")"
check_eq "GET /healthz with a small body: answer" ok "$(cat h.out)"
check_eq "GET /healthz with a body over --max-body" 413 "$(req h.out -X GET -H 'Expect:' -T - "$A/healthz" <big.txt)"
check_eq "healthz needs no token, server still up" 200 "$(req h.out "$A/healthz")"

# --- GET /metrics: Prometheus text, counters by endpoint and status, frames by result ------------
check_eq "metrics without token" 401 "$(req m.out "$A/metrics")"
check_eq "GET /metrics" 200 "$(req m.out "${auth[@]}" "$A/metrics")"
check_eq "metrics: Content-Type" 'text/plain; version=0.0.4; charset=utf-8' "$(header m.out Content-Type)"
bad_lines=$(grep -vE '^# (HELP|TYPE) ' m.out | grep -vE '^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9]+(\.[0-9]+)?$')
[[ -z $bad_lines ]] || fail "metrics lines not in the text format: $bad_lines"
metric() { grep -v '^#' m.out | grep -F "$1 " | sed 's/.* //'; }
check_eq "metrics: 404 of /nope" 1 "$(metric 'ilmap_serve_requests_total{endpoint="other",status="404"}')"
check_eq "metrics: 400 of /lookup" 11 "$(metric 'ilmap_serve_requests_total{endpoint="lookup",status="400"}')"
n=$(metric 'ilmap_serve_requests_total{endpoint="symbolicate",status="200"}')
[[ ${n:-0} -ge 12 ]] || fail "metrics: symbolicate 200 counted ${n:-0} times, want at least 12"
n=$(metric 'ilmap_serve_frames_resolved_total')
[[ ${n:-0} -ge $((47 * 12)) ]] || fail "metrics: ${n:-0} frames resolved, want at least $((47 * 12))"
n=$(metric 'ilmap_serve_frames_unresolved_total{reason="module not found"}')
[[ ${n:-0} -ge $((14 * 12)) ]] || fail "metrics: ${n:-0} frames of modules not found, want at least $((14 * 12))"

# --- start-up errors: a port in use (exit 2), a bad address (exit 1) -------------------------------
(cd srv && timeout 10 "$ILMAP" serve --listen "127.0.0.1:${A##*:}" --search ../bin --cache-dir ../cache 2>../busy.log)
check_eq "serve on a port in use: exit" 2 "$?"
grep -q "^ilmap: error: cannot listen on 127.0.0.1:${A##*:}" busy.log || fail "port in use: $(cat busy.log)"
(cd srv && timeout 10 "$ILMAP" serve --listen 127.0.0.1:65536 --search ../bin --cache-dir ../cache 2>../busy.log)
check_eq "serve --listen with a bad port: exit" 1 "$?"

# --- access log: one line per request, key=value fields --------------------------------------------
grep -qE '^ilmap serve: access method=POST path=/symbolicate status=200 bytes=[0-9]+ ms=[0-9]+\.[0-9] end=ok$' A.log ||
  fail "no access line for POST /symbolicate in A.log"
grep -qE '^ilmap serve: access method=GET path=/nope status=404 bytes=[0-9]+ ms=[0-9.]+ end=ok$' A.log ||
  fail "no access line for GET /nope"

# --- --max-connections 1 and --timeout 3: an idle connection holds the only slot (the next one
# waits, not served), until the server closes it for idleness ---------------------------------------
start_server C --max-connections 1 --timeout 3
C=$URL_C
exec 3<>"/dev/tcp/127.0.0.1/${C##*:}"  # connected, sends nothing (a slow client)
sleep 0.3
check_eq "over --max-connections" 000 "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$C/healthz")"
sleep 2.5  # past --timeout: the server closes the idle connection
check_eq "after the idle connection timed out" 200 "$(req h.out --max-time 5 "$C/healthz")"
exec 3>&-
grep -qE '^ilmap serve: access method=GET path=/healthz status=200 ' C.log || fail "C.log has no access line for /healthz"
kill -TERM "$PID_C"
wait "$PID_C"
check_eq "C exit status after SIGTERM" 0 "$?"

# --- --workers 2 on an empty cache directory: 8 requests at once, the module compiled once --------
start_in srv E "$ILMAP" serve --port 0 --search ../bin --cache-dir ../cache-e --workers 2 --max-frames 61
E=$URL_E
for i in 1 2 3 4 5 6 7 8; do
  curl -sS -o "w$i.out" -w '%{http_code}\n' -H 'Content-Type: text/plain' --data-binary @trace.txt "$E/symbolicate" >"w$i.code" &
done
wait_curls
for i in 1 2 3 4 5 6 7 8; do
  check_eq "--workers 2: request $i status" 200 "$(cat "w$i.code")"
  cmp -s want.txt "w$i.out" || fail "--workers 2: request $i differs from ilmap symbolicate"
done
check_eq "GET /metrics of E" 200 "$(req m.out "$E/metrics")"
# One module of the trace is in the search set: compiled by one worker, found ready by the other
# (which waited for it, when both took a request at once).
check_eq "--workers 2: caches compiled" 1 "$(metric ilmap_serve_cache_compiled_total)"
reused=$(metric ilmap_serve_cache_reused_total)
[[ $reused == 0 || $reused == 1 ]] || fail "--workers 2: caches reused $reused, want 0 or 1"
check_eq "--workers 2: open caches" $((reused + 1)) "$(metric ilmap_serve_open_caches)"
check_eq "--workers 2: workers" 2 "$(metric ilmap_serve_workers)"
check_eq "--workers 2: cache files" 1 "$(find cache-e -name '*.ilmap' | wc -l)"
n=$(metric 'ilmap_serve_request_duration_seconds_bucket{endpoint="symbolicate",le="+Inf"}')
check_eq "latency histogram: +Inf bucket" 8 "$n"
# --max-frames 61: the trace (61 frames) is answered, the trace twice is not
cat trace.txt trace.txt >trace2.txt
check_eq "--max-frames 61: 122 frames" 413 "$(req mf.out -H 'Content-Type: text/plain' --data-binary @trace2.txt "$E/symbolicate")"
is_json_error mf.out "413 of --max-frames"
grep -q 'more than 61 frames' mf.out || fail "413 of --max-frames: $(cat mf.out)"
kill -TERM "$PID_E"
wait "$PID_E"

# --- source context: ?context=N with --source-root, as symbolicate --context N; off by default ---
"$ILMAP" symbolicate --search bin --cache-dir cli-cache --context 2 --source-root "/_/=$CORPUS/src" <trace.txt >want-context.txt 2>/dev/null
grep -q '> 37 |' want-context.txt || fail "the CLI printed no source context: $(head -c 300 want-context.txt)"
"$ILMAP" symbolicate --search bin --cache-dir cli-cache --source-root "/_/=$CORPUS/src" event.json >want-event-context.json 2>/dev/null
grep -q '"context_line":' want-event-context.json || fail "the CLI gave the Sentry event no context: $(cat want-event-context.json)"
start_in srv F "$ILMAP" serve --port 0 --search ../bin --cache-dir ../cache-f --source-root "/_/=$CORPUS/src"
F=$URL_F
check_eq "POST ?context=2" 200 "$(req ctx.out --data-binary @trace.txt "$F/symbolicate?context=2")"
cmp -s want-context.txt ctx.out || { fail "POST ?context=2 differs from symbolicate --context 2:"; diff want-context.txt ctx.out | head -6; }
# Why frames got no context, as symbolicate's summary says it (docs/serve.md): the trace's #line
# frames, one in a file without a checksum, one past the end of Remapped.cs.
check_eq "X-Ilmap-No-Context" "no_checksum=1, line_beyond_end=1" "$(header ctx.out X-Ilmap-No-Context)"
check_eq "?context=2&json=1: context_missing" "line_beyond_end no_checksum" \
  "$(req ctxj.out --data-binary @trace.txt "$F/symbolicate?context=2&json=1" >/dev/null; jq -r 'select(.context_missing) | .context_missing' ctxj.out | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "Sentry event with --source-root" 200 "$(req evc.out -H 'Content-Type: application/json' --data-binary @event.json "$F/symbolicate")"
cmp -s want-event-context.json evc.out || fail "Sentry event with context: '$(head -c 300 evc.out)'"
check_eq "Sentry event: every frame had context, no X-Ilmap-No-Context" "" "$(header evc.out X-Ilmap-No-Context)"
check_eq "?context=abc" 400 "$(req ctx.out --data-binary @trace.txt "$F/symbolicate?context=abc")"
grep -q 'not a number of lines from 0 to 100' ctx.out || fail "?context=abc: $(cat ctx.out)"
check_eq "?context=101" 400 "$(req ctx.out --data-binary @trace.txt "$F/symbolicate?context=101")"
kill -TERM "$PID_F"
wait "$PID_F"
# A server without --source-context returns no source text
check_eq "?context=2 without --source-context" 400 "$(req ctx.out "${auth[@]}" --data-binary @trace.txt "$A/symbolicate?context=2")"
grep -q 'does not return source text' ctx.out || fail "?context without --source-context: $(cat ctx.out)"
req ev2.out "${auth[@]}" -H 'Content-Type: application/json' --data-binary @event.json "$A/symbolicate" >/dev/null
grep -q '"lineno":37' ev2.out || fail "Sentry event again: $(cat ev2.out)"
grep -q 'context_line' ev2.out && fail "a Sentry event got source text from a server without --source-context"

# --- --max-concurrent 1: a second request while one is in flight gets 429; SIGTERM drains --------
# A request that stays in flight for 2 seconds and more: its module's PE alone is in pe/, its PDB
# on a symbol server (tests/cli/faultserver.py over a store) that answers each request 2 s late.
# (A request counts in flight only once it has arrived whole: a slowly sent body would not do.)
mkdir pe store-in
cp bin/Ilmap.Corpus.Frames.dll pe/
cp bin/Ilmap.Corpus.Frames.dll bin/Ilmap.Corpus.Frames.pdb store-in/
"$ILMAP" store add store store-in >/dev/null || fail "store add for the late symbol server"
. "$(dirname "$(realpath "$0")")/../cli/faultserver.sh"
start_fault_server "$work/store" 120
trap 'kill $FAULT_PID 2>/dev/null; wait $FAULT_PID 2>/dev/null; serve_cleanup' EXIT
start_in srv B "$ILMAP" serve --port 0 --search ../pe --cache-dir ../cache-b --max-concurrent 1 --timeout 10 \
  --symbol-path "srv*$work/dl-b*$FAULT_URL/late"
B=$URL_B
curl -sS -o slow.out -w '%{http_code}' -H 'Content-Type: text/plain' --data-binary @trace.txt "$B/symbolicate" >slow.code &
slow=$!
sleep 0.7
check_eq "over --max-concurrent" 429 "$(req e.out -H 'Content-Type: text/plain' --data-binary @trace.txt "$B/symbolicate")"
is_json_error e.out "429"
check_eq "429: Retry-After" 1 "$(header e.out Retry-After)"
check_eq "healthz while busy" 200 "$(req h.out "$B/healthz")"
kill -TERM "$PID_B"
wait "$slow"
check_eq "request in flight at SIGTERM" 200 "$(cat slow.code)"
grep -q '^late 200 ' "$FAULT_LOG" || fail "the late symbol server was not asked: $(cat "$FAULT_LOG")"
cmp -s want.txt slow.out || fail "the request in flight at SIGTERM was not answered in full"
wait "$PID_B"
check_eq "exit status after SIGTERM" 0 "$?"
port_b=${B##*:}
if (exec 3<>"/dev/tcp/127.0.0.1/$port_b") 2>/dev/null; then fail "port $port_b still accepts after SIGTERM"; fi
grep -q '^ilmap serve: stopped$' B.log || fail "B.log does not end with 'stopped'"

kill -TERM "$PID_A"
wait "$PID_A"
check_eq "A exit status after SIGTERM" 0 "$?"

# --- options from a configuration file (ilmap --config FILE serve) --------------------------------
printf '[serve]\nport = 0\nsearch = ["../bin"]\ncache-dir = "../cache"\nmax-body = "1KiB"\nmiss-ttl = 5\n' >serve.toml
start_in srv D "$ILMAP" --config ../serve.toml serve
D=$URL_D
check_eq "--config: port 0 and max-body 1KiB from the file" 413 "$(req d.out --data-binary @trace.txt "$D/symbolicate")"
head -c 900 trace.txt >small.txt
check_eq "--config: a body under the file's max-body" 200 "$(req d2.out --data-binary @small.txt "$D/symbolicate")"
kill -TERM "$PID_D"; wait "$PID_D"
# --config written after the command, as users write it, is the same option.
start_in srv G "$ILMAP" serve --config ../serve.toml
check_eq "serve --config FILE: max-body 1KiB from the file" 413 "$(req g.out --data-binary @trace.txt "$URL_G/symbolicate")"
kill -TERM "$PID_G"; wait "$PID_G"
start_in srv H "$ILMAP" serve --config=../serve.toml --max-body 8KiB
check_eq "serve --config=FILE --max-body 8KiB: the command line wins" 200 "$(req h2.out --data-binary @trace.txt "$URL_H/symbolicate")"
kill -TERM "$PID_H"; wait "$PID_H"
# A cache directory that cannot be written is refused at start, with the system's reason (the
# test runs as root in CI, for whom permissions do not stop a write: a file in the path does).
: >notadir
"$ILMAP" serve --port 0 --search bin --cache-dir notadir/caches 2>nd.err
check_eq "--cache-dir under a file: exit" 2 "$?"
grep -q 'cache-dir: cannot create directory notadir/caches: Not a directory' nd.err || fail "--cache-dir under a file: $(cat nd.err)"
printf '[serve]\nno-such-option = 1\n' >bad.toml
"$ILMAP" --config bad.toml serve --port 0 2>bad.err
check_eq "--config with an option serve does not have: exit" 1 "$?"
grep -q 'no-such-option' bad.err || fail "--config: the error does not name the option: $(cat bad.err)"

# --- the servers wrote in their cache directory only ------------------------------------------------
written=$(find . -newer marker -type f ! -path './cache/*' ! -path './cli-cache/*' ! -path './cache-e/*' ! -path './cache-f/*' ! -path './cache-b/*' ! -path './dl-b/*' ! -path './store/*' ! -path './store-in/*' ! -path './pe/*' ! -path './faultserver/*' ! -name '*.out' ! -name '*.h' \
  ! -name '*.code' ! -name '*.log' ! -name 'want*' ! -name 'event.json' ! -name 'batch.json' ! -name 'big.txt' ! -name 'fits.txt' \
  ! -name '*.toml' ! -name 'small.txt' ! -name 'bad.err' ! -name 'notadir' ! -name 'nd.err' ! -name 'trace2.txt' | sort)
[[ -z $written ]] || fail "files written outside the cache directory: $written"
[[ -n $(find cache -name '*.ilmap') ]] || fail "no cache compiled into --cache-dir"
[[ ! -e xdg && ! -e home ]] || fail "the default cache directory was created"

if [[ $failures -ne 0 ]]; then
  echo "--- A.log"; tail -n 20 A.log; echo "--- B.log"; tail -n 20 B.log
  echo "serve.sh: $failures checks failed"
  exit 1
fi
echo "serve.sh: all checks passed"
