# fetch honours http_proxy (libcurl's default): a server name that does not resolve is reached
# through the proxy, here nginx itself (it serves absolute-URI requests by their path).
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../nginx.sh"
need "$FRAMES.pdb" "$FRAMES.dll"
cp "$FRAMES.pdb" "$FRAMES.dll" .
ilmap store add www Ilmap.Corpus.Frames.pdb >/dev/null; echo "store add exit $?"
start_nginx "$PWD/www"
unset no_proxy NO_PROXY https_proxy HTTPS_PROXY ALL_PROXY all_proxy
http_proxy=$URL show ilmap fetch --symbol-path "srv*c*http://symbols.invalid" Ilmap.Corpus.Frames.dll
cat "$NGINX_LOG" | cut -d' ' -f1,2
echo "-- without the proxy"
unset http_proxy
show ilmap fetch --attempts 1 --symbol-path "srv*c2*http://symbols.invalid" Ilmap.Corpus.Frames.dll
