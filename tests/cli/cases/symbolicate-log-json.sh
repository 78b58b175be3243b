# JSON log lines: a line that is one JSON object has each string value that holds frames
# symbolicated in place, re-escaped, and every other byte kept. Real output: corpus/traces/logs/
# mel.json (Microsoft.Extensions.Logging's JSON console, the trace in "Exception", '+' and '<'
# escaped as \u002B, \u003C) and journald.json (journalctl -o json, one frame per MESSAGE). From
# documented formats, around the real trace of corpus/traces/cs-frames.il-offsets.txt:
#   Serilog compact JSON ("@x"; serilog/serilog-formatting-compact README), OpenTelemetry OTLP/JSON
#   ("exception.stacktrace" attribute; opentelemetry-proto logs + exception semantic conventions),
#   Elastic ECS ("error": {"stack_trace"}, and the dotted "error.stack_trace"), Docker's json-file
#   driver (one {"log","stream","time"} object per line; Docker docs "JSON File logging driver"),
#   also around a line of mel.json (a JSON line in a JSON string).
# check.py rebuilds each expected line independently: the input with every string token that
# holds frames replaced by the JSON of its text with the frames as the runtime printed them with
# the PDB (corpus/traces/cs-frames.lines.txt); output == that, byte for byte, and parses to the
# same keys and values. Then: a Sentry event on one line keeps Sentry's path; a JSON line with
# an "exception" string is a log line.
. "$(dirname "$0")/../common.sh"
logs=$CORPUS/traces/logs
need "$FRAMES.pdb" "$FRAMES.dll" "$logs/mel.json" "$logs/journald.json" "$CORPUS/traces/cs-frames.lines.txt"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
cp "$logs/mel.json" "$logs/journald.json" .
python3 - "$CORPUS/traces" <<'PY'
import json, sys
t = sys.argv[1]
il = open(t + "/cs-frames.il-offsets.txt").read().split("\n")
trace = "\n".join(il[il.index("== plain") + 1 : il.index("== generic-nested")])
mel = open(t + "/logs/mel.json").readline().rstrip("\n")
lines = [
    {"@t": "2026-11-24T10:00:00.1234567Z", "@mt": "Scenario {Scenario} failed", "@l": "Error", "@x": trace, "Scenario": "plain"},
    {"resourceLogs": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "app"}}]},
      "scopeLogs": [{"scope": {"name": "App.Worker"}, "logRecords": [{"timeUnixNano": "1795593600123456789",
        "severityNumber": 17, "severityText": "Error", "body": {"stringValue": "Scenario plain failed"},
        "attributes": [{"key": "exception.type", "value": {"stringValue": "Ilmap.Corpus.Frames.ScenarioException"}},
                       {"key": "exception.message", "value": {"stringValue": "plain"}},
                       {"key": "exception.stacktrace", "value": {"stringValue": trace}}]}]}]}]},
    {"@timestamp": "2026-11-24T10:00:00.123Z", "log.level": "Error", "message": "Scenario plain failed", "ecs.version": "8.11.0",
     "error": {"type": "Ilmap.Corpus.Frames.ScenarioException", "message": "plain", "stack_trace": trace}},
]
with open("documented.json", "w") as f:
    for l in lines:
        f.write(json.dumps(l, separators=(",", ":")) + "\n")
    # Written as is: spaces, a number and escapes that a JSON writer would print otherwise.
    f.write('{ "@timestamp": "2026-11-24T10:00:00.123Z", "error.stack_trace": %s, "labels": {"n": 1.50, "e": "\\u00e9\\/"} }\n'
            % json.dumps(trace))
with open("docker.json", "w") as f:
    for i, l in enumerate((trace + "\n" + mel).split("\n")):
        f.write(json.dumps({"log": l + "\n", "stream": "stderr", "time": "2026-11-24T10:00:00.%09dZ" % (i * 1234567)},
                           separators=(",", ":")) + "\n")
