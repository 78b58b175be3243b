# Sentry images are fetched from --symbol-path by their debug_id (the Portable PDB id) under the
# debug_file's name (else the code_file's, as a .pdb): a store served by nginx, an empty --search
# (without one, the current directory would be searched, which holds the files); the
# cache comes over HTTP, verified against the full PDB id, and answers the frame; an image whose
# debug id has another stamp is not answered from it; an image with neither file name asks
# nothing (an SSQP key needs one).
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
mkdir in nothing && cp "$FRAMES.pdb" "$FRAMES.dll" in/
ilmap store add www in >/dev/null; echo "store add exit $?"
start_nginx "$PWD/www"
# event ID DEBUG_FILE CODE_FILE - a one-frame event (Scenarios.Fail, IL offset 7) for that image.
event() {
  python3 - "$@" <<'PY'
import json, sys
image = {"type": "pe_dotnet", "debug_id": sys.argv[1]}
if sys.argv[2]: image["debug_file"] = sys.argv[2]
if sys.argv[3]: image["code_file"] = sys.argv[3]
frame = {"function": "Fail", "function_id": "0xa", "instruction_addr": "0x7", "addr_mode": "rel:0"}
print(json.dumps({"event_id": "0" * 32, "platform": "csharp",
                  "exception": {"values": [{"type": "System.Exception", "stacktrace": {"frames": [frame]}}]},
                  "debug_meta": {"images": [image]}}))
PY
}
# frame - the frame of the event on stdin: what symbolicate filled in.
frame() {
  python3 -c 'import json, sys
f = json.load(sys.stdin)["exception"]["values"][0]["stacktrace"]["frames"][0]
print({k: f[k] for k in ("filename", "abs_path", "lineno", "colno") if k in f})'
}
id=$(ilmap info --json in/Ilmap.Corpus.Frames.pdb | python3 -c 'import json, sys; print(json.load(sys.stdin)["debug_id"])')
echo "-- debug_file C:\\build\\Ilmap.Corpus.Frames.pdb: fetched, resolved"
event "$id" 'C:\build\Ilmap.Corpus.Frames.pdb' '' >e1.json
ilmap symbolicate --search nothing --symbol-path "srv*dl1*$URL" --cache-dir cc e1.json 2>/dev/null | frame; echo "exit ${PIPESTATUS[0]}"
sleep 0.2
sed -E 's#[0-9a-f]{32}FFFFFFFF#<ID>#' "$NGINX_LOG"
echo "-- only code_file /app/Ilmap.Corpus.Frames.dll: asked for Ilmap.Corpus.Frames.pdb"
: >"$NGINX_LOG"
event "$id" '' '/app/Ilmap.Corpus.Frames.dll' >e2.json
ilmap symbolicate --search nothing --symbol-path "srv*dl2*$URL" --cache-dir cc2 e2.json 2>/dev/null | frame; echo "exit ${PIPESTATUS[0]}"
sleep 0.2
sed -E 's#[0-9a-f]{32}FFFFFFFF#<ID>#' "$NGINX_LOG"
echo "-- another stamp: not answered"
: >"$NGINX_LOG"
event "${id:0:37}00000001" 'Ilmap.Corpus.Frames.pdb' '' >e3.json
ilmap symbolicate --search nothing --symbol-path "srv*dl3*$URL" --cache-dir cc3 e3.json 2>err.txt | frame; echo "exit ${PIPESTATUS[0]}"
grep -c 'PDB id mismatch (debug id' err.txt
sleep 0.2
sed -E 's#[0-9a-f]{32}FFFFFFFF#<ID>#' "$NGINX_LOG"
find dl3 cc3 -name '*.pdb' -o -name '*.ilmap' 2>/dev/null | wc -l
echo "-- no file name: no request"
: >"$NGINX_LOG"
event "$id" '' '' >e4.json
ilmap symbolicate --search nothing --symbol-path "srv*dl4*$URL" --cache-dir cc4 e4.json 2>/dev/null | frame; echo "exit ${PIPESTATUS[0]}"
sleep 0.2
wc -l <"$NGINX_LOG"
