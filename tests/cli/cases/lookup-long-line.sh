# lookup --batch caps a query line at 65536 bytes (issue 9 item 8): a longer line gets one
# error line, the rest of it is skipped, and memory stays bounded; 400 MB of zero bytes without
# a newline run under a 300 MB address-space limit (a growing line buffer would die there).
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
# Sanitizer builds reserve terabytes of address space and cannot start under the limit: skip.
(ulimit -v 300000; ilmap --version >/dev/null 2>&1) || { echo "ilmap cannot start under ulimit -v (sanitizer build?)"; exit 77; }
# Exactly 65536 bytes is a line (malformed here), 65537 is too long; the next line is answered.
{ head -c 65536 /dev/zero | tr '\0' ' '; echo; head -c 65537 /dev/zero | tr '\0' '7'; echo; echo '10 7'; } |
  ilmap lookup f.ilmap --batch | cut -c1-80; echo "exit ${PIPESTATUS[1]}"
(ulimit -v 300000; head -c 400000000 /dev/zero | ilmap lookup f.ilmap --batch; echo "exit ${PIPESTATUS[1]}")
(ulimit -v 300000; { head -c 400000000 /dev/zero; printf '\n10 7\n'; } | ilmap lookup f.ilmap --batch --json; echo "exit ${PIPESTATUS[1]}")
