# fetch of many modules with 8 threads: the same answers, in input order, as with 1; each
# module fetched once (its cache); the local cache verifies.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
[[ -d $CORPUS/out ]] || { echo "corpus/out not found"; exit 77; }
ilmap store add www "$CORPUS/out" >/dev/null; echo "store add exit $?"
start_nginx "$PWD/www"
mkdir pe && cp "$CORPUS"/out/*/*.dll pe/
n=$(ls pe | wc -l)
(( n >= 10 )) && echo "10+ modules"
ilmap fetch -j 8 --symbol-path "srv*c8*$URL" pe/*.dll >out8; echo "exit $?"
ilmap fetch -j 1 --symbol-path "srv*c1*$URL" pe/*.dll >out1; echo "exit $?"
sed 's#\tc8/#\tC/#' out8 >a; sed 's#\tc1/#\tC/#' out1 >b
cmp a b && echo "same answers"
[[ $(wc -l <out8) -eq $n ]] && echo "one answer per module"
[[ $(grep -c ' 200 ' "$NGINX_LOG") -eq $((2 * n)) ]] && echo "each module fetched once per run"
ilmap store verify c8 | sed "s/ $n caches / N caches /"; echo "exit ${PIPESTATUS[0]}"
