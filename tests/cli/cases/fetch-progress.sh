# fetch's progress line: on a terminal (a pty opened by python3) a stderr line "ilmap: fetch: N/M
# modules, SIZE received (RATE/s)" is rewritten in place while a slow download runs, and erased
# before the error; with stderr not a terminal, or with -v, there is none.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../faultserver.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
command -v python3 >/dev/null || { echo "python3 not found (pty)"; exit 77; }
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" in/
ilmap store add www in/Ilmap.Corpus.Frames.pdb >/dev/null
rm www/ilmap.corpus.frames.pdb/*/ilmap.corpus.frames.ilmap
start_fault_server "$PWD/www"
echo "-- on a terminal"
run_on_tty ilmap fetch --attempts 1 --read-timeout 2 --symbol-path "srv*c1*$FAULT_URL/slow" in/Ilmap.Corpus.Frames.dll
tr '\r' '\n' <tty.txt | grep -cE '^ilmap: fetch: 0/1 module, [0-9.]+ (B|KiB) received \([0-9.]+ (B|KiB)/s\)'$'\033''\[K$' | sed 's/^[1-9][0-9]*$/progress lines: some/'
grep -c $'\r\033\\[K'"ilmap: error: " tty.txt | sed 's/^1$/erased before the error/'
cp tty.txt tty1.txt
echo "-- stderr not a terminal"
ilmap fetch --attempts 1 --read-timeout 2 --symbol-path "srv*c2*$FAULT_URL/slow" in/Ilmap.Corpus.Frames.dll 2>err.txt
echo "exit $?"
grep -c 'ilmap: fetch:' err.txt
echo "-- -v on a terminal"
run_on_tty ilmap fetch -v --attempts 1 --read-timeout 2 --symbol-path "srv*c3*$FAULT_URL/slow" in/Ilmap.Corpus.Frames.dll
grep -c "ilmap: fetch:" tty.txt || true
# On a failure, what the terminal showed (diagnosis; the expected output does not include it).
if [[ $(tr '\r' '\n' <tty1.txt | grep -c 'ilmap: fetch: 0/1') -eq 0 ]]; then echo "terminal output:"; cat -v tty1.txt; fi
