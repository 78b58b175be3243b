# A Sentry debug id is "<guid D>-<8 hex digits>" (or "<guid D>-<age hex>"), nothing else: one
# with a stray '-' (parsed by strtoul as a negative age before), a sign, a space, "0x", braces or
# misplaced dashes in the GUID names no module, so the frame stays as it was (exit 3); the exact
# debug id, in upper case too, resolves.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
command -v python3 >/dev/null || { echo "python3 not found (writes the events)"; exit 77; }
mkdir in && cp "$FRAMES.pdb" "$FRAMES.dll" in/
id=$(ilmap info --json in/Ilmap.Corpus.Frames.pdb | python3 -c 'import json, sys; print(json.load(sys.stdin)["debug_id"])')
g=${id:0:36} stamp=${id:37}
up=$(tr a-f A-F <<<"$id")
for d in "$id" "$up" "$g--000001" "$g-+0000001" "$g- 0000001" "$g-0x000001" "{$g}-$stamp" \
         "${g:0:8}${g:9:1}-${g:10}-$stamp" "$g-$stamp-" "$g-" "$g-0000000001"; do
  python3 - "$d" >e.json <<'PY'
import json, sys
frame = {"function": "Fail", "function_id": "0xa", "instruction_addr": "0x7", "addr_mode": "rel:0"}
print(json.dumps({"exception": {"values": [{"stacktrace": {"frames": [frame]}}]},
                  "debug_meta": {"images": [{"type": "pe_dotnet", "debug_id": sys.argv[1],
                                             "debug_file": "Ilmap.Corpus.Frames.pdb"}]}}))
PY
  ilmap symbolicate --search in --cache-dir cc e.json >out.json 2>/dev/null
  rc=$?
  echo "${d/$g/GUID}: exit $rc, $( (grep -o '"lineno": *[0-9]*' out.json || echo unresolved) | tr -d ' ')"
done
