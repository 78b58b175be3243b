# common.sh - sourced by every cases/*.sh (run by run-case.sh in an empty directory).
FRAMES=$CORPUS/out/cs-frames/Ilmap.Corpus.Frames
FEATURES=$CORPUS/out/cs-features/Ilmap.Corpus.Features
EMBEDDED_DLL=$CORPUS/out/cs-features-embedded/Ilmap.Corpus.FeaturesEmbedded.dll
EMBEDDED_SOURCES=$CORPUS/out/cs-embedded-sources/Ilmap.Corpus.EmbeddedSources
EMBEDDED_ALL=$CORPUS/out/cs-embedded-all/Ilmap.Corpus.EmbeddedAll
# need FILE... - skip (77) when an input is absent.
need() {
  local f
  for f in "$@"; do [[ -f $f ]] || { echo "$f not found"; exit 77; }; done
}
# frames_cache NAME - copies the frames PDB here and compiles it to NAME quietly.
frames_cache() {
  need "$FRAMES.pdb"
  cp "$FRAMES.pdb" frames.pdb
  ilmap compile -q frames.pdb -o "$1" || { echo "compile failed"; exit 1; }
}
# mtime FILE - modification time in seconds.
mtime() { stat -c %Y "$1"; }
