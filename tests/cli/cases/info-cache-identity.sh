# info on a cache shows format 2.1's identity fields 17 and 18 (SPEC.md 3.2, docs/text-output.md
# "Info"): pdb_sha256 is the SHA-256 the PE's PdbChecksum entry names (the PDB with its id
# zeroed), in lowercase hex; package_source_urls is false for a cache compiled from a PE and its
# PDB. A cache compiled from a PDB alone records the hash too.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.dll" "$FRAMES.pdb"
cp "$FRAMES.dll" "$FRAMES.pdb" .
ilmap compile -q Ilmap.Corpus.Frames.dll -o pe.ilmap; echo "compile exit $?"
want=$(ilmap info --json Ilmap.Corpus.Frames.dll | grep -A1 '"algorithm": "SHA256"' | sed -n 's/.*"hash": "\([0-9a-f]*\)".*/\1/p')
echo "PdbChecksum SHA256: ${#want} hex digits"
ilmap info pe.ilmap | grep -E '^(pdb_sha256|package_source_urls):' | sed "s/$want/<the PE's PdbChecksum SHA256>/"
ilmap info --json pe.ilmap | grep -E '"(pdb_sha256|package_source_urls)"' | sed "s/$want/<the PE's PdbChecksum SHA256>/"
frames_cache pdb.ilmap
ilmap info pdb.ilmap | grep -E '^pdb_sha256:' | sed "s/$want/<the PE's PdbChecksum SHA256>/"
