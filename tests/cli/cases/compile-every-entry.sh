# One compile recipe (compiler/CompileModule.h) at every entry point that writes a cache: `ilmap
# compile`, the C API's ilmap_compile (python3's ctypes and $ILMAP_LIB), `ilmap symbolicate`'s
# cache directory and `ilmap serve`'s (symbols/CacheDirectory.h) write the same bytes for the
# same PE and PDB. `ilmap store add` records the PDB it stores as the cache's input (so the store
# can tell the cache belongs to the PDB beside it): its cache holds the same points, documents
# and names, and differs only in the input it names and the checksums over that.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.dll" "$FRAMES.pdb" "$CORPUS/traces/cs-frames.il-offsets.txt"
mkdir in && cp "$FRAMES.dll" "$FRAMES.pdb" in/
ilmap compile in/Ilmap.Corpus.Frames.dll -o compile.ilmap > /dev/null || echo "compile failed"
grep -m 3 'Frames.dll:token' "$CORPUS/traces/cs-frames.il-offsets.txt" > trace.txt
ilmap symbolicate --search in --cache-dir symbolicate-dir < trace.txt > /dev/null 2>&1 || echo "symbolicate failed"
id=$(ilmap info --json in/Ilmap.Corpus.Frames.pdb | sed -nE 's/.*"debug_id": *"([^"]*)".*/\1/p')
ilmap serve --port 0 --search in --cache-dir serve-dir 2> serve.log &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null' EXIT
for i in $(seq 100); do grep -q listening serve.log && break; sleep 0.1; done
url=$(sed -nE 's/^ilmap serve: listening on (http:[^ ]*)$/\1/p' serve.log)
curl -sf "$url/lookup/$id/0x600000a/0x7" > serve-answer.json || echo "serve lookup failed"
kill $serve_pid 2>/dev/null
ilmap store add store in/Ilmap.Corpus.Frames.dll in/Ilmap.Corpus.Frames.pdb > /dev/null || echo "store add failed"
capi=skipped
if [ -n "$ILMAP_LIB" ] && [ -f "$ILMAP_LIB" ] && command -v python3 > /dev/null; then
  python3 - "$ILMAP_LIB" in/Ilmap.Corpus.Frames.dll capi.ilmap <<'PY' && capi=capi.ilmap
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.ilmap_compile.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_char_p, ctypes.c_size_t]
msg = ctypes.create_string_buffer(512)
rc = lib.ilmap_compile(sys.argv[2].encode(), sys.argv[3].encode(), None, None, msg, len(msg))
sys.exit("ilmap_compile: %d %s" % (rc, msg.value.decode()) if rc else 0)
PY
fi
one() { find "$1" -name '*.ilmap' | head -n 1; }
for made in "$(one symbolicate-dir)" "$(one serve-dir)"; do
  [ -n "$made" ] || { echo "a cache was not written"; continue; }
  cmp -s compile.ilmap "$made" && echo "${made%%/*}: the same bytes" || echo "${made%%/*}: DIFFERS"
done
# The C API where libilmap.so is built (not in the sanitizer build, which has no $ILMAP_LIB):
# silent when it agrees, so that the expected output is the same in both builds.
if [ "$capi" != skipped ] && ! cmp -s compile.ilmap "$capi"; then
  echo "capi.ilmap: DIFFERS"
fi
stored=$(one store)
[ -n "$stored" ] || echo "store add wrote no cache"
cmp -s <(ilmap dump --methods compile.ilmap) <(ilmap dump --methods "$stored") && echo "store: the same listing" || echo "store: another listing"
# info: everything but the file read, the input recorded and the checksums over it.
strip() { ilmap info "$1" | grep -vE '^(input|source_name|source_size|source_xxh3|payload_xxh3):'; }
cmp -s <(strip compile.ilmap) <(strip "$stored") && echo "store: the same identity" || echo "store: another identity"
ilmap info "$stored" | sed -nE 's/^(source_name): *(.*)$/store records \1 \2/p'
grep -q '"line"' serve-answer.json && echo "serve answered the lookup" || echo "serve did not answer"
