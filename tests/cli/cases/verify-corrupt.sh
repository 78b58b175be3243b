# verify: a flipped payload byte (checksum), a truncated file, a PDB given as a cache; exit 2
# (the worst), and sound caches in the same run are still reported ok.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
cp f.ilmap flipped.ilmap
size=$(stat -c %s f.ilmap)
# Flip the last byte before the tail: inside the payload, past the FlatBuffers tables.
printf '\x55' | dd of=flipped.ilmap bs=1 seek=$((size - 40)) conv=notrunc status=none
cmp -s f.ilmap flipped.ilmap || echo "flipped one byte"
head -c 100 f.ilmap >truncated.ilmap
ilmap verify flipped.ilmap; echo "exit $?"
ilmap verify truncated.ilmap; echo "exit $?"
ilmap verify frames.pdb; echo "exit $?"
ilmap verify f.ilmap flipped.ilmap
