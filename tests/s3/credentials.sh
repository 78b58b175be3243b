#!/usr/bin/env bash
# credentials.sh ILMAP CORPUS_DIR - S3 credentials never leave the process: ilmap's bucket
# commands, succeeding (tests/cli/faultserver.py's /ok/ answers as a small bucket) and failing
# (/deny/ answers 403 with an XML error whose Message echoes the request's Authorization and
# x-amz-security-token headers, as a hostile server could), are run with distinctive
# AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN values: store add (text and
# --json), store get (-o, the path, --for), store verify, fetch through srv*DIR*s3://, one round
# of store watch on a bucket inbox. None of the three values, nor a request signature, may
# appear on stdout, on stderr, or in any file left in the work folder (names and contents; the
# temporary folder is inside it). The environment and /proc/PID/environ hold them by design and
# are not looked at. Exit 0 pass, 1 fail, 77 skip (python3 absent).
set -uo pipefail
export LC_ALL=C
ILMAP=$(realpath "$1") CORPUS=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-s3-credentials.XXXXXX")
cd "$work" || exit 1
mkdir tmp home
export XDG_CACHE_HOME=$work/xdg HOME=$work/home TMPDIR=$work/tmp
unset _NT_SYMBOL_PATH AWS_ENDPOINT_URL_S3
key_id=AKIAILMAPLEAKCHECK7Q3Z
secret=ilmapSecretLeakCheck/9fK2+wq8ZxVb
token=IlmapSessionLeakCheck//Tok3n+Zm9vYmFy==
export AWS_ACCESS_KEY_ID=$key_id AWS_SECRET_ACCESS_KEY=$secret AWS_SESSION_TOKEN=$token AWS_REGION=us-east-1
. "$here/../cli/faultserver.sh"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

mkdir -p in www/symbols
cp "$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.dll" "$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.pdb" in/
start_fault_server "$work/www" 240
trap 'kill $FAULT_PID 2>/dev/null; wait $FAULT_PID 2>/dev/null; rm -rf "$work"' EXIT
pe=in/Ilmap.Corpus.Frames.dll

n=0
# run WANT_EXIT FAULT ARGS...: ilmap ARGS with the endpoint FAULT, output in out-N, err-N.
run() {
  local want=$1 fault=$2 rc
  shift 2
  n=$((n + 1))
  AWS_ENDPOINT_URL=$FAULT_URL/$fault timeout 60 "$ILMAP" "$@" >"out-$n" 2>"err-$n"
  rc=$?
  [[ $rc == "$want" ]] || fail "ilmap $* (endpoint /$fault): exit $rc, want $want: $(head -c 600 "err-$n")"
}

run 0 ok store add s3://symbols/ci in --json
run 0 ok store add s3://symbols/ci in
key=$(AWS_ENDPOINT_URL=$FAULT_URL/ok "$ILMAP" store get s3://symbols/ci --for "$pe" | awk -F'\t' '$1 ~ /\.ilmap$/ { print $1 }')
[[ -n $key ]] || fail "no cache key for $pe in the bucket"
run 0 ok store get s3://symbols/ci "$key" -o got.ilmap
run 0 ok store get s3://symbols/ci "$key"
run 0 ok store verify s3://symbols/ci
run 0 ok fetch --symbol-path "srv*$work/dl*s3://symbols/ci" "$pe"
run 0 ok store watch s3://symbols/inbox/ s3://symbols/ci --once

run 2 deny store add s3://symbols/ci in --json
run 2 deny store add s3://symbols/ci in
run 2 deny store get s3://symbols/ci "$key" -o denied.ilmap
run 2 deny store get s3://symbols/ci "$key"
run 2 deny store get s3://symbols/ci --for "$pe"
run 2 deny store verify s3://symbols/ci
run 2 deny fetch --symbol-path "srv*$work/dl-denied*s3://symbols/ci" "$pe"
run 2 deny store watch s3://symbols/inbox/ s3://symbols/ci --once
grep -q 'HTTP 403 AccessDenied: Access Denied. You sent Authorization: .*\[redacted\]' err-10 ||
  fail "a 403's message is not shown (redacted): $(cat err-10)"

# Every file left here (outputs, downloads, temporaries, the fault server's objects and log),
# by name and by content. The server's log holds paths only, never headers.
leaks=$(grep -rlF -e "$key_id" -e "$secret" -e "$token" . 2>/dev/null)
[[ -z $leaks ]] || fail "credentials in: $leaks: $(grep -rhoF -e "$key_id" -e "$secret" -e "$token" $leaks | sort | uniq -c)"
names=$(find . | grep -F -e "$key_id" -e "$secret" -e "$token")
[[ -z $names ]] || fail "credentials in file names: $names"
sigs=$(grep -rlE 'Signature=[0-9a-f]{16}' . 2>/dev/null)
[[ -z $sigs ]] || fail "a request signature in: $sigs"
[[ -s out-1 && -s got.ilmap ]] || fail "the succeeding commands printed nothing"

[[ $failures -eq 0 ]] || { echo "$failures checks failed"; exit 1; }
echo "all passed: $n commands (store add/get/verify/watch, fetch; 403 with echoed headers), no credential on stdout, stderr or in files"
