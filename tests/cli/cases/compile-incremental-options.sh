# "Up to date" must take --embed-sources into account: a cache built without the PDB's
# embedded sources is not up to date for a run that asks for them, and a cache that holds them
# is not what a run without the flag would write (same input, same bytes). A PDB without
# embedded sources gives the same bytes either way, so it stays up to date.
. "$(dirname "$0")/../common.sh"
need "$EMBEDDED_SOURCES.pdb" "$FRAMES.pdb"
cp "$EMBEDDED_SOURCES.pdb" es.pdb
ilmap compile -q es.pdb -o plain.ilmap; echo "exit $?"
ilmap compile -q es.pdb --embed-sources -o embedded.ilmap; echo "exit $?"
cmp -s plain.ilmap embedded.ilmap || echo "--embed-sources changes the bytes"
cp plain.ilmap es.ilmap
ilmap compile es.pdb --embed-sources | sed -E 's/, [0-9]+ bytes, [0-9.]+ bytes\/point\)/, N bytes, N bytes\/point)/'; echo "exit $?"
cmp es.ilmap embedded.ilmap && echo "now holds the embedded sources"
ilmap compile es.pdb --embed-sources; echo "exit $?"
ilmap compile es.pdb | sed -E 's/, [0-9]+ bytes, [0-9.]+ bytes\/point\)/, N bytes, N bytes\/point)/'; echo "exit $?"
cmp es.ilmap plain.ilmap && echo "embedded sources dropped again"
# Without embedded sources in the PDB the flag changes nothing: up to date both ways.
cp "$FRAMES.pdb" f.pdb
ilmap compile -q f.pdb; echo "exit $?"
ilmap compile f.pdb --embed-sources; echo "exit $?"
ilmap compile f.pdb; echo "exit $?"