PY
cat >check.py <<'PY'
import json, re, sys
t, inp, out = sys.argv[1:4]
il = open(t + "/cs-frames.il-offsets.txt").read().split("\n")
ok = open(t + "/cs-frames.lines.txt").read().split("\n")
fix = {a.strip(): b.strip() for a, b in zip(il, ok) if a != b and "Ilmap.Corpus.Frames.dll:token" in a}
def text(s):  # a string's text with its frames as the runtime printed them with the PDB
    parts = []
    for l in s.split("\n"):
        try:
            obj = json.loads(l) if l.startswith("{") else None
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            parts.append(line(l)); continue
        for k, v in fix.items():
            l = l.replace(k, v)
        parts.append(l)
    return "\n".join(parts)
def line(l):  # the line with each string token that changes replaced
    def sub(m):
        s = json.loads(m.group(0))
        n = text(s)
        return m.group(0) if n == s else json.dumps(n, ensure_ascii=False)
    return re.sub(r'"(?:[^"\\]|\\.)*"', sub, l)
def strings(v, acc):
    if isinstance(v, dict):
        for k, x in v.items(): acc.append(("key", k)); strings(x, acc)
    elif isinstance(v, list):
        for x in v: strings(x, acc)
    else: acc.append(("value", v))
    return acc
bad = 0
ins, outs = open(inp).read().split("\n"), open(out).read().split("\n")
for n, (a, b) in enumerate(zip(ins, outs), 1):
    if not a: continue
    if b != line(a):
        print("line %d differs from the expected bytes:\n  got  %s\n  want %s" % (n, b, line(a))); bad = 1
    x, y = strings(json.loads(a), []), strings(json.loads(b), [])
    changed = sum(1 for p, q in zip(x, y) if p != q)
    if len(x) != len(y) or any(p[0] != q[0] or (p != q and not isinstance(p[1], str)) for p, q in zip(x, y)):
        print("line %d: keys or non-string values changed" % n); bad = 1
    else:
        print("line %d: valid JSON, same keys and values but %d string%s" % (n, changed, "" if changed == 1 else "s"))
if len(ins) != len(outs): print("%d lines in, %d out" % (len(ins), len(outs))); bad = 1
sys.exit(bad)
PY
for f in mel.json journald.json documented.json docker.json; do
  echo "-- $f"
  ilmap symbolicate --search pe --cache-dir cc "$f" >"$f.out"; echo "exit $?"
  cat "$f.out"
  python3 check.py "$CORPUS/traces" "$f" "$f.out"; echo "check exit $?"
done
echo "-- a Sentry event on one line: Sentry's path"
debug_id=$(ilmap info --json pe/Ilmap.Corpus.Frames.pdb | sed -n 's/^ *"debug_id": "\([^"]*\)".*/\1/p')
printf '{"exception":{"values":[{"type":"X","stacktrace":{"frames":[{"function_id":"0xa","instruction_addr":"0x7","addr_mode":"rel:0"}]}}]},"debug_meta":{"images":[{"type":"pe_dotnet","debug_id":"%s","debug_file":"Ilmap.Corpus.Frames.pdb"}]}}\n' "$debug_id" >event.json
ilmap symbolicate --search pe --cache-dir cc event.json | grep -o '"lineno":[0-9]*'; echo "exit ${PIPESTATUS[0]}"
echo "-- a log line with an \"exception\" string: a log line"
printf '{"exception":"X: boom\\n   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7"}\n' >exception.json
ilmap symbolicate --search pe --cache-dir cc exception.json; echo "exit $?"
echo "-- a frame before a JSON object on its line, and one in it"
f='   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7'
printf '%s {"a":"b"}\n%s {"a":"x\\n%s"}\n' "$f" "$f" "$f" >mixed.json
ilmap symbolicate --search pe --cache-dir cc mixed.json; echo "exit $?"
