# store add's progress line: on a terminal (a pty opened by python3) a stderr line "ilmap: store
# add: N/M files" is rewritten in place while files are added, and erased before the next
# printed line and at the end; what remains is exactly what is printed off a terminal. With
# stderr not a terminal, or with -q, there is none.
. "$(dirname "$0")/../common.sh"
need "$FEATURES.pdb"
command -v python3 >/dev/null || { echo "python3 not found (pty)"; exit 77; }
mkdir in
# Enough files (each PDB and cache written and fsync'd) for the line to be rewritten many times.
for i in $(seq -w 0 199); do cp "$FEATURES.pdb" in/f$i.pdb; done
echo "-- on a terminal"
# The line first shows after 300 ms: on a fast, or lightly loaded, machine 200 files can be added
# sooner (seen in CI). The test knob makes it show after 1 ms and every 1 ms.
ILMAP_TEST_PROGRESS_MS=1 run_on_tty ilmap store add -j 1 st1 in
# Progress lines: "\rilmap: store add: N/200 files\033[K", each erased by "\r\033[K".
grep -o $'ilmap: store add: [0-9]*/200 files\033\\[K' tty.txt | wc -l | sed 's/^ *[1-9][0-9]*$/progress lines: some/'
grep -ao $'\rilmap: store add: [^\r]*' tty.txt | grep -vc $'^\rilmap: store add: [0-9]*/200 files\033\\[K$'
# Without the progress line and its erasures, the text is what a pipe gets.
python3 -c 'import re,sys; t=open("tty.txt","rb").read().replace(b"\r\n", b"\n"); t=re.sub(rb"\rilmap: store add: [0-9]+/[0-9]+ files\x1b\[K", b"", t); sys.stdout.buffer.write(t.replace(b"\r\x1b[K", b""))' >tty-clean.txt
ilmap store add -j 1 st2 in >pipe.txt 2>pipe.err; echo "exit $?"
sed 's/^[a-z ]*: \([^/]*\)\/.*/\1/' tty-clean.txt | tail -n 3
cmp -s tty-clean.txt pipe.txt && echo "same text as through a pipe"
echo "-- stderr not a terminal"
grep -c 'store add:' pipe.err
echo "-- -q on a terminal"
ILMAP_TEST_PROGRESS_MS=1 run_on_tty ilmap store add -q -j 1 st1 in
wc -c <tty.txt
