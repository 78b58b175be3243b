#!/usr/bin/env bash
# faults.sh ILMAP CORPUS_DIR - ilmap against an S3 endpoint that misbehaves: tests/cli/faultserver.py
# in front of a folder laid out as a bucket (symbols/ci/<store layout>, written by `ilmap store
# add`), the fault chosen by the endpoint's path (AWS_ENDPOINT_URL=http://127.0.0.1:PORT/FAULT;
# requests are signed as usual, the server does not check them). For each fault, `store get` or
# `fetch --symbol-path srv*DIR*s3://...` must answer as the documentation says: the object's
# bytes (ok; flaky: after two 500s, retried), or exit 2 with the reason and no file written
# (always 500: three attempts; a body cut short, a 10 GiB Content-Length, an endless body, a
# server too slow for --download-timeout; a PDB whose bytes are not the ones the PE's checksum
# names, refused by fetch's verification). Exit 0 pass, 1 fail, 77 skip (python3 absent).
set -uo pipefail
export LC_ALL=C
ILMAP=$(realpath "$1") CORPUS=$(realpath "$2")
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-s3-faults.XXXXXX")
cd "$work" || exit 1
export XDG_CACHE_HOME=$work/xdg HOME=$work/home
unset _NT_SYMBOL_PATH AWS_ENDPOINT_URL_S3 AWS_SESSION_TOKEN
export AWS_ACCESS_KEY_ID=test-key AWS_SECRET_ACCESS_KEY=test-secret AWS_REGION=us-east-1
. "$here/../cli/faultserver.sh"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check_eq() { [[ $2 == "$3" ]] || fail "$1: want '$2', got '$3'"; }

mkdir in && cp "$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.dll" "$CORPUS/out/cs-frames/Ilmap.Corpus.Frames.pdb" in/
"$ILMAP" store add www/symbols/ci in >/dev/null || { echo "FAIL: store add"; rm -rf "$work"; exit 1; }
pe=in/Ilmap.Corpus.Frames.dll
key=$("$ILMAP" store get www/symbols/ci --for "$pe" | awk -F'\t' '$1 ~ /\.ilmap$/ { print $1 }')
[[ -n $key ]] || { echo "FAIL: no cache key for $pe"; rm -rf "$work"; exit 1; }
start_fault_server "$work/www" 240
trap 'kill $FAULT_PID 2>/dev/null; wait $FAULT_PID 2>/dev/null; rm -rf "$work"' EXIT
object="symbols/ci/$key"
requests() { grep -c "^$1 $2 $object\$" "$FAULT_LOG"; }  # FAULT STATUS: how many such requests

# get FAULT: store get of the cache through the fault; sets RC, the output in got-FAULT.
get() {
  AWS_ENDPOINT_URL=$FAULT_URL/$1 "$ILMAP" store get s3://symbols/ci "$key" -o "got-$1" >"out-$1" 2>"err-$1"
  RC=$?
}

get ok
check_eq "ok: exit" 0 "$RC"
cmp -s "got-ok" "www/$object" || fail "ok: the bytes differ from the stored object"

get always500
check_eq "always 500: exit" 2 "$RC"
grep -q 'HTTP 500' err-always500 || fail "always 500: message: $(cat err-always500)"
check_eq "always 500: attempts" 3 "$(requests always500 500)"
[[ ! -e got-always500 ]] || fail "always 500: a file was written"

get flaky
check_eq "flaky (two 500s, then the object): exit" 0 "$RC"
cmp -s got-flaky "www/$object" || fail "flaky: the bytes differ from the stored object"
check_eq "flaky: the 500s retried" "2 1" "$(requests flaky 500) $(requests flaky 200)"

for f in truncated huge endless; do
  get "$f"
  check_eq "$f: exit" 2 "$RC"
  grep -q 'after 3 attempts' "err-$f" || fail "$f: message: $(cat "err-$f")"
  [[ ! -e got-$f ]] || fail "$f: a file was written"
done

# Through fetch (a symbol path on the bucket): a server too slow for --download-timeout, and a
# PDB of other bytes: refused, nothing kept in the download folder.
t0=$SECONDS
AWS_ENDPOINT_URL=$FAULT_URL/slow "$ILMAP" fetch --symbol-path "srv*$work/dl-slow*s3://symbols/ci" --download-timeout 2 \
  "$pe" >out-slow 2>err-slow
