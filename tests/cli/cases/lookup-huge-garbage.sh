# A 3 GB file that is not a cache, PDB or PE (sparse, all zeros) is refused from its first
# bytes, before anything is mapped or pre-faulted (issue 9 item 8): every command gives its
# bad-magic error under a 300 MB address-space limit (mapping or reading it would fail there
# with another error, and used to take 25 s and 3 GB of RSS).
. "$(dirname "$0")/../common.sh"
# Sanitizer builds reserve terabytes of address space and cannot start under the limit: skip.
(ulimit -v 300000; ilmap --version >/dev/null 2>&1) || { echo "ilmap cannot start under ulimit -v (sanitizer build?)"; exit 77; }
truncate -s 3G garbage.bin
(
  ulimit -v 300000
  ilmap lookup garbage.bin 1 0; echo "lookup: exit $?"
  ilmap info garbage.bin; echo "info: exit $?"
  ilmap dump garbage.bin; echo "dump: exit $?"
  ilmap verify garbage.bin; echo "verify: exit $?"
  ilmap compile -q garbage.bin -o out.ilmap; echo "compile: exit $?"
)
