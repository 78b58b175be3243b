# A PE whose PdbChecksum algorithm name is "A\r\n\r\nGET /smuggled HTTP/1.1\r\nX: y": the name is
# not an HTTP token, so the entry is left out of the SymbolChecksum header (none is sent), and
# the server (nginx, which logs every request it parses) sees exactly the two requests fetch
# makes, no smuggled third one. The PDB is still found (the unknown algorithm cannot be checked).
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir in pe && cp "$FRAMES.pdb" "$FRAMES.dll" in/
ilmap store add www in/Ilmap.Corpus.Frames.pdb >/dev/null; echo "store add exit $?"
rm www/ilmap.corpus.frames.pdb/*/ilmap.corpus.frames.ilmap   # the PDB itself is fetched
python3 - "$FRAMES.dll" pe/Ilmap.Corpus.Frames.dll <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
at = b.find(b"SHA256\0")
assert at > 0 and b.find(b"SHA256\0", at + 1) < 0
evil = b"A\r\n\r\nGET /smuggled HTTP/1.1\r\nX: y\0"
b[at:at + len(evil)] = evil  # the rest of the old digest stays as the new (shorter) digest
open(sys.argv[2], "wb").write(b)
PY
ilmap info pe/Ilmap.Corpus.Frames.dll --json 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print("symbol_checksum:", repr(j["symbol_checksum"]))'
start_nginx "$PWD/www"
ilmap fetch --symbol-path "srv*dl*$URL" pe/Ilmap.Corpus.Frames.dll | cut -f1; echo "exit ${PIPESTATUS[0]}"
sleep 0.2
sed -E 's#[0-9a-f]{32}FFFFFFFF#<ID>#' "$NGINX_LOG"
echo "smuggled requests: $(grep -c smuggled "$NGINX_LOG")"
