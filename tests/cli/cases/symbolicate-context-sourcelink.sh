# --fetch-sources (docs/symbolicate.md): a document that neither the cache nor a --source-root
# has is downloaded from its SourceLink URL, from a real nginx here, and shown only when its
# hash is the checksum the PDB records: Polygon.cs is served as built, Shapes.cs tampered with.
# The good download is kept in the cache directory under its checksum and not fetched again;
# the tampered one is never kept. The Shapes PDB's SourceLink maps /_/* to
# https://example.invalid/ilmap/corpus/*: the copy used here points it at the server instead (a
# URL of the same length, so the PDB stays well-formed), and its frames come as a Sentry event,
# which finds a PDB by debug id without a PE.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
SL=$CORPUS/out/cs-sourcelink/Ilmap.Corpus.Shapes
need "$SL.pdb" "$CORPUS/src/Shapes/Polygon.cs" "$CORPUS/src/Shapes/Shapes.cs"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
command -v jq >/dev/null || { echo "jq not found"; exit 77; }
mkdir www
start_nginx "$PWD/www"
mkdir in
python3 - "$SL.pdb" in/Ilmap.Corpus.Shapes.pdb "$URL" >dir.txt <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
old = b'https://example.invalid/ilmap/'
new = sys.argv[3].rstrip('/').encode() + b'/'
new += b'x' * (len(old) - len(new) - 1) + b'/'
assert len(new) == len(old) and b.count(old) == 1
b[b.find(old):b.find(old) + len(old)] = new
open(sys.argv[2], 'wb').write(b)
print(new[len(sys.argv[3].rstrip('/')) + 1:].decode())
PY
dir=$(cat dir.txt)
mkdir -p "www/${dir}corpus/Shapes"
cp "$CORPUS/src/Shapes/Polygon.cs" "www/${dir}corpus/Shapes/"
{ cat "$CORPUS/src/Shapes/Shapes.cs"; echo '// tampered'; } >"www/${dir}corpus/Shapes/Shapes.cs"
id=$(ilmap info --json in/Ilmap.Corpus.Shapes.pdb | jq -r .debug_id)
python3 - "$id" >e.json <<'PY'
import json, sys
frames = [{"function": "A", "function_id": "0x2", "instruction_addr": "0x0", "addr_mode": "rel:0"},
          {"function": "B", "function_id": "0x6", "instruction_addr": "0x0", "addr_mode": "rel:0"}]
print(json.dumps({"exception": {"values": [{"stacktrace": {"frames": frames}}]},
                  "debug_meta": {"images": [{"type": "pe_dotnet", "debug_id": sys.argv[1],
                                             "debug_file": "Ilmap.Corpus.Shapes.pdb"}]}}))
PY
show() {
  jq -c '.exception.values[0].stacktrace.frames[] | {filename, lineno, context_line,
    pre: (if has("pre_context") then (.pre_context | length) else "absent" end)}'
}
requests() { grep -c 'corpus/Shapes/' "$NGINX_LOG" || true; }
run() { ilmap symbolicate --search in --cache-dir cc --context 1 "$@" e.json; }
echo "-- without --fetch-sources: nothing asked"
run 2>/dev/null | show
echo "requests: $(requests)"
echo "-- --fetch-sources: Polygon.cs shown, the tampered Shapes.cs not"
run --fetch-sources -v 2>err.txt >out.json; echo "exit $?"
show <out.json
grep "^ilmap: source " err.txt | sed "s|$URL/$dir|URL/|g"
jq -r '.exception.values[0].stacktrace.frames[0] | .pre_context[], .context_line, .post_context[]' out.json |
  cmp - <(sed -n '16,18p' "$CORPUS/src/Shapes/Polygon.cs") && echo "Polygon.cs context = sed -n 16,18p"
echo "requests: $(requests)"
find cc/sources -type f | sed 's|/[0-9a-f]\{64\}$|/<sha256 hex>|'
kept=cc/sources/sha256/$(sha256sum <"$CORPUS/src/Shapes/Polygon.cs" | cut -d' ' -f1)
cmp "$kept" "$CORPUS/src/Shapes/Polygon.cs" && echo "Polygon.cs kept under its checksum"
echo "-- again: Polygon.cs from the cache directory, Shapes.cs asked again"
run --fetch-sources 2>/dev/null | show
echo "requests: $(requests)"
echo "-- a kept file changed on disk is not used: fetched again"
printf 'x' >>"$kept"
run --fetch-sources 2>/dev/null | show
echo "requests: $(requests)"
