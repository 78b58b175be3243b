# lookup --batch while its cache is truncated to sizes that are not page multiples and
# rewritten, alternately with another cache's bytes and its own: every answer line is the
# answer of one of the two caches (the bytes at open, or the file opened again) or an error
# line; never another answer. One answer line per query.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.pdb"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
frames_cache a.ilmap
cp "$FEATURES.pdb" features.pdb
ilmap compile -q features.pdb -o b.ilmap || exit 1
python3 -c '
for row in range(1, 61):
    for il in (0, 1, 7, 9, 20, 40):
        print(row, il)' >q.txt
ilmap lookup a.ilmap --batch <q.txt >ref-a.txt
ilmap lookup b.ilmap --batch <q.txt >ref-b.txt
cp a.ilmap c.ilmap
python3 -c 'import sys; sys.stdout.write(open("q.txt").read() * 1000)' >queries.txt
# The writer (perl, in one process: no window between the two steps): truncate(2) to a size
# that is not a page multiple (the caches are smaller than a page: inside the last page), then
# rewrite in place, alternately with b's bytes and a's, every 2 ms until the batch is done.
perl -e '
  my @bytes = map { local $/; open(my $f, "<", $_) or die; binmode $f; scalar <$f> } ("b.ilmap", "a.ilmap");
  my $size = length $bytes[1];
  for (my $i = 1; !-e "done" && $i < 100000; $i++) {
    truncate("c.ilmap", $size - ($i * 173) % ($size - 1)) or die "truncate: $!";
    open(my $f, "+<", "c.ilmap") or die "open: $!";
    binmode $f;
    print $f $bytes[$i % 2];
    truncate($f, length $bytes[$i % 2]);
    close $f;
    open(my $r, ">", "rounds.txt"); print $r $i; close $r;
    select(undef, undef, undef, 0.002);
  }' &
writer=$!
for _ in $(seq 1 200); do [[ -s rounds.txt ]] && break; sleep 0.05; done
# The open itself may meet the file truncated (the writer descheduled between its two steps on a
# busy machine): then nothing is answered (exit 2), and the batch is run again, at most 20 times.
for attempt in $(seq 1 20); do
  ilmap lookup c.ilmap --batch <queries.txt >out.txt 2>err.txt
  rc=$?
  [[ $rc -eq 2 && ! -s out.txt ]] || break
done
echo "exit $rc (0, or 2 when some query met a truncated file)" | sed 's/^exit [02] /exit 0 or 2 /'
touch done
wait "$writer"
python3 - <<'PY'
q = open("q.txt").read().splitlines()
a = open("ref-a.txt").read().splitlines()
b = open("ref-b.txt").read().splitlines()
out = open("out.txt").read().splitlines()
print("answer lines: one per query" if len(out) == 1000 * len(q) else "%d for %d queries" % (len(out), 1000 * len(q)))
wrong = [(i, l) for i, l in enumerate(out) if l != a[i % len(q)] and l != b[i % len(q)] and not l.startswith("error: ")]
print("wrong answers:", len(wrong))
for i, l in wrong[:3]:
    print("  query %r: %r (a: %r, b: %r)" % (q[i % len(q)], l, a[i % len(q)], b[i % len(q)]))
print("answers differ between the caches:", sum(x != y for x, y in zip(a, b)) > 100)
PY
