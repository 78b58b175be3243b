# A DLL records the absolute path of its PDB (the build's obj/ folder) in its CodeView entry,
# and symbolicate reads the PDB there when it exists (docs/usage.md "Finding the PDB of a PE").
# When that file lies outside the search folders, the summary says so, not only -v
# (docs/symbolicate.md "PDBs outside the search folders"): the user must know a frame was
# answered from a file they did not point at. The corpus DLL records
# /_/build/obj/Frames/Release/net10.0/Ilmap.Corpus.Frames.pdb (a path map of the build); the
# case points that entry at an obj/ folder here, as a build on this machine would have written it.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
trace=$CORPUS/traces/cs-frames.il-offsets.txt
need "$trace"
mkdir bin obj
cp "$FRAMES.dll" bin/
cp "$FRAMES.pdb" obj/
pdb=$PWD/obj/Ilmap.Corpus.Frames.pdb
python3 - bin/Ilmap.Corpus.Frames.dll "$pdb" <<'PY' || exit 1
import sys
path, new = sys.argv[1], sys.argv[2].encode()
old = b'/_/build/obj/Frames/Release/net10.0/Ilmap.Corpus.Frames.pdb'
b = bytearray(open(path, 'rb').read())
at = b.find(old + b'\0')
if at < 0 or b.find(old + b'\0', at + 1) >= 0:
    raise SystemExit('the CodeView path is not there once')
if len(new) > len(old):
    print('SKIP: the temporary directory path is too long to record in the DLL'); sys.exit(77)
b[at:at + len(old)] = new + b'\0' * (len(old) - len(new))
open(path, 'wb').write(b)
PY
[[ $? -eq 77 ]] && exit 77
sed -n '1,7p' "$trace" >plain.txt
run() { ilmap symbolicate "$@" plain.txt; }  # CACHE_DIR first
here() { sed "s|$PWD|.|g"; }
echo "-- the PDB is read from obj/, outside --search bin"
run --cache-dir cc --search bin 2>&1 >/dev/null | here
echo "-- the cache compiled from it is reused: said again"
run --cache-dir cc --search bin 2>&1 >/dev/null | here
echo "-- -v names the read too"
run --cache-dir cc2 --search bin -v 2>&1 >/dev/null | grep 'outside' | here
echo "-- --json: pdb_outside_search on each frame it resolved"
sed -n 3p plain.txt | ilmap symbolicate --cache-dir cc --search bin --json 2>/dev/null | jq -r .pdb_outside_search | here
echo "-- obj/ searched too: nothing to say"
run --cache-dir cc --search bin --search obj 2>&1 >/dev/null
run --cache-dir cc --search . 2>&1 >/dev/null
echo "-- a PDB beside the DLL as well: the recorded path is still read first"
cp "$FRAMES.pdb" bin/
run --cache-dir cc3 --search bin 2>&1 >/dev/null | here
echo "-- obj/ gone: the PDB beside the DLL, nothing to say"
mv obj obj.gone
run --cache-dir cc4 --search bin 2>&1 >/dev/null
echo "-- obj/ gone and none beside: unresolved, nothing to say"
rm bin/Ilmap.Corpus.Frames.pdb
run --cache-dir cc5 --search bin 2>&1 >/dev/null
echo "exit $?"
