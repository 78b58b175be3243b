# Output names of 245..255 bytes work (issue 9 item 5): the temporary name is shortened to
# ".ilmap-tmp-HASH-XXXXXX" when "<name>.tmp-XXXXXX" would not fit in NAME_MAX (255); no
# temporary file remains. 256 bytes is over the file system's limit: a clear error, exit 2.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb"
cp "$FRAMES.pdb" app.pdb
ilmap compile -q app.pdb -o ref.ilmap
for len in 240 244 245 250 255; do
  name=$(printf 'n%.0s' $(seq $((len - 6)))).ilmap
  ilmap compile -q app.pdb -o "$name"; echo "$len bytes: exit $?"
  cmp "$name" ref.ilmap && echo "$len bytes: same cache"
  rm -f "$name"
done
name=$(printf 'n%.0s' $(seq 250)).ilmap
ilmap compile -q app.pdb -o "$name" 2>&1 | sed -E 's/n{250}/N250/'; echo "256 bytes: exit ${PIPESTATUS[0]}"
ls -A
