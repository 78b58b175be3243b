#!/bin/bash
# sentry-cli.sh REPO_ROOT ILMAP - `ilmap symbolicate` on Sentry events and envelopes (JSON input):
# every Ilmap.Corpus.Frames frame the .NET runtime recorded in corpus/runtime-frames.tsv is put in
# an event as the Sentry .NET SDK sends it (function_id = MethodDef row, instruction_addr = IL
# offset, addr_mode rel:N into debug_meta.images, debug_id of the PDB), and the symbolicated
# event must carry the runtime's own file, line and column for each (no lineno where the runtime
# had none). A frame whose image names another PDB id is left untouched (never answered from the
# wrong PDB); debug ids without dashes (upper case) name the same PDB; an envelope on standard
# input and a trace-text file in the same run both resolve.
# Exit 0 ok, 1 failure, 77 the corpus or python3 is absent.
set -u
export LC_ALL=C
root=$1 ilmap=$2
dir=$root/corpus/out/cs-frames
tsv=$root/corpus/runtime-frames.tsv
[ -f "$dir/Ilmap.Corpus.Frames.dll" ] && [ -f "$tsv" ] || { echo "SKIP: corpus absent"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 absent"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-sym-sentry.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$ilmap" info --json "$dir/Ilmap.Corpus.Frames.pdb" >"$tmp/info.json" || { echo "FAIL info"; exit 1; }
python3 - "$tmp" "$tsv" <<'PY' || exit 1
import csv, json, sys
tmp, tsv = sys.argv[1], sys.argv[2]
info = json.load(open(tmp + "/info.json"))
debug_id = info["debug_id"]
# Same GUID, another stamp: a PDB that does not match the module the event names.
wrong_id = debug_id[:-8] + ("00000001" if debug_id[-8:] != "00000001" else "00000002")
rows = [r for r in csv.DictReader(open(tsv), delimiter="\t") if r["#scenario"] is not None and r["assembly"] == "Ilmap.Corpus.Frames"]
frames, want = [], []
for r in rows:
    token = int(r["token"], 16)
    frames.append({"function": r["method"], "function_id": hex(token & 0xFFFFFF),
                   "instruction_addr": hex(int(r["il_offset"])), "addr_mode": "rel:0", "in_app": True})
    want.append((r["file"], int(r["line"] or 0), int(r["column"] or 0)))
frames.append({"function": "Other", "function_id": "0xa", "instruction_addr": "0x7", "addr_mode": "rel:1"})
event = {"event_id": "0" * 32, "platform": "csharp",
         "exception": {"values": [{"type": "System.Exception", "stacktrace": {"frames": frames}}]},
         "debug_meta": {"images": [
             {"type": "pe_dotnet", "debug_id": debug_id, "debug_file": "Ilmap.Corpus.Frames.pdb",
              "code_file": "/app/Ilmap.Corpus.Frames.dll"},
             {"type": "pe_dotnet", "debug_id": wrong_id, "debug_file": "Ilmap.Corpus.Frames.pdb",
              "code_file": "/app/Ilmap.Corpus.Frames.dll"}]}}
json.dump(event, open(tmp + "/event.json", "w"))
# The same event with its debug ids without dashes, in upper case (Sentry accepts both forms).
for image in event["debug_meta"]["images"]:
    image["debug_id"] = image["debug_id"].replace("-", "").upper()
json.dump(event, open(tmp + "/event-nodash.json", "w"))
json.dump(want, open(tmp + "/want.json", "w"))
payload = json.dumps(event)
with open(tmp + "/envelope", "w") as f:
    f.write('{"event_id":"' + "0" * 32 + '"}\n')
    f.write('{"type":"attachment","length":5}\nhello\n')
    f.write('{"type":"event","length":%d}\n%s\n' % (len(payload.encode()), payload))
PY
[ -s "$tmp/event.json" ] || { echo "FAIL: no event made"; exit 1; }
printf '%s\n' '   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7' >"$tmp/trace.txt"

fail=0
"$ilmap" symbolicate --search "$dir" --cache-dir "$tmp/cache" "$tmp/event.json" >"$tmp/out.json" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL event: exit $rc"; cat "$tmp/err"; fail=1; }
"$ilmap" symbolicate --search "$dir" --cache-dir "$tmp/cache" "$tmp/event-nodash.json" >"$tmp/out-nodash.json" 2>"$tmp/err-nodash"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL event without dashes: exit $rc"; cat "$tmp/err-nodash"; fail=1; }
"$ilmap" symbolicate --search "$dir" --cache-dir "$tmp/cache" - "$tmp/trace.txt" <"$tmp/envelope" >"$tmp/out.env" 2>"$tmp/err2"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL envelope: exit $rc"; cat "$tmp/err2"; fail=1; }

python3 - "$tmp" <<'PY' || fail=1
import json, sys
tmp = sys.argv[1]
want = json.load(open(tmp + "/want.json"))
event_in = json.load(open(tmp + "/event.json"))
def check(event, label):
    bad = 0
    frames = event["exception"]["values"][0]["stacktrace"]["frames"]
    if len(frames) != len(want) + 1:
        print("FAIL %s: %d frames, want %d" % (label, len(frames), len(want) + 1)); return 1
    for i, (f, (file, line, col)) in enumerate(zip(frames, want)):
        got = (f.get("abs_path", ""), f.get("lineno", 0), f.get("colno", 0))
        exp = (file, line, col) if line else ("", 0, 0)
        if got != exp:
            print("FAIL %s frame %d (%s+%s): got %r want %r" % (label, i, f["function_id"], f["instruction_addr"], got, exp)); bad = 1
        elif line and f.get("filename") != file.rsplit("/", 1)[-1]:
            print("FAIL %s frame %d filename %r" % (label, i, f.get("filename"))); bad = 1
    if frames[-1] != event_in["exception"]["values"][0]["stacktrace"]["frames"][-1]:
        print("FAIL %s: the frame of the mismatched image was changed: %r" % (label, frames[-1])); bad = 1
    if not bad: print("ok   %s: %d frames as the runtime printed them, the mismatched one untouched" % (label, len(want)))
    return bad
bad = check(json.load(open(tmp + "/out.json")), "event")
event_in = json.load(open(tmp + "/event-nodash.json"))
bad |= check(json.load(open(tmp + "/out-nodash.json")), "event, debug ids without dashes")
event_in = json.load(open(tmp + "/event.json"))
data = open(tmp + "/out.env", "rb").read()
lines = data.split(b"\n")
if lines[1] != b'{"type":"attachment","length":5}' or lines[2] != b"hello":
    print("FAIL envelope: the attachment item changed"); bad = 1
hdr = json.loads(lines[3]); payload = lines[4]
if hdr.get("length") != len(payload):
    print("FAIL envelope: item length %r, payload %d bytes" % (hdr.get("length"), len(payload))); bad = 1
bad |= check(json.loads(payload), "envelope")
trace_out = b"\n".join(lines[5:])
if b"   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in /_/Frames/Scenarios.cs:line 37\n" != trace_out:
    print("FAIL trace text after the envelope: %r" % trace_out); bad = 1
sys.exit(bad)
PY
grep -q "module not found\|PDB id mismatch" "$tmp/err" || { echo "FAIL: summary does not say why a frame was left"; cat "$tmp/err"; fail=1; }
grep -q "ilmap symbolicate: 1 frames, 1 resolved" "$tmp/err2" || { echo "FAIL: text summary"; cat "$tmp/err2"; fail=1; }
# A log that starts with '{' but is no Sentry event (JSON lines with a frame line among them, or
# broken JSON) is trace text: it streams through, frames resolved, exit 0.
frame='   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7'
printf '{"level":"error"}\n{"level":"info"}\n%s\n{"x": [1,\n' "$frame" >"$tmp/jsonl"
printf '{"level":"error"}\n{"level":"info"}\n%s\n{"x": [1,\n' "${frame/in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7/in \/_\/Frames\/Scenarios.cs:line 37}" >"$tmp/jsonl.want"
"$ilmap" symbolicate --search "$dir" --cache-dir "$tmp/cache" "$tmp/jsonl" >"$tmp/jsonl.out" 2>"$tmp/err3"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$tmp/jsonl.want" "$tmp/jsonl.out"; then echo "ok   JSON lines pass through as trace text"
else echo "FAIL JSON lines (exit $rc):"; cat "$tmp/jsonl.out" "$tmp/err3"; fail=1; fi
[ $fail -eq 0 ] && echo "sentry-cli: all ok"
exit $fail
