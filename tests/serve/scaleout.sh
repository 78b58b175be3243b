#!/usr/bin/env bash
# scaleout.sh ILMAP CORPUS_DIR - `ilmap serve` scaled out behind nginx, on 127.0.0.1 and free ports:
#   a symbol server: nginx serving a store that `ilmap store add` wrote (the PDB and its cache);
#   two `ilmap serve` instances over a folder that holds the PE alone (its PDB only on the server);
#   nginx as their load balancer (an upstream with both, the next one tried on error, 502, 503 or
#   429).
# 1. 160 requests of the runtime's recorded trace, 8 at once, through the balancer; one instance is
#    killed (SIGKILL) midway: every request answers 200 with the bytes `ilmap symbolicate` prints
#    for the same trace and symbol path, and both instances answered some before the kill.
# 2. The symbol server stops and restarts under load: four clients send the trace to a fresh
#    instance (?json=1) one request after another, without pause, while it is down and after it
#    is back. Every request answers 200; while it is down the module's frames are unresolved,
#    each with its reason (the text form comes back as it was); once it is back (and --miss-ttl
#    passed) the same instance, not restarted, resolves them as `ilmap symbolicate --json` does,
#    and no client sees them unresolved again. /metrics counts the failed and the good downloads.
# 3. --request-timeout 1 with a symbol server that answers after 2 s (tests/cli/faultserver.py):
#    a text of two pieces (over 64 KiB) is answered 503 with Retry-After after its first piece
#    (the download and compile it started were finished and kept), and the retry is answered as
#    `ilmap symbolicate` answers.
# Exit 0 pass, 1 fail, 77 skip (nginx, curl or the corpus absent).
set -uo pipefail
export LC_ALL=C
ILMAP=$(realpath "$1") CORPUS=$(realpath "$2")
command -v curl >/dev/null || { echo "SKIP: curl not found (install the Debian package curl)"; exit 77; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $NGINX ]] || { echo "SKIP: nginx not installed (scripts/install-deps.sh)"; exit 77; }
dll=$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.dll
[[ -f $dll && -f $CORPUS/traces/cs-frames.il-offsets.txt ]] || { echo "SKIP: corpus absent"; exit 77; }
here=$(dirname "$(realpath "$0")")  # before serve_setup changes directory
. "$here/lib.sh"
serve_setup ilmap-scaleout
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# start_serve NAME ARGS...: `ilmap serve --port 0 --search bin ARGS`; sets PID_, URL_ and PORT_<NAME>.
start_serve() {
  local name=$1
  shift
  start_in . "$name" "$ILMAP" serve --port 0 --search "$work/bin" "$@"
}

# The store on the symbol server; the PE alone in bin/.
mkdir in bin
cp "$dll" "${dll%.dll}.pdb" in/
cp "$dll" bin/
"$ILMAP" store add www in >/dev/null || { echo "FAIL: ilmap store add"; exit 1; }
cp "$CORPUS/traces/cs-frames.il-offsets.txt" trace.txt
sym_port=$(free_port)
SYMBOLS="server { listen 127.0.0.1:$sym_port; root $work/www; access_log $work/symbols/access.log; }"
start_nginx symbols "$sym_port" "$SYMBOLS"
sym_pid=$NGINX_PID
sympath="srv*$work/dl-cli*http://127.0.0.1:$sym_port"
"$ILMAP" symbolicate --search bin --symbol-path "$sympath" --cache-dir cli-cache trace.txt >want.txt 2>cli.err
grep -q 'in /_/Frames/Scenarios.cs:line ' want.txt || { echo "FAIL: ilmap symbolicate resolved nothing: $(cat cli.err)"; exit 1; }

# --- 1. two instances behind the balancer; one killed midway
before=$failures
start_serve a --symbol-path "srv*$work/dl-a*http://127.0.0.1:$sym_port" --cache-dir cache-a
start_serve b --symbol-path "srv*$work/dl-b*http://127.0.0.1:$sym_port" --cache-dir cache-b
lb_port=$(free_port)
start_nginx lb "$lb_port" "
  log_format up '\$upstream_addr \$upstream_status \$status';
  upstream ilmap {
    server 127.0.0.1:$PORT_a max_fails=1 fail_timeout=30s;
    server 127.0.0.1:$PORT_b max_fails=1 fail_timeout=30s;
  }
  server {
    listen 127.0.0.1:$lb_port;
    access_log $work/lb/access.log up;
    client_max_body_size 10m;
    location / {
      proxy_pass http://ilmap;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      proxy_next_upstream error timeout http_502 http_503 http_429 non_idempotent;
      proxy_next_upstream_tries 2;
    }
  }"
