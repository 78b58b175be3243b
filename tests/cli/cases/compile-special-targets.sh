# Output targets that are not plain files (issue 9 items 2, 22): `-o -` writes the cache to
# standard output (no file named "-"); a FIFO is written through (never opened for the
# up-to-date check, which used to hang) and stays a FIFO; a symlink to /dev/null is written
# through to the device and stays a symlink; a symlink to a file has its target replaced and
# stays a symlink; -o creates missing folders; --out-dir naming a file says why it fails.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb"
cp "$FRAMES.pdb" app.pdb
ilmap compile -q app.pdb -o ref.ilmap; echo "exit $?"
ilmap compile app.pdb -o - >stdout.bin; echo "exit $?"
cmp stdout.bin ref.ilmap && echo "-o - wrote the cache to stdout"
[[ -e ./- ]] && echo "BAD: a file named - exists"
# -o - | consumer
ilmap compile app.pdb -o - | cmp - ref.ilmap && echo "piped"
mkfifo fifo
cat fifo >from-fifo &
reader=$!
timeout 20 ilmap compile app.pdb -o fifo; echo "exit $?"
# If ilmap never opened the FIFO for writing, the reader would wait forever.
for i in $(seq 100); do kill -0 "$reader" 2>/dev/null || break; sleep 0.1; done
kill "$reader" 2>/dev/null && echo "BAD: the FIFO was not written and closed"
wait
cmp from-fifo ref.ilmap && echo "FIFO received the cache"
[[ -p fifo ]] && echo "fifo is still a FIFO"
ln -s /dev/null null-link
ilmap compile app.pdb -o null-link; echo "exit $?"
[[ -L null-link ]] && echo "null-link is still a symlink"
[[ -c /dev/null ]] && echo "/dev/null is still a character device"
mkdir real
ln -s real/target.ilmap link.ilmap
ilmap compile app.pdb -o link.ilmap; echo "exit $?"
[[ -L link.ilmap ]] && echo "link.ilmap is still a symlink"
cmp real/target.ilmap ref.ilmap && echo "its target holds the cache"
ilmap compile app.pdb -o link.ilmap; echo "exit $?"
# -o into folders that do not exist yet.
ilmap compile app.pdb -o newdir/sub/x.ilmap; echo "exit $?"
cmp newdir/sub/x.ilmap ref.ilmap && echo "parents created"
# /dev/stdout and /dev/fd/N are written through (never renamed over), nothing else on stdout.
ilmap compile app.pdb -o /dev/stdout >via-stdout.bin; echo "exit $?"
cmp via-stdout.bin ref.ilmap && echo "/dev/stdout to a file"
ilmap compile app.pdb -o /dev/stdout | cmp - ref.ilmap && echo "/dev/stdout to a pipe"
ilmap compile -q app.pdb -o /dev/fd/5 5>via-fd5.bin; echo "exit $?"
cmp via-fd5.bin ref.ilmap && echo "/dev/fd/5"
rm via-stdout.bin via-fd5.bin
echo notes >notes.txt
ilmap compile app.pdb --out-dir notes.txt 2>&1; echo "exit $?"
ls -A . real
