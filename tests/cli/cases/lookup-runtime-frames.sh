# lookup of the frames CoreCLR printed (corpus/traces/cs-frames.il-offsets.txt: token and IL offset,
# ShowILOffsets) gives the line the same runtime printed with the PDB present
# (corpus/runtime-frames.tsv), async and iterator frames included: CoreCLR prints their kickoff
# method's token with MoveNext's IL offset. The DLL is given directly (compiled into the cache
# directory), and --functions names each method.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.dll" "$FRAMES.pdb" "$CORPUS/traces/cs-frames.il-offsets.txt" "$CORPUS/runtime-frames.tsv"
cp "$FRAMES.dll" "$FRAMES.pdb" .
# scenario, frame index, token, offset of each frame of the Frames assembly, in trace order.
awk '/^== /{s=$2; n=0; next} /^   at /{ if (match($0, /Ilmap\.Corpus\.Frames\.dll:token 0x[0-9a-f]+\+0x[0-9a-f]+/)) {
       split(substr($0, RSTART+30, RLENGTH-30), a, /[+]/); print s "\t" n "\t" a[1] "\t" a[2] } n++ }' \
  "$CORPUS/traces/cs-frames.il-offsets.txt" > frames.tsv
cut -f3,4 frames.tsv | tr '\t' ' ' | ilmap lookup Ilmap.Corpus.Frames.dll --functions > answers.txt
echo "lookup exit $?"
paste <(cut -f1,2 frames.tsv) <(paste -d'\t' - - < answers.txt) > ours.tsv
# ours: scenario frame function file:line:column; the runtime's: scenario frame ... file line column
awk -F'\t' 'NR==FNR { if ($1 !~ /^#/) want[$1 "\t" $2] = $6 ":" $7 ":" $8; next }
  { k = $1 "\t" $2; n++
    if (!(k in want)) { print "no runtime line for " k; bad++; next }
    if (want[k] != $4) { print "DIFFERS " k ": ilmap " $4 ", runtime " want[k]; bad++ } }
  END { print n " frames, " n - bad " as the runtime printed them" }' "$CORPUS/runtime-frames.tsv" ours.tsv
echo "-- the async and iterator frames, as answered:"
grep -E '^(async|iterator)' ours.tsv
echo "-- a cache was compiled into the default cache directory:"
find "$XDG_CACHE_HOME/ilmap" -name '*.ilmap' | sed "s|^$XDG_CACHE_HOME/||"
echo "-- --json names the state-machine method that answered:"
ilmap lookup Ilmap.Corpus.Frames.dll 0x6000017 0x7b --json
