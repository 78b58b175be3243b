# lib.sh - sourced by the scripts of tests/serve: a work folder for the test, and servers started
# in it, all gone at exit.
#   serve_setup NAME       makes the work folder ($work, under $TMPDIR) and enters it; at exit the
#                          processes in $pids are killed and the folder removed. The default cache
#                          directory points inside it, and $_NT_SYMBOL_PATH is unset.
#   start_in DIR NAME CMD...  runs CMD (an `ilmap ... serve --port 0 ...`) in DIR with its stderr in
#                          NAME.log until its first line says where it listens; sets PID_<NAME>,
#                          URL_<NAME> (http://127.0.0.1:PORT) and PORT_<NAME>; exits 1 when it
#                          does not start.
#   free_port              prints a free TCP port of 127.0.0.1
#   wait_port PORT PID     waits until something listens on PORT (1 when PID exits first)
#   start_nginx NAME PORT HTTP_BODY  nginx in the foreground with its own prefix NAME/ (config,
#                          logs, temp files) and HTTP_BODY inside its http block; sets
#                          NGINX_PID; exits 77 (skip) when it does not start.
serve_setup() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  pids=()
  trap serve_cleanup EXIT
  cd "$work" || exit 1
  export XDG_CACHE_HOME=$work/xdg HOME=$work/home
  unset _NT_SYMBOL_PATH
}
serve_cleanup() {
  local p
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
start_in() {
  local dir=$1 name=$2 i line
  shift 2
  (cd "$dir" && exec "$@") 2>"$name.log" &
  local pid=$!
  pids+=("$pid")
  for i in $(seq 100); do
    line=$(head -n 1 "$name.log" 2>/dev/null)
    if [[ $line =~ ^ilmap\ serve:\ listening\ on\ (http://127\.0\.0\.1:([0-9]+))$ ]]; then
      printf -v "PID_$name" '%s' "$pid"
      printf -v "URL_$name" '%s' "${BASH_REMATCH[1]}"
      printf -v "PORT_$name" '%s' "${BASH_REMATCH[2]}"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  echo "FAIL: server $name did not start:"; cat "$name.log"; exit 1
}

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
  local name=$1 port=$2 body=$3 nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
  mkdir -p "$name/tmp"
  cat >"$name/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $work/$name/nginx.pid;
error_log $work/$name/error.log;
events { worker_connections 1024; }
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
  "$nginx" -p "$work/$name" -e "$work/$name/error.log" -c "$work/$name/nginx.conf" &
  NGINX_PID=$!
  pids+=("$NGINX_PID")
  wait_port "$port" "$NGINX_PID" || { echo "SKIP: nginx $name did not start: $(tail -n 3 "$name/error.log")"; exit 77; }
}
