#!/usr/bin/env bash
# check-store.sh ILMAP REPO_ROOT SHARED_DIR SSQP_ORACLE - an ilmap-written store served by nginx,
# read by the independent SSQP client (SsqpOracle):
#   1. `ilmap store add` of corpus/out and SHARED_DIR/corpus-public (PEs, Portable and Windows PDBs);
#   2. nginx serves it (tests/cli/nginx.sh); SsqpOracle derives each input file's key itself,
#      downloads it and checks identity and bytes: every file must be "ok";
#   3. dotnet/symstore's KeyGeneratorTests expect system.threading.thread.pdb/a43b38726e6a4b3c
#      b1691f35f0d6cc48FFFFFFFF/... for their TestBinaries/dir1/System.Threading.Thread.pdb (in
#      corpus-public as symstore_System.Threading.Thread): both the oracle and `ilmap store get
#      --for` must give that key;
#   4. the oracle can fail: a stored PE with one byte changed is reported (exit 1).
# Exit 0 pass, 1 fail, 77 skip (no corpus, no nginx).
set -uo pipefail
ilmap=$1 root=$2 shared=$3 oracle=$4
[[ -x $oracle ]] || { echo "SKIP: $oracle not built"; exit 77; }
[[ -d $root/corpus/out ]] || { echo "SKIP: corpus/out absent (corpus/build.sh)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-ssqp.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
inputs=("$root/corpus/out")
[[ -d $shared/corpus-public ]] && inputs+=("$shared/corpus-public")
"$ilmap" store add www "${inputs[@]}" >add.txt || { echo "FAIL: store add exit $?"; exit 1; }
find "${inputs[@]}" -type f \( -iname '*.dll' -o -iname '*.exe' -o -iname '*.pdb' \) | sort >files.txt
# shellcheck source=../cli/nginx.sh
. "$root/tests/cli/nginx.sh"
start_nginx "$PWD/www"   # exits 77 without nginx; kills it on exit (its trap replaces ours)
trap 'kill $NGINX_PID 2>/dev/null; wait $NGINX_PID 2>/dev/null; rm -rf "$work"' EXIT
failed=0
xargs -d '\n' "$oracle" "$URL" <files.txt >oracle.txt
rc=$?
total=$(wc -l <files.txt) ok=$(grep -c '^ok ' oracle.txt)
echo "SsqpOracle: $ok of $total files ok (exit $rc)"
if [[ $rc -ne 0 || $ok -ne $total ]]; then grep -v '^ok ' oracle.txt | head -20; failed=1; fi
thread=$shared/corpus-public/symstore_System.Threading.Thread/System.Threading.Thread.pdb
expected=system.threading.thread.pdb/a43b38726e6a4b3cb1691f35f0d6cc48FFFFFFFF/system.threading.thread.pdb
if [[ -f $thread ]]; then
  grep -qx "ok $expected" oracle.txt || { echo "FAIL: the oracle did not fetch symstore's expected key $expected"; failed=1; }
  "$ilmap" store get www --for "$thread" | cut -f1 | grep -qx "$expected" ||
    { echo "FAIL: ilmap store get --for gives another key than symstore's $expected"; failed=1; }
  echo "symstore's expected key for System.Threading.Thread.pdb: checked"
fi
pe=$(grep -m1 -o 'ilmap\.corpus\.frames\.dll/[^ ]*' add.txt)
if [[ -n $pe ]]; then
  printf '\x01' | dd of="www/$pe" bs=1 seek=200 conv=notrunc 2>/dev/null
  "$oracle" "$URL" "$root/corpus/out/cs-frames/Ilmap.Corpus.Frames.dll" >tampered.txt
  if [[ $? -ne 1 ]] || ! grep -q "^FAIL $pe: " tampered.txt; then
    echo "FAIL: the oracle accepted a tampered file:"; cat tampered.txt; failed=1
  else
    echo "tampered PE reported: $(cut -c1-120 tampered.txt)"
  fi
fi
[[ $failed -eq 0 ]] && echo "PASS"
exit $failed
