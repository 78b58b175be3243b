# common.sh - sourced by every cases/*.sh (run by run-case.sh in an empty directory).
FRAMES=$CORPUS/out/cs-frames/Ilmap.Corpus.Frames
FEATURES=$CORPUS/out/cs-features/Ilmap.Corpus.Features
EMBEDDED_DLL=$CORPUS/out/cs-features-embedded/Ilmap.Corpus.FeaturesEmbedded.dll
EMBEDDED_SOURCES=$CORPUS/out/cs-embedded-sources/Ilmap.Corpus.EmbeddedSources
EMBEDDED_ALL=$CORPUS/out/cs-embedded-all/Ilmap.Corpus.EmbeddedAll
# need FILE... - skip (77) when an input is absent.
need() {
  local f
  for f in "$@"; do [[ -f $f ]] || { echo "$f not found"; exit 77; }; done
}
# frames_cache NAME - copies the frames PDB here and compiles it to NAME quietly.
frames_cache() {
  need "$FRAMES.pdb"
  cp "$FRAMES.pdb" frames.pdb
  ilmap compile -q frames.pdb -o "$1" || { echo "compile failed"; exit 1; }
}
# mtime FILE - modification time in seconds.
mtime() { stat -c %Y "$1"; }
# shrink SIZE FILE - truncate(2) FILE to SIZE bytes. coreutils truncate opens the file with
# O_NONBLOCK, which a reader's read lease (docs/library.md "Files changed while open") answers with
# EWOULDBLOCK once while it releases the lease; truncate(2) by path waits for the release.
shrink() { perl -e 'truncate($ARGV[1], $ARGV[0]) or die "truncate $ARGV[1]: $!\n"' "$1" "$2"; }
# check_context_blocks OUT ROOT [PREFIX] - symbolicate --context output: each block line
# "    [ >] NUM | TEXT" after a frame "in PREFIX/PATH:line L" (PREFIX: /_/ unless given; '\' in
# PATH read as '/') must be line NUM of ROOT/PATH, the '>' line must be L (docs/text-output.md
# "Source context").
check_context_blocks() {
  local l file="" want="" blocks=0 lines=0 bad=0 num text mark path prefix=${3:-/_/}
  while IFS= read -r l; do
    if [[ $l =~ \ in\ (.*):line\ ([0-9]+)$ ]]; then
      path=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]}
      path=${path#"$prefix"}
      file=$2/${path//\\//}
      continue
    fi
    [[ $l =~ ^\ \ \ \ ([\ \>])\ +([0-9]+)\ \|(\ (.*))?$ ]] || continue
    mark=${BASH_REMATCH[1]} num=${BASH_REMATCH[2]} text=${BASH_REMATCH[4]}
    lines=$((lines + 1))
    if [[ $mark == ">" ]]; then
      blocks=$((blocks + 1))
      [[ $num == "$want" ]] || { echo "marked line $num, the frame's is $want"; bad=$((bad + 1)); }
    fi
    [[ $text == "$(sed -n "${num}p" "$file")" ]] || { echo "DIFFERS: $file:$num"; bad=$((bad + 1)); }
  done <"$1"
  echo "$blocks blocks, $lines lines, $bad wrong"
}
# codeview_mark PE MINOR [STAMP_DELTA] - rewrites the one CodeView entry of PE in place: version
# 0x0100.MINOR (0x504d: a Portable PDB), or 0.0 (a Windows PDB) when MINOR is 0, and STAMP_DELTA
# added to its stamp; GUID and age stay. Fails when the PE has not exactly one CodeView entry.
codeview_mark() {
  python3 - "$@" <<'PY'
import struct, sys
path, minor, delta = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3]) if len(sys.argv) > 3 else 0
b = bytearray(open(path, 'rb').read())
pe = struct.unpack_from('<I', b, 0x3c)[0]
nsec, opt_size = struct.unpack_from('<H', b, pe + 6)[0], struct.unpack_from('<H', b, pe + 20)[0]
opt = pe + 24
dd = opt + (96 if struct.unpack_from('<H', b, opt)[0] == 0x10b else 112)
rva, size = struct.unpack_from('<II', b, dd + 6 * 8)
def file_offset(r):
    for i in range(nsec):
        s = opt + opt_size + 40 * i
        vsize, va, rsize, raw = struct.unpack_from('<IIII', b, s + 8)
        if va <= r < va + max(vsize, rsize):
            return r - va + raw
    raise SystemExit('debug directory outside every section')
entries = [file_offset(rva) + 28 * i for i in range(size // 28)]
cv = [e for e in entries if struct.unpack_from('<I', b, e + 12)[0] == 2]
if len(cv) != 1:
    raise SystemExit(path + ': one CodeView entry expected')
stamp = struct.unpack_from('<I', b, cv[0] + 4)[0]
struct.pack_into('<IHH', b, cv[0] + 4, (stamp + delta) & 0xFFFFFFFF, 0x0100 if minor else 0, minor)
open(path, 'wb').write(b)
PY
}

# run_on_tty ARGS...: runs ARGS with stdout and stderr on a new pseudo-terminal (python3 opens
# it); what the terminal showed goes to tty.txt.
run_on_tty() {
  python3 - "$@" >tty.txt <<'PY'
import os, subprocess, sys
master, slave = os.openpty()
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
os.close(slave)
out = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the child closed the pty's last slave
        break
    if not chunk:
        break
    out += chunk
child.wait()
sys.stdout.buffer.write(out)
PY
}
