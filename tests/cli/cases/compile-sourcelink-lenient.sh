# SourceLink JSON as the SourceLink tooling reads it: a trailing comma is accepted (the URLs are
# kept); JSON that cannot be read costs only the URLs: a warning, every point kept, dump of the
# cache equal to dump of the PDB. The shapes PDB's JSON is rewritten in place, same length.
. "$(dirname "$0")/../common.sh"
pdb=$CORPUS/out/cs-sourcelink/Ilmap.Corpus.Shapes.pdb
need "$pdb"
json='{"documents":{"/_/*":"https://example.invalid/ilmap/corpus/*"}}'
# patch NAME NEW_JSON: a copy of the PDB whose SourceLink blob holds NEW_JSON (same length).
patch() {
  python3 - "$pdb" "$1" "$json" "$2" <<'PY'
import sys
src, out, old, new = sys.argv[1:]
b = open(src, 'rb').read()
assert len(old) == len(new) and b.count(old.encode()) == 1, "corpus PDB changed: its SourceLink JSON is not the expected one"
open(out, 'wb').write(b.replace(old.encode(), new.encode()))
PY
}
patch comma.pdb '{"documents":{"/_/*":"https://example.invalid/ilmap/corpu/*",}}'
patch broken.pdb '{"documents":{"/_/*":"https://example.invalid/ilmap/corpus/*"}]'
for p in comma broken; do
  ilmap compile -q $p.pdb -o $p.ilmap; echo "$p: compile exit $?"
  ilmap lookup $p.ilmap 0x06000001 6 --json; echo "$p: lookup exit $?"
  if cmp -s <(ilmap dump --sequence-points $p.pdb) <(ilmap dump --sequence-points $p.ilmap); then
    echo "$p: dump of the cache equals dump of the PDB"
  else
    echo "$p: dump differs"
  fi
done
