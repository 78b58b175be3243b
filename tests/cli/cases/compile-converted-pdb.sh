# A PDB converted from Portable to Windows (what Pdb2Pdb and symbol servers make for older
# debuggers) keeps the GUID and has age 1, while the DLL's CodeView entry still says Portable
# (version 0x0100.0x504d). compile finds it beside the DLL and with --pdb, by GUID and age; its
# cache lists every point of the PDB. The DLL is the symreader-converter Async.dll with its
# CodeView entry marked Portable (the stamp and age kept), beside the real Windows Async.pdb.
. "$(dirname "$0")/../common.sh"
shared=${ILMAP_SHARED_DIR:-$CORPUS/../../shared}/corpus-public/win_symreader_Async
need "$shared/Async.dll" "$shared/Async.pdb"
cp "$shared/Async.dll" "$shared/Async.pdb" .
python3 - Async.dll <<'PY'
import struct, sys
path = sys.argv[1]
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
assert len(cv) == 1 and struct.unpack_from('<HH', b, cv[0] + 8) == (0, 0), 'corpus DLL changed: one Windows CodeView entry expected'
struct.pack_into('<HH', b, cv[0] + 8, 0x0100, 0x504d)
open(path, 'wb').write(b)
PY
ilmap info Async.dll | grep -E '^codeview\[0\]\.(portable|age|version):'
ilmap compile -q Async.dll -o beside.ilmap; echo "beside: exit $?"
mkdir other && mv Async.pdb other/
ilmap compile -q Async.dll --pdb other/Async.pdb -o with-pdb.ilmap; echo "--pdb: exit $?"
# The reference listing of the PDB (Mono.Cecil's reader, ../shared/corpus-public).
grep -v '^#' "$shared/expected-sequence-points.txt" > expected.txt
for c in beside with-pdb; do
  if ilmap dump --sequence-points $c.ilmap | grep -v '^#' | cmp -s - expected.txt; then
    echo "$c: dump of the cache equals the reference listing ($(wc -l < expected.txt) points)"
  else
    echo "$c: dump differs from the reference listing"
  fi
done
ilmap lookup beside.ilmap 0x06000005 45
