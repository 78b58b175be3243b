# An up-to-date cache is not rebuilt: same bytes, same mtime; --force rebuilds; a changed
# input rebuilds.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb"
cp "$FRAMES.pdb" app.pdb
ilmap compile app.pdb; echo "exit $?"
cp app.ilmap first.ilmap
touch -d '2001-02-03 04:05:06' app.ilmap
ilmap compile app.pdb; echo "exit $?"
cmp app.ilmap first.ilmap && echo "bytes unchanged"
[[ $(mtime app.ilmap) == $(date -d '2001-02-03 04:05:06' +%s) ]] && echo "mtime unchanged"
ilmap compile app.pdb --force; echo "exit $?"
cmp app.ilmap first.ilmap && echo "bytes identical after --force"
[[ $(mtime app.ilmap) != $(date -d '2001-02-03 04:05:06' +%s) ]] && echo "rewritten by --force"
# A different input under the same name is not up to date.
cp "$FEATURES.pdb" app.pdb
touch -d '2001-02-03 04:05:06' app.ilmap
ilmap compile -q app.pdb; echo "exit $?"
[[ $(mtime app.ilmap) != $(date -d '2001-02-03 04:05:06' +%s) ]] && echo "rebuilt after the input changed"
cmp -s app.ilmap first.ilmap || echo "new bytes"
