#!/usr/bin/env bash
# The main job on a bundled example: install dependencies, build, compile a corpus PDB into a
# cache, and resolve a stack frame recorded from the .NET runtime through that cache.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Only the program: the full build (scripts/build.sh, every test and benchmark) takes minutes.
# Same folder and settings as scripts/build.sh release, so scripts/test.sh reuses this build.
werror=OFF
if [[ "${CI:-}" == "true" ]]; then werror=ON; fi
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DILMAP_WERROR="$werror" >/dev/null
cmake --build build/release -j"${ILMAP_JOBS:-2}" --target ilmap
ilmap=build/release/tools/ilmap
mkdir -p build/demo
pdb=corpus/out/cs-frames/Ilmap.Corpus.Frames.pdb
cache=build/demo/Ilmap.Corpus.Frames.ilmap
echo "== compile $pdb"
"$ilmap" compile "$pdb" -o "$cache" --force
echo "== info"
"$ilmap" info "$cache" | grep -E '^(debug_id|sequence_points|bytes_per_sequence_point|file_size):'
# The first frame the .NET runtime recorded (corpus/runtime-frames.tsv): token and IL offset.
read -r _ _ _ token il file line column method < <(grep -v '^#' corpus/runtime-frames.tsv | head -n 1)
echo "== lookup $token +$il  ($method; the runtime said $file:$line:$column)"
"$ilmap" lookup "$cache" "$token" "$il"
echo "== the method, as the runtime prints it (names stored because the DLL beside the PDB names it)"
"$ilmap" dump --methods "$cache" | grep "^$token"
# A whole trace, as a crash reporter holds it: recorded from the .NET runtime with the PDB absent
# and ShowILOffsets on (corpus/traces/record.sh). symbolicate finds the module in the search path,
# compiles its cache once (here into build/demo/symbol-cache) and writes the trace back with lines;
# the frames of the recording program itself (Ilmap.Trace.exe, not searched) stay as they were.
trace=corpus/traces/cs-frames.il-offsets.txt
echo "== a real trace, as recorded (first scenario)"
sed -n '1,/^== generic/p' "$trace" | sed '$d'
echo "== ilmap symbolicate --search corpus/out/cs-frames $trace"
"$ilmap" symbolicate --search corpus/out/cs-frames --cache-dir build/demo/symbol-cache "$trace" >build/demo/trace.txt
sed -n '1,/^== generic/p' build/demo/trace.txt | sed '$d'
