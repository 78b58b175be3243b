# fetch from a store served over HTTPS by nginx, with a certificate of a CA made by the test
# (tests/cli/nginx.sh make_test_ca): with SSL_CERT_FILE naming that CA's PEM file the cache is
# downloaded and answers; without it the system's CAs do not know the server, so fetch fails
# with libcurl's verdict and leaves nothing behind; SSL_CERT_FILE naming no file is said so
# (and plain http is not concerned by it).
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
make_test_ca tls
mkdir in pe && cp "$FRAMES.pdb" "$FRAMES.dll" in/ && cp "$FRAMES.dll" pe/
ilmap store add www in >/dev/null; echo "store add exit $?"
NGINX_TLS=$PWD/tls start_nginx "$PWD/www"
[[ $TLS_URL == https://localhost:* ]] && echo "nginx serves TLS"
F=ilmap.corpus.frames.pdb/6c544a863ccb4fa9810a691444a2b613FFFFFFFF
echo "-- SSL_CERT_FILE names the test CA"
SSL_CERT_FILE=$PWD/tls/ca.pem ilmap fetch --symbol-path "srv*c1*$TLS_URL" pe/Ilmap.Corpus.Frames.dll | cut -f1
echo "exit ${PIPESTATUS[0]}"
ilmap lookup c1/$F/ilmap.corpus.frames.ilmap 0x06000001 0; echo "exit $?"
echo "-- the system's CAs only: refused"
ilmap fetch --symbol-path "srv*c2*$TLS_URL" pe/Ilmap.Corpus.Frames.dll 2>err.txt; echo "exit $?"
grep -o 'SSL certificate problem: [a-z ]*' err.txt | head -n 1
find c2 -type f | wc -l
echo "-- SSL_CERT_FILE names no file"
SSL_CERT_FILE=$PWD/tls/none.pem ilmap fetch --symbol-path "srv*c3*$TLS_URL" pe/Ilmap.Corpus.Frames.dll 2>err.txt; echo "exit $?"
sed "s|$PWD/||g; s|localhost:[0-9]*|localhost:PORT|" err.txt
SSL_CERT_FILE=$PWD/tls/none.pem ilmap fetch --symbol-path "srv*c4*$URL" pe/Ilmap.Corpus.Frames.dll | cut -f1
echo "plain http: exit ${PIPESTATUS[0]}"
