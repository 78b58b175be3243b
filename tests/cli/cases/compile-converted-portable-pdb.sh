# The other direction of compile-converted-pdb: a Portable PDB converted from a Windows one
# (Pdb2Pdb takes the GUID and stamp of the PE's CodeView entry as the Portable PDB's id) beside a
# PE whose CodeView entry still names a Windows PDB (version 0). compile finds it beside the PE
# and with --pdb, by GUID and stamp; a PDB of another stamp is still a mismatch (exit 3). The PE is
# the corpus Features DLL with its CodeView entry marked Windows (GUID, stamp and age kept), beside
# its own Portable PDB, whose id is that GUID and stamp.
. "$(dirname "$0")/../common.sh"
need "$FEATURES.dll" "$FEATURES.pdb"
cp "$FEATURES.dll" f.dll
cp "$FEATURES.pdb" f.pdb
# mark F.DLL VERSION [STAMP_DELTA]: sets the version of the DLL's one CodeView entry (0 or 0x504d
# in the minor half) and adds STAMP_DELTA to its stamp.
mark() {
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
assert len(cv) == 1, 'corpus DLL changed: one CodeView entry expected'
stamp = struct.unpack_from('<I', b, cv[0] + 4)[0]
struct.pack_into('<IHH', b, cv[0] + 4, (stamp + delta) & 0xFFFFFFFF, 0x0100 if minor else 0, minor)
open(path, 'wb').write(b)
PY
}
mark f.dll 0
ilmap info f.dll | grep -E '^codeview\[0\]\.(portable|age|version):'
ilmap compile -q f.dll -o beside.ilmap; echo "beside: exit $?"
mkdir other && mv f.pdb other/
ilmap compile -q f.dll --pdb other/f.pdb -o with-pdb.ilmap; echo "--pdb: exit $?"
for c in beside with-pdb; do
  if cmp -s <(ilmap dump --sequence-points other/f.pdb) <(ilmap dump --sequence-points $c.ilmap); then
    echo "$c: dump of the cache equals dump of the PDB ($(ilmap dump --sequence-points other/f.pdb | grep -vc '^#') points)"
  else
    echo "$c: dump differs"
  fi
done
ilmap lookup beside.ilmap 0x06000005 6
# A PDB whose stamp differs from the entry's is not this PE's.
cp f.dll stale.dll && mark stale.dll 0 1
ilmap compile -q stale.dll --pdb other/f.pdb -o stale.ilmap; echo "stale: exit $?"
if [[ -e stale.ilmap ]]; then echo "stale: a cache was written"; else echo "stale: no cache written"; fi
