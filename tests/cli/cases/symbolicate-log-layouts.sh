# Frames in a logger's layout (timestamp, level, category, message), from real output:
# corpus/traces/logs/mel.*.txt are CoreCLR exceptions (Ilmap.Corpus.Frames without its PDB,
# ShowILOffsets on) logged by Microsoft.Extensions.Logging's console formatters
# (corpus/traces/record-logs.sh): the simple layout (the trace indented under the entry), its
# single-line form and the systemd one ("<3>" priority; both join the trace's lines with spaces, so
# every frame of a line is found and the text between them kept). The recorder's own frame already
# has its line (its PDB was there) and is counted so.
. "$(dirname "$0")/../common.sh"
logs=$CORPUS/traces/logs
need "$FRAMES.pdb" "$FRAMES.dll" "$logs/mel.simple.txt" "$logs/mel.single-line.txt" "$logs/mel.systemd.txt"
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
for f in mel.simple.txt mel.single-line.txt mel.systemd.txt; do
  echo "-- $f"
  ilmap symbolicate --search pe --cache-dir cc "$logs/$f"; echo "exit $?"
done
