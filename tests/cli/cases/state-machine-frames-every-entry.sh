# One state-machine fallback rule (SPEC.md 6.4, Cache::lookup_frame) at every entry point: the
# async and iterator frames CoreCLR printed (corpus/traces/cs-frames.il-offsets.txt: the kickoff
# method's token with MoveNext's IL offset) get the line the runtime printed with the PDB
# present (corpus/runtime-frames.tsv) from `ilmap lookup`, `ilmap symbolicate` (a trace and a
# Sentry event), `ilmap serve` (GET /lookup, POST /symbolicate with the trace and with the
# event) and the C API (ilmap_locate_frame, through python3's ctypes and $ILMAP_LIB). Before the
# rule was one function, a Sentry event (CLI and serve) left these frames without a line. The
# event's image names the DLL (code_file): the fallback needs the method names, which a cache
# has when compiled with its PE.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.dll" "$FRAMES.pdb" "$CORPUS/traces/cs-frames.il-offsets.txt" "$CORPUS/runtime-frames.tsv"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
[ -n "$ILMAP_LIB" ] && [ -f "$ILMAP_LIB" ] || { echo "SKIP: no ILMAP_LIB (libilmap.so not built, or a sanitizer build, whose library cannot be loaded into python3)"; exit 77; }
mkdir in && cp "$FRAMES.dll" "$FRAMES.pdb" in/
# The async and iterator frames of the Frames assembly: scenario, frame index, token, offset, text.
awk '/^== /{s=$2; n=0; next} /^   at /{ if ((s == "async" || s == "iterator") &&
       match($0, /Ilmap\.Corpus\.Frames\.dll:token 0x[0-9a-f]+\+0x[0-9a-f]+/)) {
       split(substr($0, RSTART+30, RLENGTH-30), a, /[+]/); print s "\t" n "\t" a[1] "\t" a[2] "\t" $0 } n++ }' \
  "$CORPUS/traces/cs-frames.il-offsets.txt" > frames.tsv
id=$(ilmap info --json in/Ilmap.Corpus.Frames.pdb | python3 -c 'import json, sys; print(json.load(sys.stdin)["debug_id"])')
python3 - "$id" frames.tsv > event.json <<'PY'
import json, sys
frames = [{"function_id": hex(int(l.split("\t")[2], 16) & 0xFFFFFF), "instruction_addr": l.split("\t")[3],
           "addr_mode": "rel:0"} for l in open(sys.argv[2])]
print(json.dumps({"exception": {"values": [{"stacktrace": {"frames": frames}}]},
                  "debug_meta": {"images": [{"type": "pe_dotnet", "code_file": "Ilmap.Corpus.Frames.dll"}]}}))
PY
cut -f5 frames.tsv > trace.txt
ilmap compile in/Ilmap.Corpus.Frames.dll -o frames.ilmap >/dev/null || echo "compile failed"
# Each entry point's answers, one "file:line:column" (or "none") a line, in frames.tsv's order.
cut -f3,4 frames.tsv | tr '\t' ' ' | ilmap lookup frames.ilmap > lookup.txt
ilmap symbolicate --search in --cache-dir cc < trace.txt 2>/dev/null | sed -E 's/.* in ([^:]*):line ([0-9]+)$/\1:\2/' > symbolicate.txt
ilmap symbolicate --search in --cache-dir cc event.json > event.out.json 2>/dev/null
python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["exception"]["values"][0]["stacktrace"]["frames"]:
    print("%s:%s" % (f["abs_path"], f["lineno"]) if "lineno" in f else "none")' event.out.json > sentry.txt
ilmap serve --port 0 --search in --cache-dir cc 2> serve.log &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null' EXIT
for i in $(seq 100); do grep -q listening serve.log && break; sleep 0.1; done
url=$(sed -nE 's/^ilmap serve: listening on (http:[^ ]*)$/\1/p' serve.log)
while IFS=$'\t' read -r s n tok il text; do
  python3 -c 'import json, sys, urllib.request
