#!/usr/bin/env bash
# check-test-names.sh CTEST BUILD_DIR SOURCE_DIR SHARED_DIR - lists the tests of BUILD_DIR
# (ctest -N) and fails when a name holds a path or a comment instead of a case name:
#   - a character outside [A-Za-z0-9_.+-/] (spaces, '#': CMake's "# GetParam() = ...");
#   - a '/' other than GoogleTest's own two in PREFIX/Suite.Test/Case, a leading '/' or '//';
#   - the source, build or shared folder, or more than 150 characters.
# Exit 0 pass, 1 fail.
set -euo pipefail
export LC_ALL=C
ctest=$1 build=$2 src=$3 shared=$4
names=$("$ctest" --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p')
count=$(printf '%s\n' "$names" | grep -c . || true)
[[ $count -gt 0 ]] || { echo "FAIL: ctest -N lists no tests in $build"; exit 1; }
bad=$(printf '%s\n' "$names" | awk -v src="$src" -v build="$build" -v shared="$shared" '
  { why = "" }
  $0 !~ /^[A-Za-z0-9_.+\/-]+$/ { why = "characters outside [A-Za-z0-9_.+-/]" }
  why == "" && (index($0, src) || index($0, build) || index($0, shared)) { why = "a folder of this machine" }
  why == "" && (/^\// || /\/\// || gsub(/\//, "/") > 2) { why = "a path" }
  why == "" && length($0) > 150 { why = "longer than 150 characters" }
  why != "" { print "  " why ": " $0 }')
if [[ -n $bad ]]; then
  echo "FAIL: test names that are not case names:"
  printf '%s\n' "$bad" | head -n 20
  exit 1
fi
echo "ok: $count test names, none with a path"