LB=http://127.0.0.1:$lb_port
mkdir out
total=160
seq "$total" | xargs -P 8 -I{} sh -c \
  "curl -sS -o out/{}.body -w '%{http_code}\n' --data-binary @trace.txt -H 'Content-Type: text/plain' $LB/symbolicate >out/{}.code 2>out/{}.err" &
load=$!
for _ in $(seq 600); do
  [[ $(find out -name '*.code' -size +0 | wc -l) -ge 40 ]] && break
  sleep 0.05
done
answered_before=$(find out -name '*.code' -size +0 | wc -l)
kill -KILL "$PID_a"
wait "$load"
[[ $answered_before -ge 40 && $answered_before -lt $total ]] || fail "the kill came after $answered_before of $total answers, not midway"
codes=$(cat out/*.code | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')
[[ $codes == "$total 200 " ]] || fail "statuses through the balancer: $codes(want $total 200)"
same=0
for i in $(seq "$total"); do cmp -s want.txt "out/$i.body" && same=$((same + 1)); done
[[ $same -eq $total ]] || fail "$((total - same)) of $total answers differ from ilmap symbolicate's"
for p in "$PORT_a" "$PORT_b"; do
  grep -q "127.0.0.1:$p 200" lb/access.log || fail "instance on port $p answered nothing through the balancer"
done
retried=$(grep -c ', ' lb/access.log)
[[ $failures -eq $before ]] && echo "ok   $total requests through nginx, instance a killed after $answered_before answers: all 200, all as ilmap symbolicate ($retried retried on the other instance)"

# --- 2. the symbol server restarts under load
before=$failures
"$ILMAP" symbolicate --search bin --symbol-path "$sympath" --cache-dir cli-cache --json trace.txt >want.json 2>/dev/null
kill "$sym_pid"; wait "$sym_pid" 2>/dev/null
# Two workers: once one compiles the module's cache, the other's "not found" no longer stands
# (docs/serve.md, --miss-ttl), so no client sees the module unresolved after it saw it resolved.
start_serve c --symbol-path "srv*$work/dl-c*http://127.0.0.1:$sym_port" --cache-dir cache-c --miss-ttl 1 --workers 2
frames=$(grep -c 'Ilmap.Corpus.Frames.dll:token 0x' trace.txt)
code=$(curl -sS -o down.txt -w '%{http_code}' --data-binary @trace.txt "$URL_c/symbolicate")
[[ $code == 200 ]] || fail "symbol server down: status $code"
cmp -s trace.txt down.txt || fail "symbol server down: the text came back changed"
mkdir load2
client() {  # K: requests one after another until load2/stop exists; answers load2/K.N.json
  local n=0
  while [[ ! -e load2/stop ]]; do
    n=$((n + 1))
    curl -sS -o "load2/$1.$n.json" -w '%{http_code}\n' --data-binary @trace.txt "$URL_c/symbolicate?json=1" >>"load2/$1.codes" 2>>load2/errors
  done
}
answers() { find load2 -name '*.json' | wc -l; }
unresolved_in() { grep -c '"module":"Ilmap.Corpus.Frames.dll".*"reason":"' "$1"; }
clients=()
for k in 1 2 3 4; do client "$k" & clients+=($!); done
for _ in $(seq 600); do [[ $(answers) -ge 40 ]] && break; sleep 0.05; done
down_answers=$(answers)
start_nginx symbols "$sym_port" "$SYMBOLS"
sym_pid=$NGINX_PID
resolved_seen=
for _ in $(seq 600); do
  for f in $(find load2 -name '*.json' -newer symbols/nginx.pid); do
    [[ -s $f ]] && cmp -s want.json "$f" && { resolved_seen=$f; break; }
  done
  [[ -n $resolved_seen ]] && break
  sleep 0.05
done
[[ -n $resolved_seen ]] || fail "symbol server back: no answer resolved within 30 s"
n=$(answers)
for _ in $(seq 600); do [[ $(answers) -ge $((n + 40)) ]] && break; sleep 0.05; done
touch load2/stop
wait "${clients[@]}"
codes=$(cat load2/*.codes | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')
[[ $codes =~ ^[0-9]+\ 200\ $ ]] || fail "under the restart: statuses $codes(want 200 only; $(head -c 300 load2/errors))"
n_down=0 n_up=0
for k in 1 2 3 4; do
  up=
  for i in $(seq "$(wc -l <"load2/$k.codes")"); do
    f=load2/$k.$i.json
    if cmp -s want.json "$f"; then
      up=1 n_up=$((n_up + 1))
    elif [[ $(unresolved_in "$f") -eq $frames ]]; then
      n_down=$((n_down + 1))
      [[ -z $up ]] || fail "client $k: answer $i unresolved after one resolved"
    else
      fail "client $k: answer $i neither resolved as ilmap symbolicate --json nor all $frames frames unresolved: $(head -c 300 "$f")"
    fi
  done
done
[[ $n_down -ge 1 && $n_up -ge 1 ]] || fail "under the restart: $n_down answers unresolved, $n_up resolved (want some of each)"
reason=$(cat load2/1.1.json | grep -o '"reason":"[^"]*"' | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')
kill -0 "$PID_c" 2>/dev/null || fail "instance c is no longer running"
curl -sS -o metrics.txt "$URL_c/metrics"
metric() { grep -v '^#' metrics.txt | grep -F "$1 " | sed 's/.* //'; }
ok=$(metric 'ilmap_serve_downloads_total{result="ok"}') err=$(metric 'ilmap_serve_downloads_total{result="error"}')
[[ ${ok:-0} -ge 1 && ${err:-0} -ge 1 ]] || fail "metrics of c: downloads ok ${ok:-none}, failed ${err:-none} (want both counted)"
bytes=$(metric ilmap_serve_download_bytes_total)
# At least the smallest file of the store that answers (its cache beside the PDB).
least=$(find www -type f -name '*.ilmap' -printf '%s\n' | sort -n | head -n 1)
[[ ${bytes:-0} -ge ${least:-1} ]] || fail "metrics of c: ${bytes:-0} bytes downloaded, less than the store's cache of ${least:-?}"
[[ $failures -eq $before ]] && echo "ok   symbol server restarted under load: $n_down answers with the module's $frames frames unresolved ($reason), then $n_up resolved by the same instance; downloads ok $ok, failed $err, $bytes bytes"

# --- 3. --request-timeout with a symbol server that answers late
before=$failures
python3 "$here/../cli/faultserver.py" "$work/www" fault.port fault.log --lifetime 120 &
pids+=($!)
for _ in $(seq 600); do [[ -s fault.port ]] && break; sleep 0.05; done
fault_port=$(cat fault.port 2>/dev/null)
[[ -n $fault_port ]] || { echo "FAIL: the fault server did not start within 30 s"; exit 1; }
for _ in $(seq 12); do cat trace.txt; done >long.txt
[[ $(stat -c %s long.txt) -gt 65536 ]] || fail "long.txt is not over 64 KiB"
"$ILMAP" symbolicate --search bin --symbol-path "$sympath" --cache-dir cli-cache long.txt >want-long.txt 2>/dev/null
start_serve d --symbol-path "srv*$work/dl-d*http://127.0.0.1:$fault_port/late" --cache-dir cache-d --request-timeout 1
code=$(curl -sS -o late.out -D late.h -w '%{http_code}' --data-binary @long.txt "$URL_d/symbolicate")
[[ $code == 503 ]] || fail "--request-timeout 1, a server 2 s late: status $code, want 503"
grep -qi '^Retry-After: 1' late.h || fail "503 of --request-timeout: no Retry-After"
grep -q '"error":".*--request-timeout' late.out || fail "503 of --request-timeout: $(cat late.out)"
code=$(curl -sS -o late2.out -w '%{http_code}' --data-binary @long.txt "$URL_d/symbolicate")
[[ $code == 200 ]] || fail "the retry after the 503: status $code"
cmp -s want-long.txt late2.out || fail "the retry after the 503 differs from ilmap symbolicate"
grep -q '^late 200 ' fault.log || fail "the late server was not asked: $(cat fault.log)"
[[ $failures -eq $before ]] && echo "ok   --request-timeout 1, symbol server 2 s late: 503 with Retry-After, the retry answered as ilmap symbolicate"

[[ $failures -eq 0 ]] || exit 1
echo "all passed"
