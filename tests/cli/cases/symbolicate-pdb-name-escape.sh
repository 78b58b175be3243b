# symbolicate with PEs whose CodeView entry names the PDB "..", "/_/x/.." or "C:\a\.." (and one
# with an embedded PDB): such a name makes no valid cache key, so nothing is compiled, read or
# written for it: the frames stay as they were with the reason "unusable PDB name" (exit 3), and
# nothing appears beside the cache directory (the key "../<guid>FFFFFFFF/.." would have put the
# cache at CACHE/../<guid>FFFFFFFF/..ilmap).
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$EMBEDDED_DLL"
command -v python3 >/dev/null || { echo "python3 not found (patches the PE)"; exit 77; }
# patch IN OUT NAME - copies the PE with its CodeView PDB path replaced by NAME (NUL-padded).
patch() {
  python3 - "$@" <<'PY'
import sys
src, dst, name = sys.argv[1], sys.argv[2], sys.argv[3].encode()
b = bytearray(open(src, "rb").read())
at = b.find(b"RSDS")
end = b.index(b"\0", at + 24)
assert at > 0 and len(name) <= end - (at + 24)
b[at + 24:end] = name + b"\0" * (end - (at + 24) - len(name))
open(dst, "wb").write(b)
PY
}
frame='   at Ilmap.Corpus.Frames.Scenarios.Fail(String why) in Ilmap.Corpus.Frames.dll:token 0x600000a+0x7'
n=0
for name in '..' '/_/x/..' 'C:\a\..'; do
  n=$((n + 1))
  echo "-- CodeView name $name"
  mkdir -p box$n/pe
  cp "$FRAMES.pdb" box$n/pe/
  patch "$FRAMES.dll" box$n/pe/Ilmap.Corpus.Frames.dll "$name"
  printf '%s\n' "$frame" >trace.txt
  ilmap symbolicate --search box$n/pe --cache-dir box$n/cc --json trace.txt 2>/dev/null | grep -o '"reason":"[^"]*"'
  echo "exit ${PIPESTATUS[0]}"
  ilmap symbolicate --search box$n/pe --cache-dir box$n/cc trace.txt 2>&1 >/dev/null
  ls -A box$n
  find box$n/cc -type f 2>/dev/null | wc -l
done
echo "-- an embedded PDB, CodeView name .."
mkdir -p box4/pe
patch "$EMBEDDED_DLL" box4/pe/Ilmap.Corpus.FeaturesEmbedded.dll '..'
printf '%s\n' '   at X.Y() in Ilmap.Corpus.FeaturesEmbedded.dll:token 0x6000001+0x0' >trace.txt
ilmap symbolicate --search box4/pe --cache-dir box4/cc -v trace.txt 2>&1 >/dev/null | sed -E 's/[0-9a-fA-F]{32}FFFFFFFF/<ID>/g'
echo "exit ${PIPESTATUS[0]}"
ls -A box4
find box4/cc -type f 2>/dev/null | wc -l
