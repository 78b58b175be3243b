# Sentry events take the source context of --context (N lines; 5 without it, as before) from the
# same sources as trace text: embedded ones and --source-root checkouts verified against the
# PDB's document checksum. A document path with '..' after the prefix is never followed, even to
# a file with the right hash: the PDB is forged here (its directory part "Frames" becomes
# "../Fr1") and a genuine copy of the file waits at ../Fr1 beside the root.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$CORPUS/src/Frames/Scenarios.cs"
command -v python3 >/dev/null || { echo "python3 not found (writes the events)"; exit 77; }
command -v jq >/dev/null || { echo "jq not found"; exit 77; }
mkdir in src
cp "$FRAMES.pdb" in/
cp -r "$CORPUS/src/Frames" src/
id=$(ilmap info --json in/Ilmap.Corpus.Frames.pdb | jq -r .debug_id)
python3 - "$id" >e.json <<'PY'
import json, sys
frame = {"function": "Fail", "function_id": "0xa", "instruction_addr": "0x7", "addr_mode": "rel:0"}
print(json.dumps({"exception": {"values": [{"stacktrace": {"frames": [frame]}}]},
                  "debug_meta": {"images": [{"type": "pe_dotnet", "debug_id": sys.argv[1],
                                             "debug_file": "Ilmap.Corpus.Frames.pdb"}]}}))
PY
show() {
  jq -c '.exception.values[0].stacktrace.frames[0] | {abs_path, lineno,
    pre: (if has("pre_context") then (.pre_context | length) else "absent" end), context_line,
    post: (if has("post_context") then (.post_context | length) else "absent" end)}'
}
run() { ilmap symbolicate --search in --cache-dir cc "$@" 2>/dev/null; }
echo "-- no embedded source, no --source-root: no context"
run e.json | show
echo "-- --source-root: Sentry's 5 lines each side"
run --source-root /_/=src e.json >out.json; echo "exit $?"
show <out.json
jq -r '.exception.values[0].stacktrace.frames[0] | .pre_context[], .context_line, .post_context[]' out.json |
  cmp - <(sed -n '32,42p' src/Frames/Scenarios.cs) && echo "context = sed -n 32,42p Scenarios.cs"
echo "-- --context 1"
run --context 1 --source-root /_/=src e.json | show
echo "-- a modified file: no context"
printf '// changed\n' >>src/Frames/Scenarios.cs
run --source-root /_/=src e.json | show
echo "-- a forged PDB whose document reads /_/../Fr1/Scenarios.cs"
mkdir forged && python3 - "$FRAMES.pdb" forged/Ilmap.Corpus.Frames.pdb <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
at = b.find(b'\x06Frames')
assert at > 0 and b.find(b'\x06Frames', at + 1) < 0
b[at + 1:at + 7] = b'../Fr1'
open(sys.argv[2], 'wb').write(b)
PY
mkdir Fr1 && cp "$CORPUS/src/Frames/Scenarios.cs" Fr1/
ilmap symbolicate --search forged --cache-dir cf --source-root /_/=src e.json 2>/dev/null | show
ilmap symbolicate -v --search forged --cache-dir cf --source-root /_/=src e.json 2>&1 >/dev/null | grep '^ilmap: source ' | sed "s|$PWD|.|g"
echo "-- the same file through a prefix that ends at '..': found and verified"
ilmap symbolicate --search forged --cache-dir cf --source-root /_/../=. e.json 2>/dev/null | show