check_eq "slow, --download-timeout 2: exit" 2 "$?"
grep -q 'timed out' err-slow || fail "slow: message: $(cat err-slow)"
(( SECONDS - t0 < 60 )) || fail "slow: took $((SECONDS - t0)) s"
AWS_ENDPOINT_URL=$FAULT_URL/wrongsum "$ILMAP" fetch --symbol-path "srv*$work/dl-wrong*s3://symbols/ci" "$pe" >out-w 2>err-w
check_eq "a PDB of other bytes: exit" 2 "$?"
grep -q 'PdbChecksum' err-w || fail "a PDB of other bytes: message: $(cat err-w)"
for d in dl-slow dl-wrong; do
  kept=$(find "$d" -type f 2>/dev/null)
  [[ -z $kept ]] || fail "$d: files kept: $kept"
done

# A body longer than its Content-Length (the server keeps sending): store get verifies what it
# got against the key (a cache: Cache::verify; a PDB: its id) and writes nothing.
for k in "$key" "${key%/*}/${key%%/*}"; do
  AWS_ENDPOINT_URL=$FAULT_URL/longer "$ILMAP" store get s3://symbols/ci "$k" -o got-longer >out-longer 2>err-longer
  check_eq "longer than its Content-Length ($k): exit" 2 "$?"
  [[ ! -e got-longer ]] || fail "longer ($k): a file was written"
  grep -q 'ilmap: error: ' err-longer || fail "longer ($k): message: $(cat err-longer)"
done

# Listings that lie (ListObjectsV2 answers of faultserver.py). An honest one first.
AWS_ENDPOINT_URL=$FAULT_URL/ok "$ILMAP" store verify s3://symbols/ci >out-lok 2>err-lok
check_eq "verify, honest listing: exit" 0 "$?"
grep -q ' ok$' out-lok || fail "verify, honest listing: $(cat out-lok err-lok)"
# verify LISTFAULT [ENV=VALUE...]: store verify through the fault (at most 60 s); sets RC.
verify() {
  local f=$1
  shift
  env AWS_ENDPOINT_URL="$FAULT_URL/$f" "$@" timeout 60 "$ILMAP" store verify s3://symbols/ci >"out-$f" 2>"err-$f"
  RC=$?
}
expect_list_error() {  # NAME FAULT PATTERN: exit 2 (no signal, no hang), the message matching
  check_eq "$1: exit" 2 "$RC"
  grep -qF "s3://symbols: listing ci/: $3" "err-$2" || fail "$1: message: $(cat "err-$2")"
}
verify listshort
expect_list_error "a listed key shorter than the prefix" listshort "page 1 lists key 'x', outside the prefix"
verify listoutside
expect_list_error "a listed key outside the prefix" listoutside "page 1 lists key 'zz-outside-yyy/a.pdb/0/a.pdb', outside the prefix"
verify listalternate
expect_list_error "alternating continuation tokens" listalternate "page 3 gives continuation token 't1', already given by page 1"
check_eq "alternating tokens: LIST requests" 3 "$(grep -c '^listalternate 200 LIST' "$FAULT_LOG")"
verify listnew ILMAP_S3_MAX_LIST_KEYS=2500
expect_list_error "ever new tokens, 1,000 keys a page, 2,500-key cap" listnew "page 3: more than 2500 keys, the cap (ILMAP_S3_MAX_LIST_KEYS raises it)"
check_eq "ever new tokens, keys cap: LIST requests" 3 "$(grep -c '^listnew 200 LIST' "$FAULT_LOG")"
: >"$FAULT_LOG"
verify listnew ILMAP_S3_MAX_LIST_PAGES=4
expect_list_error "ever new tokens, 4-page cap" listnew "page 5: more than 4 pages, the cap (ILMAP_S3_MAX_LIST_PAGES raises it)"
check_eq "ever new tokens, pages cap: LIST requests" 4 "$(grep -c '^listnew 200 LIST' "$FAULT_LOG")"
verify listnew ILMAP_S3_MAX_LIST_BYTES=100000
expect_list_error "ever new tokens, 100,000-byte cap" listnew "page 5: more than 100000 bytes of keys, the cap (ILMAP_S3_MAX_LIST_BYTES raises it)"
# A bucket inbox listed by store watch: the same checks.
AWS_ENDPOINT_URL=$FAULT_URL/listshort timeout 60 "$ILMAP" store watch s3://symbols/inbox/ "$work/wstore" --once >out-w 2>err-w
check_eq "store watch, a key shorter than the prefix: exit" 2 "$?"
grep -q "outside the prefix" err-w || fail "store watch, a key shorter than the prefix: $(cat err-w)"

[[ $failures -eq 0 ]] || { echo "$failures checks failed"; exit 1; }
echo "all passed: ok, always 500, flaky, truncated, huge, endless, slow, other bytes, longer;" \
  "listings: a key shorter than or outside the prefix, alternating and ever new tokens, caps"
