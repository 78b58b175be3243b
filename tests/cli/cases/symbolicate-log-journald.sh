# Frames behind journald's prefixes, from real output: corpus/traces/logs/journald.short*.txt are
# a recorded CoreCLR trace (corpus/traces/cs-frames.il-offsets.txt) sent through systemd-cat and read
# back with journalctl -o short and -o short-iso (corpus/traces/record-logs.sh). Every frame of
# Ilmap.Corpus.Frames resolves with the prefix kept byte for byte; the recorder's own frames
# (Ilmap.Trace.exe, not searched) stay as they were. Then a ProductionStackTrace block and Mono
# frames behind the same prefix (their formats as options.sh has them).
. "$(dirname "$0")/../common.sh"
logs=$CORPUS/traces/logs
need "$FRAMES.pdb" "$FRAMES.dll" "$logs/journald.short.txt" "$logs/journald.short-iso.txt"
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
for f in journald.short.txt journald.short-iso.txt; do
  echo "-- $f"
  ilmap symbolicate --search pe --cache-dir cc "$logs/$f"; echo "exit $?"
done
echo "-- ProductionStackTrace and Mono behind the prefix"
prefix=$(sed -n '1s/== plain$//p' "$logs/journald.short.txt")
guid=$(ilmap info --json pe/Ilmap.Corpus.Frames.dll | sed -n 's/^ *"codeview_guid": "\([0-9a-f-]*\)".*/\1/p')
mvid=$(ilmap info --json pe/Ilmap.Corpus.Frames.dll | sed -n 's/^ *"mvid": "\([0-9a-f-]*\)".*/\1/p' | tr -d -)
{
  printf '%s%s\n' "$prefix" 'Ilmap.Corpus.Frames.ScenarioException: plain' \
    "$prefix" '   at Ilmap.Corpus.Frames!0x0600000a!Ilmap.Corpus.Frames.Scenarios.Fail(String why) +0x7' \
    "$prefix" '   at Ilmap.Corpus.Frames!0x06000014!Ilmap.Corpus.Frames.Plain.Level2(Int32 y) +0x9' \
    "$prefix" '==========' \
    "$prefix" "MODULE: Ilmap.Corpus.Frames => Ilmap.Corpus.Frames, Version=1.0.0.0; G:$guid; A:1" \
    "$prefix" "  at Ilmap.Corpus.Frames.Plain.Level1 (System.Int32 x) [0x00005] in <$mvid>:0 "
} >pst.txt
ilmap symbolicate --search pe --cache-dir cc pst.txt | sed "s/$mvid/<MVID>/"; echo "exit ${PIPESTATUS[0]}"
