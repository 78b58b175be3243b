# dump of a cache whose packed document strings do not unpack (the first byte of the
# strings_zstd frame changed) fails with the reader's error, exit 2 and nothing on stdout, as
# verify fails, instead of listing every point with an empty path; the same for --documents and
# --json, and for --methods of a cache whose packed method-name strings do not unpack. A lookup
# there has no answer (SPEC.md 6 step 7).
. "$(dirname "$0")/../common.sh"
need "$FRAMES.dll"
frames_cache f.ilmap
cp "$FRAMES.dll" frames.dll
ilmap compile -q frames.dll -o n.ilmap || { echo "compile failed"; exit 1; }
# break FILE TABLE_FIELD... - flips the first byte of the vector a path of FlatBuffers fields
# names (root table first; the checksum is left stale: dump does not check it).
break_vector() {
  python3 - "$@" <<'PY'
import struct, sys
path, ids = sys.argv[1], [int(x) for x in sys.argv[2:]]
b = bytearray(open(path, 'rb').read())
at = 32 + struct.unpack_from('<I', b, 32)[0]  # the root table
for n, i in enumerate(ids):
    vt = at - struct.unpack_from('<i', b, at)[0]
    slot = 4 + 2 * i
    off = struct.unpack_from('<H', b, vt + slot)[0] if slot < struct.unpack_from('<H', b, vt)[0] else 0
    if off == 0:
        sys.exit('break_vector: field %d absent' % i)
    at = at + off + struct.unpack_from('<I', b, at + off)[0]
b[at + 4] ^= 0xFF  # after the vector's length: the zstd magic
open(path, 'wb').write(b)
PY
}
break_vector f.ilmap 14 || exit 1      # Cache.strings_zstd
break_vector n.ilmap 8 6 || exit 1     # Cache.names -> Names.strings_zstd
ilmap dump f.ilmap; echo "exit $?"
ilmap dump --documents f.ilmap; echo "exit $?"
ilmap dump --json f.ilmap; echo "exit $?"
ilmap lookup f.ilmap 0x0600000a 7; echo "exit $?"
ilmap dump --methods n.ilmap; echo "exit $?"
ilmap dump n.ilmap >/dev/null; echo "exit $?"  # its document strings are intact
