# info on a PE whose embedded PDB cannot be read (over --max-decompressed, an impossible declared
# size, corrupt deflate data) still prints the PE's identity, with pdb_error saying why the PDB
# part is missing; the error is also on stderr and the exit code is 2. A PDB without SourceLink
# prints "sourcelink: none" (JSON: null).
. "$(dirname "$0")/../common.sh"
need "$GOLDEN/good-embedded.dll" "$GOLDEN/pe-mpdb-too-large.dll" "$GOLDEN/pe-corrupt-deflate.dll"
cp "$GOLDEN/good-embedded.dll" "$GOLDEN/pe-mpdb-too-large.dll" "$GOLDEN/pe-corrupt-deflate.dll" .
ilmap info --max-decompressed 100 good-embedded.dll; echo "exit $?"
ilmap info pe-mpdb-too-large.dll | grep -E '^(kind|pe_timestamp|embedded_pdb|pdb_source|pdb_error):'; echo "exit ${PIPESTATUS[0]}"
ilmap info --json pe-corrupt-deflate.dll | grep -E '"(kind|pe_timestamp|embedded_pdb_size|pdb_error)"'; echo "exit ${PIPESTATUS[0]}"
ilmap info good-embedded.dll | grep -E '^(embedded_pdb|pdb_source|sourcelink|pdb_error)'; echo "exit ${PIPESTATUS[0]}"
ilmap info --json good-embedded.dll | grep -E '"sourcelink"'
