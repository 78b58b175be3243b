# Live input (`tail -f app.log | ilmap symbolicate`, `kubectl logs -f`): each line is written as
# soon as it is complete and no more input is waiting, not when the input ends. A writer puts one
# line into a FIFO and waits (10 s at most) for its symbolicated line before it writes the next;
# only then does the input end. Once with a journald-prefixed frame first, once with a JSON log
# line first (no Sentry event: it must not be read whole before anything is written), once with a
# line that arrives in two pieces (nothing of it before its end). The cache is compiled first, so
# the waits time the stream alone.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
frame='   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7'
text="Nov 24 10:00:00 host app[123]: $frame"
json='{"@t":"2026-11-24T10:00:00Z","@x":"X: boom\n'"$frame"'"}'
printf '%s\n' "$frame" | ilmap symbolicate --search pe --cache-dir cc >/dev/null 2>&1
# lines FILE - how many complete lines FILE holds
lines() { wc -l <"$1"; }
# wait_for FILE N - waits up to 10 s for FILE to hold N lines
wait_for() {
  local i
  for ((i = 0; i < 100; i++)); do
    [[ $(lines "$1") -ge $2 ]] && return 0
    sleep 0.1
  done
  return 1
}
# live NAME LINE... - writes each LINE into a FIFO read by symbolicate, waiting for its output
live() {
  local name=$1 n=0 pid
  shift
  mkfifo "$name.in"
  # The output exists before the reader polls it: the background shell opens it only after the
  # FIFO, that is, after this shell opened the FIFO's other end.
  : >"$name.out"
  ilmap symbolicate --search pe --cache-dir cc <"$name.in" >"$name.out" 2>"$name.err" &
  pid=$!
  exec 3>"$name.in"
  for l in "$@"; do
    n=$((n + 1))
    printf '%s\n' "$l" >&3
    if wait_for "$name.out" $n; then echo "line $n out while the input is open"
    else echo "FAIL: line $n not out while the input is open"; fi
  done
  exec 3>&-
  wait $pid; echo "exit $?"
  cat "$name.out" "$name.err"
}
echo "-- text first"
live text "$text" "$json"
echo "-- a JSON log line first"
live json "$json" "$text"
echo "-- a line in two pieces"
mkfifo halves.in
: >halves.out
ilmap symbolicate --search pe --cache-dir cc <halves.in >halves.out 2>halves.err &
pid=$!
exec 3>halves.in
printf '%s\n%s' "$text" "${text:0:40}" >&3
wait_for halves.out 1 && echo "line 1 out"
size=$(wc -c <halves.out)
sleep 0.5
[[ $(wc -c <halves.out) -eq $size ]] && echo "nothing of the half line yet" || echo "FAIL: part of the half line out"
printf '%s\n' "${text:40}" >&3
wait_for halves.out 2 && echo "line 2 out when complete"
exec 3>&-
wait $pid; echo "exit $?"
cat halves.out
