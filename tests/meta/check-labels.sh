#!/usr/bin/env bash
# check-labels.sh CTEST BUILD_DIR - fails when a GoogleTest binary's tests lack a label that
# CONTRIBUTING.md tells a contributor to run them by: every test named LAYER.* of a layer binary
# (LAYER.Suite.Test) must carry both `unit` and `LAYER`, and every
# cache.corrupt.* test `corrupt`. Binaries not built have no tests listed and are not checked.
# Exit 0 pass, 1 fail.
set -euo pipefail
export LC_ALL=C
ctest=$1 build=$2
count() { "$ctest" --test-dir "$build" -N "$@" | sed -n 's/^Total Tests: //p'; }
bad=0 checked=0
check() {  # check NAME_REGEX LABEL
  local named labelled
  named=$(count -R "$1")
  [[ $named -gt 0 ]] || return 0
  labelled=$(count -R "$1" -L "^$2\$")
  checked=$((checked + named))
  if [[ $labelled -ne $named ]]; then
    echo "  $named tests match $1, $labelled of them carry the label $2"
    bad=$((bad + 1))
  fi
}
for layer in support decode msf names compiler symbols symbolicate serve; do
  # LAYER.Suite.Test: the binary's tests, not the scripts named LAYER.what (serve.http).
  check "^$layer\\.[^.]+\\." unit
  check "^$layer\\.[^.]+\\." "$layer"
done
check '^cache\.corrupt\.' corrupt
check '^cache\.corrupt\.' cache
if [[ $bad -gt 0 ]]; then
  echo "check-labels: $bad label sets incomplete"
  exit 1
fi
echo "check-labels: $checked test labels as CONTRIBUTING.md names them"
