#!/usr/bin/env bash
# check-platform-headers.sh SOURCE_DIR - fails when a production source file outside support/
# includes a system header of one platform (POSIX or Windows): every platform call goes
# through support/ (support/Platform.h and its neighbours; CONTRIBUTING.md, STYLE habit 13), so
# that the Linux and the Windows builds differ in that one folder.
# Checked: the library layers and the front doors (compiler decode format reader symbols
# symbolicate capi tools serve). Allowed: the HTTP service, which is not in the Windows build
# and keeps its sockets and signal thread (serve/HttpServer.cpp, tools/cmd_serve.cpp).
# Prints one line per offending include and a closing line; exit 0 pass, 1 fail, 2 usage.
set -euo pipefail
export LC_ALL=C
src=${1:?usage: check-platform-headers.sh SOURCE_DIR}
cd "$src" || exit 2
folders=(compiler decode format reader symbols symbolicate capi tools serve)
allowed_files=" serve/HttpServer.cpp tools/cmd_serve.cpp "
# The headers of one platform: POSIX and Linux, Windows and its C runtime.
platform_re='^(unistd|fcntl|poll|dlfcn|fnmatch|dirent|pthread|signal|csignal|spawn|termios|netdb|glob|libgen|windows|winsock2|ws2tcpip|io|direct|process|shellapi|bcrypt|shlobj|winbase|wincrypt|winhttp)\.h$|^(sys|netinet|arpa|linux)/|^csignal$'
bad=0 files=0
for d in "${folders[@]}"; do
  [[ -d $d ]] || { echo "FAIL: folder $d/ is missing"; bad=$((bad + 1)); continue; }
  while IFS= read -r -d '' f; do
    files=$((files + 1))
    [[ $allowed_files == *" $f "* ]] && continue
    while IFS= read -r inc; do
      if [[ $inc =~ $platform_re ]]; then
        echo "  $f: includes <$inc> (a platform header: use support/Platform.h)"
        bad=$((bad + 1))
      fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/\1/p' "$f")
  done < <(find "$d" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.c' \) -print0)
done
[[ $files -gt 0 ]] || { echo "FAIL: no source files under $src"; exit 1; }
if [[ $bad -gt 0 ]]; then
  echo "check-platform-headers: $bad platform includes outside support/ in $files files"
  exit 1
fi
echo "check-platform-headers: $files files outside support/, none includes a platform header"
