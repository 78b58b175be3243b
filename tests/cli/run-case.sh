#!/usr/bin/env bash
# run-case.sh ILMAP CORPUS_DIR CASE.sh - runs one CLI test case, in the manner of zstd's
# tests/cli-tests: the case script runs in a fresh temporary directory with `ilmap` first on
# PATH, $CORPUS pointing at corpus/, $XDG_CACHE_HOME inside the temporary directory (the
# default cache directory, docs/symbolicate.md) and no $_NT_SYMBOL_PATH; its stdout, stderr and
# exit code are compared with
#   CASE.sh.stdout.exact | CASE.sh.stdout.glob   (glob: bash pattern, '*' matches anything)
#   CASE.sh.stderr.exact | CASE.sh.stderr.glob   (absent: stderr must be empty)
#   CASE.sh.exit                                 (absent: 0)
# Case scripts run with `set -u` only: they print what they check, including exit codes.
# Exit 0 pass, 1 fail, 77 skip (the case script exits 77, e.g. corpus absent).
set -uo pipefail
export LC_ALL=C
ilmap=$1 corpus=$2 case=$3
[[ -f $case ]] || { echo "FAIL: no case $case"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin" "$work/run"
ln -s "$ilmap" "$work/bin/ilmap"
(unset _NT_SYMBOL_PATH; cd "$work/run" && PATH="$work/bin:$PATH" CORPUS="$corpus" XDG_CACHE_HOME="$work/cache-home" bash -u "$case" >"$work/stdout" 2>"$work/stderr")
rc=$?
[[ $rc -eq 77 ]] && { echo "SKIP: $(head -n1 "$work/stdout")"; exit 77; }

failed=0
check() {  # check NAME ACTUAL
  local name=$1 actual=$2
  if [[ -f $case.$name.exact ]]; then
    if ! cmp -s "$case.$name.exact" "$actual"; then
      echo "FAIL: $name differs from $(basename "$case").$name.exact:"
      diff -u "$case.$name.exact" "$actual" | head -40
      failed=1
    fi
  elif [[ -f $case.$name.glob ]]; then
    # shellcheck disable=SC2053  # the right side is a pattern on purpose
    if [[ $(cat "$actual") != $(cat "$case.$name.glob") ]]; then
      echo "FAIL: $name does not match $(basename "$case").$name.glob:"
      diff -u "$case.$name.glob" "$actual" | head -40
      failed=1
    fi
  elif [[ $name == stderr && -s $actual ]]; then
    echo "FAIL: unexpected stderr:"; head -20 "$actual"; failed=1
  fi
}
check stdout "$work/stdout"
check stderr "$work/stderr"
want_rc=0
[[ -f $case.exit ]] && want_rc=$(cat "$case.exit")
if [[ $rc -ne $want_rc ]]; then
  echo "FAIL: exit code $rc, want $want_rc"
  failed=1
fi
if [[ $failed -ne 0 ]]; then
  echo "--- stdout:"; head -40 "$work/stdout"; echo "--- stderr:"; head -40 "$work/stderr"
  exit 1
fi
echo "ok: $(basename "$case")"
