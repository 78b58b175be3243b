#!/usr/bin/env bash
# scaleout.sh ILMAP CORPUS_DIR - `ilmap serve` scaled out behind nginx, on 127.0.0.1 and free ports:
#   a symbol server: nginx serving a store that `ilmap store add` wrote (the PDB and its cache);
#   two `ilmap serve` instances over a folder that holds the PE alone (its PDB only on the server);
#   nginx as their load balancer (an upstream with both, the next one tried on error or 502/503).
# 1. 160 requests of the runtime's recorded trace, 8 at once, through the balancer; one instance is
#    killed (SIGKILL) midway: every request answers 200 with the bytes `ilmap symbolicate` prints
#    for the same trace and symbol path, and both instances answered some before the kill.
# 2. The symbol server stops: a fresh instance answers with the frames unresolved (JSON frames
#    say why; the text comes back as it was), then, the server started again on its port and
#    --miss-ttl passed, the same instance resolves them, not restarted.
# Exit 0 pass, 1 fail, 77 skip (nginx, curl or the corpus absent).
set -uo pipefail
export LC_ALL=C
ILMAP=$(realpath "$1") CORPUS=$(realpath "$2")
command -v curl >/dev/null || { echo "SKIP: curl not found (install the Debian package curl)"; exit 77; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $NGINX ]] || { echo "SKIP: nginx not installed (scripts/install-deps.sh)"; exit 77; }
dll=$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.dll
[[ -f $dll && -f $CORPUS/traces/cs-frames.il-offsets.txt ]] || { echo "SKIP: corpus absent"; exit 77; }
. "$(dirname "$(realpath "$0")")/lib.sh"
serve_setup ilmap-scaleout
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {  # PORT PID: until something listens on PORT (or PID exits)
  local i
  for i in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# start_nginx NAME PORT HTTP_BODY: nginx in the foreground with its own prefix NAME/; sets NGINX_PID.
start_nginx() {
  local name=$1 port=$2 body=$3
  mkdir -p "$name/tmp"
  cat >"$name/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/$name/nginx.pid;
error_log $work/$name/error.log;
events { worker_connections 256; }
http {
  client_body_temp_path $work/$name/tmp/body;
  proxy_temp_path $work/$name/tmp/proxy;
  fastcgi_temp_path $work/$name/tmp/fastcgi;
  uwsgi_temp_path $work/$name/tmp/uwsgi;
  scgi_temp_path $work/$name/tmp/scgi;
  default_type application/octet-stream;
  $body
}
CONF
  "$NGINX" -p "$work/$name" -e "$work/$name/error.log" -c "$work/$name/nginx.conf" &
  NGINX_PID=$!
  pids+=("$NGINX_PID")
  wait_port "$port" "$NGINX_PID" || { echo "SKIP: nginx $name did not start: $(tail -n 3 "$name/error.log")"; exit 77; }
}

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
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
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

# --- 2. the symbol server goes away and comes back
before=$failures
kill "$sym_pid"; wait "$sym_pid" 2>/dev/null
start_serve c --symbol-path "srv*$work/dl-c*http://127.0.0.1:$sym_port" --cache-dir cache-c --miss-ttl 1
frames=$(grep -c 'Ilmap.Corpus.Frames.dll:token 0x' trace.txt)
code=$(curl -sS -o down.txt -D down.h -w '%{http_code}' --data-binary @trace.txt "$URL_c/symbolicate")
[[ $code == 200 ]] || fail "symbol server down: status $code"
cmp -s trace.txt down.txt || fail "symbol server down: the text came back changed"
curl -sS -o down.json --data-binary @trace.txt "$URL_c/symbolicate?json=1"
unresolved=$(grep -c '"module":"Ilmap.Corpus.Frames.dll".*"reason":"' down.json)
[[ $unresolved -eq $frames ]] || fail "symbol server down: $unresolved of $frames frames of the module say why they are unresolved: $(head -c 300 down.json)"
reason=$(grep -o '"reason":"[^"]*"' down.json | sort | uniq -c | sed 's/^ *//' | tr '\n' ' ')
start_nginx symbols "$sym_port" "$SYMBOLS"
sleep 1.1  # --miss-ttl 1
code=$(curl -sS -o up.txt -w '%{http_code}' --data-binary @trace.txt "$URL_c/symbolicate")
[[ $code == 200 ]] || fail "symbol server back: status $code"
cmp -s want.txt up.txt || fail "symbol server back: the answer differs from ilmap symbolicate's: $(diff want.txt up.txt | head -n 4)"
kill -0 "$PID_c" 2>/dev/null || fail "instance c is no longer running"
[[ $failures -eq $before ]] && echo "ok   symbol server down: $frames frames unresolved ($reason); back: resolved by the same instance"

[[ $failures -eq 0 ]] || exit 1
echo "all passed"
