# lookup does not check the cache's checksum (open is O(1), documented); --verify does, before
# answering, and a failure exits 2 (issue 9 item 13). One byte of a point block flipped: the
# payload checksum no longer matches.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
printf 'x' | dd of=f.ilmap bs=1 seek=2000 conv=notrunc status=none
ilmap lookup f.ilmap 10 7 >/dev/null; echo "lookup: exit $?"
ilmap lookup f.ilmap 10 7 --verify; echo "lookup --verify: exit $?"
echo '10 7' | ilmap lookup f.ilmap --batch --verify; echo "batch --verify: exit $?"
frames_cache g.ilmap
ilmap lookup g.ilmap 10 7 --verify; echo "lookup --verify (good): exit $?"
