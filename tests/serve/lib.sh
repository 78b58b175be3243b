# lib.sh - sourced by the scripts of tests/serve: a work folder for the test, and servers started
# in it, all gone at exit.
#   serve_setup NAME       makes the work folder ($work, under $TMPDIR) and enters it; at exit the
#                          processes in $pids are killed and the folder removed. The default cache
#                          directory points inside it, and $_NT_SYMBOL_PATH is unset.
#   start_in DIR NAME CMD...  runs CMD (an `ilmap ... serve --port 0 ...`) in DIR with its stderr in
#                          NAME.log until its first line says where it listens; sets PID_<NAME>,
#                          URL_<NAME> (http://127.0.0.1:PORT) and PORT_<NAME>; exits 1 when it
#                          does not start.
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
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
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
