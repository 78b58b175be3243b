# The up-to-date check does not trust a corrupt cache (issue 9 item 17): with one flipped byte
# the cache fails verify, so compile rebuilds it instead of saying "up to date".
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb"
mask() { sed -E 's/, [0-9]+ bytes, [0-9.]+ bytes\/point\)/, N bytes, N bytes\/point)/'; }
# flip FILE OFFSET: inverts the low bit of one byte.
flip() {
  local b
  b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf %03o $((b ^ 1)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
cp "$FRAMES.pdb" app.pdb
ilmap compile -q app.pdb; echo "exit $?"
cp app.ilmap good.ilmap
size=$(stat -c %s app.ilmap)
for off in $((size - 1)) $((size / 2)) 20; do
  flip app.ilmap $off
  cmp -s app.ilmap good.ilmap || echo "byte flipped"
  ilmap verify app.ilmap >/dev/null 2>&1; echo "verify: exit $?"
  ilmap compile app.pdb | mask; echo "exit ${PIPESTATUS[0]}"
  cmp app.ilmap good.ilmap && echo "rebuilt"
done
ilmap compile app.pdb; echo "exit $?"
