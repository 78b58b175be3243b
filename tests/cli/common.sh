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
# shrink SIZE FILE - truncate(2) FILE to SIZE bytes. coreutils truncate opens the file with
# O_NONBLOCK, which a reader's read lease (docs/library.md "Files changed while open") answers with
# EWOULDBLOCK once while it releases the lease; truncate(2) by path waits for the release.
shrink() { perl -e 'truncate($ARGV[1], $ARGV[0]) or die "truncate $ARGV[1]: $!\n"' "$1" "$2"; }
