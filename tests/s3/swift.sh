# swift.sh - sourced by the S3 tests: swift_start DIR starts a one-node OpenStack Swift (proxy with
# s3api + tempauth + the cache middleware over memcached; account, container and object servers;
# rings of one replica) on 127.0.0.1 and free ports, everything under DIR, and waits until an
# S3 request is answered. It sets SWIFT_S3_URL (the S3 endpoint), SWIFT_KEY_ID and SWIFT_SECRET
# (tempauth's "account:user" and key), SWIFT_LOG (the servers' log) and SWIFT_PIDS; swift_stop
# ends them. Returns 77 (printing why) when Swift or memcached is not installed, 1 when it
# installed but does not start. Works as root (the servers run as the calling user).
# What Swift 2.30 (Debian 12) needs here: issue 26, and docs/symbol-stores.md "S3 buckets".

SWIFT_PIDS=()

swift_stop() {
  local p
  for p in "${SWIFT_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${SWIFT_PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  SWIFT_PIDS=()
}

swift_start() {
  local dir=$1 py=/usr/bin/python3 b
  for b in swift-proxy-server swift-account-server swift-container-server swift-object-server memcached; do
    command -v "$b" >/dev/null || { echo "SKIP: $b not found (scripts/install-deps.sh installs swift-proxy, swift-account, swift-container, swift-object, memcached)"; return 77; }
  done
  "$py" -c 'import swift.common.ring, swift.common.middleware.s3api' 2>/dev/null ||
    { echo "SKIP: the swift Python modules (with s3api) cannot be imported by $py"; return 77; }
  mkdir -p "$dir/srv/d1" "$dir/run" || return 1
  local ports
  ports=$("$py" - <<'PY'
import socket
socks = []
for _ in range(5):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
  ) || return 1
  local proxy account container object memc
  read -r proxy account container object memc <<<"$ports"
  local user
  user=$(id -un)
  cat >"$dir/swift.conf" <<CONF
[swift-hash]
swift_hash_path_suffix = ilmap-test-$RANDOM$RANDOM
[storage-policy:0]
name = Policy-0
default = yes
CONF
  local common="[DEFAULT]
swift_dir = $dir
devices = $dir/srv
mount_check = false
disable_fallocate = true
user = $user
bind_ip = 127.0.0.1
workers = 0
log_name = swift
log_facility = LOG_LOCAL0
log_udp_host =
"
  local kind port
  for kind in account container object; do
    eval "port=\$$kind"
    printf '%sbind_port = %s\n\n[pipeline:main]\npipeline = %s-server\n\n[app:%s-server]\nuse = egg:swift#%s\n' \
      "$common" "$port" "$kind" "$kind" "$kind" >"$dir/$kind-server.conf"
    [[ $kind == object ]] && printf '\n[object-updater]\n[object-auditor]\n' >>"$dir/$kind-server.conf"
  done
  cat >"$dir/proxy-server.conf" <<CONF
${common}bind_port = $proxy

[pipeline:main]
pipeline = catch_errors proxy-logging cache s3api tempauth proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$memc

[filter:s3api]
use = egg:swift#s3api
location = us-east-1

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin
CONF
  # The rings, one replica each, built in one Python process (swift-ring-builder would start
  # Python nine times).
  "$py" - "$dir" "$account" "$container" "$object" <<'PY' || return 1
import sys
from swift.common.ring import RingBuilder
d = sys.argv[1]
for name, port in zip(("account", "container", "object"), sys.argv[2:5]):
    b = RingBuilder(8, 1, 1)
    b.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": int(port), "device": "d1", "weight": 100})
    b.rebalance()
    b.get_ring().save("%s/%s.ring.gz" % (d, name))
PY
  SWIFT_LOG=$dir/swift.log
  : >"$SWIFT_LOG"
  memcached -l 127.0.0.1 -p "$memc" -U 0 -u "$user" -m 16 >>"$SWIFT_LOG" 2>&1 &
  SWIFT_PIDS+=($!)
  for kind in account container object proxy; do
    "$py" "$(command -v swift-$kind-server)" "$dir/$kind-server.conf" >>"$SWIFT_LOG" 2>&1 &
    SWIFT_PIDS+=($!)
  done
  SWIFT_S3_URL=http://127.0.0.1:$proxy
  SWIFT_KEY_ID=test:tester
  SWIFT_SECRET=testing
  # Ready when tempauth answers (the proxy is up) and an account HEAD through it succeeds (the
  # account, container and object servers are up).
  local i tok
  for i in $(seq 600); do
    tok=$(curl -s -o /dev/null -D - -H "X-Auth-User: $SWIFT_KEY_ID" -H "X-Auth-Key: $SWIFT_SECRET" \
      "$SWIFT_S3_URL/auth/v1.0" 2>/dev/null | sed -n 's/^X-Auth-Token: \(.*\)\r$/\1/Ip')
    if [[ -n $tok ]] &&
      [[ $(curl -s -o /dev/null -w '%{http_code}' -X PUT -H "X-Auth-Token: $tok" "$SWIFT_S3_URL/v1/AUTH_test/ilmap-probe") == 20[12] ]]; then
      SWIFT_TOKEN=$tok
      return 0
    fi
    for p in "${SWIFT_PIDS[@]}"; do
      kill -0 "$p" 2>/dev/null || { echo "FAIL: a Swift server exited while starting:"; tail -n 30 "$SWIFT_LOG"; return 1; }
    done
    sleep 0.1
  done
  echo "FAIL: Swift did not answer within 60 s:"
  tail -n 30 "$SWIFT_LOG"
  return 1
}

# swift_bucket NAME: creates the bucket (a Swift container) through the native API.
swift_bucket() {
  [[ $(curl -s -o /dev/null -w '%{http_code}' -X PUT -H "X-Auth-Token: $SWIFT_TOKEN" "$SWIFT_S3_URL/v1/AUTH_test/$1") == 20[12] ]]
}
