#!/usr/bin/env bash
# Writes WindowsPaths/pathmap.rsp under the source directory given as $1 (which build.sh places at
# <build root>/src): a compiler response file mapping this build's absolute paths to C:\src\ and
# C:\build\. A response file, because MSBuild on Unix turns the backslashes of a PathMap property
# into slashes before they reach the compiler.
set -euo pipefail
src=$(cd "$1" && pwd)
root=$(cd "$1/.." && pwd)
printf '/pathmap:%s/=C:\\src\\,%s/build/=C:\\build\\\n' "$src" "$root" > "$src/WindowsPaths/pathmap.rsp"