a = json.load(urllib.request.urlopen(sys.argv[1]))
print("%s:%s:%s" % (a["file"], a["line"], a["column"]) if a.get("line") else "none")' \
    "$url/lookup/$id/$tok/$il"
done < frames.tsv > serve-lookup.txt
python3 -c 'import sys, urllib.request
r = urllib.request.Request(sys.argv[1] + "/symbolicate", data=open("trace.txt", "rb").read(),
                           headers={"Content-Type": "text/plain"})
sys.stdout.write(urllib.request.urlopen(r).read().decode())' "$url" |
  sed -E 's/.* in ([^:]*):line ([0-9]+)$/\1:\2/' > serve-symbolicate.txt
python3 -c 'import json, sys, urllib.request
r = urllib.request.Request(sys.argv[1] + "/symbolicate", data=open("event.json", "rb").read(),
                           headers={"Content-Type": "application/json"})
for f in json.load(urllib.request.urlopen(r))["exception"]["values"][0]["stacktrace"]["frames"]:
    print("%s:%s" % (f["abs_path"], f["lineno"]) if "lineno" in f else "none")' "$url" > serve-sentry.txt
python3 - "$ILMAP_LIB" frames.ilmap frames.tsv > capi.txt <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
class Loc(ctypes.Structure):
    _fields_ = [("file", ctypes.c_void_p), ("file_len", ctypes.c_size_t), ("url", ctypes.c_void_p),
                ("url_len", ctypes.c_size_t), ("language", ctypes.c_char_p), ("line", ctypes.c_uint32),
                ("column", ctypes.c_uint32), ("end_line", ctypes.c_uint32), ("end_column", ctypes.c_uint32),
                ("il_offset", ctypes.c_uint32)]
lib.ilmap_open.restype = ctypes.c_void_p
lib.ilmap_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.c_size_t]
lib.ilmap_locate_frame.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_char_p,
                                   ctypes.c_size_t, ctypes.POINTER(Loc), ctypes.POINTER(ctypes.c_uint32)]
err = ctypes.c_int()
cache = lib.ilmap_open(sys.argv[2].encode(), ctypes.byref(err), None, 0)
for l in open(sys.argv[3]):
    s, n, tok, il, text = l.rstrip("\n").split("\t")
    printed = text.split("   at ", 1)[1].split(" in ", 1)[0].encode()
    loc, via = Loc(), ctypes.c_uint32()
    rc = lib.ilmap_locate_frame(cache, int(tok, 16), int(il, 16), printed, len(printed), ctypes.byref(loc),
                                ctypes.byref(via))
    print("%s:%d:%d" % (ctypes.string_at(loc.file, loc.file_len).decode(), loc.line, loc.column) if rc == 0 else "none")
PY
kill $serve_pid 2>/dev/null
# The runtime's line of each frame, then every entry point's answer beside it.
awk -F'\t' 'NR==FNR { if ($1 !~ /^#/) want[$1 "\t" $2] = $6 ":" $7 ":" $8; next } { print want[$1 "\t" $2] }' \
  "$CORPUS/runtime-frames.tsv" frames.tsv > runtime.txt
cut -d: -f1,2 runtime.txt > runtime-lines.txt
for e in lookup serve-lookup capi; do
  paste <(cut -f1-4 frames.tsv) runtime.txt $e.txt | awk -F'\t' -v e=$e '{ print e, $1, $3 "+" $4 ": " ($5 == $6 ? "as the runtime" : "DIFFERS: " $6 ", runtime " $5) }'
done
for e in symbolicate serve-symbolicate sentry serve-sentry; do
  paste <(cut -f1-4 frames.tsv) runtime-lines.txt $e.txt | awk -F'\t' -v e=$e '{ print e, $1, $3 "+" $4 ": " ($5 == $6 ? "as the runtime" : "DIFFERS: " $6 ", runtime " $5) }'
done
