#!/usr/bin/env bash
# Runs `ilmap <command> [options]` on every golden file listed in golden/expected.tsv and checks the exit
# code and that stderr contains the message fragment (exactly one "ilmap: error:" line for
# failures). Usage: golden-cli.sh ILMAP GOLDEN_DIR
set -uo pipefail
ilmap=$1
dir=$2
fail=0
n=0
while IFS=$'\t' read -r file cmd want frag; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  n=$((n + 1))
  read -r -a args <<<"$cmd"  # the command and its options
  err=$("$ilmap" "${args[@]}" "$dir/$file" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -ne $want ]]; then
    echo "FAIL $file: ilmap $cmd exit $rc, want $want; stderr: $err"
    fail=1
    continue
  fi
  if [[ -n "$frag" && "$err" != *"$frag"* ]]; then
    echo "FAIL $file: stderr lacks '$frag': $err"
    fail=1
    continue
  fi
  if [[ $want -ne 0 ]] && [[ $(grep -c 'ilmap: error:' <<<"$err") -ne 1 ]]; then
    echo "FAIL $file: want exactly one 'ilmap: error:' line: $err"
    fail=1
    continue
  fi
  echo "ok   $file ($cmd -> $rc)"
done < "$dir/expected.tsv"
[[ $n -gt 0 ]] || { echo "FAIL: no golden files"; exit 1; }
exit $fail
