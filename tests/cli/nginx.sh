# nginx.sh - sourced by cases that need a real HTTP server: `start_nginx WWW` starts Debian's
# nginx in the foreground on 127.0.0.1 and a free port, with its own prefix, config and logs in
# ./nginx, serving WWW at /, always 500 at /fail/, WWW at 100 bytes/s at /slow/, a 302 to / from
# /moved/, a 302 to itself at /loop/; sets $URL and
# $NGINX_LOG (the access log: "URI STATUS SymbolChecksum-header"). The server is killed on exit.
# Exits 77 (skip) when nginx is not installed or does not start.
# With NGINX_TLS=DIR (made by make_test_ca DIR), the same site is also served over TLS on a
# second port with DIR's certificate for localhost and 127.0.0.1: $TLS_URL (https://localhost:PORT;
# a name, since libcurl's Schannel matches the host against DNS names only).
start_nginx() {
  local www=$1 nginx port try
  nginx=$(command -v nginx || echo /usr/sbin/nginx)
  [[ -x $nginx ]] || { echo "nginx not installed (scripts/install-deps.sh)"; exit 77; }
  command -v python3 >/dev/null || { echo "python3 not found (picks a free port)"; exit 77; }
  mkdir -p nginx/tmp
  NGINX_LOG=$PWD/nginx/access.log
  for try in 1 2 3 4 5; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    local tls_port="" tls_listen=""
    if [[ -n ${NGINX_TLS:-} ]]; then
      tls_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
      tls_listen="listen 127.0.0.1:$tls_port ssl; ssl_certificate $NGINX_TLS/server.pem; ssl_certificate_key $NGINX_TLS/server.key;"
    fi
    cat >nginx/nginx.conf <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $PWD/nginx/nginx.pid;
error_log $PWD/nginx/error.log;
events { worker_connections 64; }
http {
  log_format ssqp '\$uri \$status \$http_symbolchecksum';
  access_log $NGINX_LOG ssqp;
  client_body_temp_path $PWD/nginx/tmp/body;
  proxy_temp_path $PWD/nginx/tmp/proxy;
  fastcgi_temp_path $PWD/nginx/tmp/fastcgi;
  uwsgi_temp_path $PWD/nginx/tmp/uwsgi;
  scgi_temp_path $PWD/nginx/tmp/scgi;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port;
    $tls_listen
    root $www;
    location /fail/ { return 500; }
    location /slow/ { alias $www/; limit_rate 100; }
    location /moved/ { rewrite ^/moved/(.*)\$ /\$1 redirect; }
    location /loop/ { rewrite ^(.*)\$ \$1 redirect; }
  }
}
CONF
    "$nginx" -p "$PWD/nginx" -e "$PWD/nginx/error.log" -c "$PWD/nginx/nginx.conf" &
    NGINX_PID=$!
    trap 'kill $NGINX_PID 2>/dev/null; wait $NGINX_PID 2>/dev/null' EXIT
    local i
    for i in $(seq 50); do
      if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
        URL=http://127.0.0.1:$port
        TLS_URL=${tls_port:+https://localhost:$tls_port}
        return 0
      fi
      kill -0 $NGINX_PID 2>/dev/null || break
      sleep 0.1
    done
    kill $NGINX_PID 2>/dev/null; wait $NGINX_PID 2>/dev/null
  done
  echo "nginx did not start: $(tail -n 3 nginx/error.log 2>/dev/null)"
  exit 77
}
# requests - the number of requests nginx logged so far.
requests() { wc -l <"$NGINX_LOG" | tr -d ' '; }
# show CMD... - runs CMD with its stderr printed on stdout after its stdout, the server's port
# replaced by PORT, then "exit N".
show() {
  "$@" 2>stderr.txt
  local rc=$?
  sed -E 's#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g' stderr.txt
  echo "exit $rc"
}
# make_test_ca DIR - a certificate authority of this test (DIR/ca.pem) and a server certificate
# it signed for localhost and 127.0.0.1 (DIR/server.pem, DIR/server.key), valid for two days.
# Exits 77 when openssl is not installed.
make_test_ca() {
  local d=$1
  command -v openssl >/dev/null || { echo "openssl not installed (scripts/install-deps.sh)"; exit 77; }
  mkdir -p "$d"
  printf '%s\n' 'basicConstraints=critical,CA:FALSE' 'keyUsage=critical,digitalSignature,keyEncipherment' \
    'extendedKeyUsage=serverAuth' 'subjectAltName=DNS:localhost,IP:127.0.0.1' >"$d/server.ext"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/ca.key" -out "$d/ca.pem" -days 2 -subj "/CN=ilmap test CA" \
    -addext 'basicConstraints=critical,CA:TRUE' -addext 'keyUsage=critical,keyCertSign,cRLSign' 2>/dev/null \
  && openssl req -newkey rsa:2048 -nodes -keyout "$d/server.key" -out "$d/server.csr" -subj "/CN=localhost" 2>/dev/null \
  && openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
       -extfile "$d/server.ext" -out "$d/server.pem" 2>/dev/null \
  || { echo "openssl could not make the test certificates"; exit 1; }
}
