# faultserver.sh - sourced by cases that need a misbehaving HTTP server: `start_fault_server
# ROOT [SECONDS]` starts faultserver.py (see its docstring for the faults) on 127.0.0.1 and a
# free port, for at most SECONDS (default 60); sets $FAULT_URL and $FAULT_LOG ("FAULT STATUS KEY" per request). The server
# is killed on exit. Exits 77 (skip) when python3 is absent or the server does not start.
start_fault_server() {
  local root=$1 lifetime=${2:-60} i
  command -v python3 >/dev/null || { echo "python3 not found (fault server)"; exit 77; }
  mkdir -p faultserver
  FAULT_LOG=$PWD/faultserver/requests.log
  : >"$FAULT_LOG"
  python3 "$(dirname "${BASH_SOURCE[0]}")/faultserver.py" "$root" "$PWD/faultserver/port" "$FAULT_LOG" --lifetime "$lifetime" \
    2>"$PWD/faultserver/stderr" &
  FAULT_PID=$!
  trap 'kill $FAULT_PID 2>/dev/null; wait $FAULT_PID 2>/dev/null' EXIT
  for i in $(seq 100); do
    if [[ -s faultserver/port ]]; then
      FAULT_URL=http://127.0.0.1:$(cat faultserver/port)
      return 0
    fi
    kill -0 $FAULT_PID 2>/dev/null || break
    sleep 0.05
  done
  echo "fault server did not start: $(tail -n 3 faultserver/stderr 2>/dev/null)"
  exit 77
}
