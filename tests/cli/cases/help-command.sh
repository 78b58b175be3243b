# `ilmap help [CMD]` prints help; a mistyped command gets a suggestion; parser errors carry the
# "ilmap: error:" prefix; --help shows size options as SIZE and wraps at 100 columns.
. "$(dirname "$0")/../common.sh"
# (Into a file, not a pipe: grep -m1 would exit early and a help longer than the pipe buffer
# write would then die of SIGPIPE, exit 141.)
ilmap help > help.txt; rc=$?; grep -m1 '^Usage: ilmap' help.txt; echo "help: exit $rc"
ilmap help dump > help.txt; rc=$?; grep -m1 '^Usage: ilmap dump' help.txt; echo "help dump: exit $rc"
ilmap help nope; echo "help nope: exit $?"
ilmap help dump info; echo "help dump info: exit $?"
ilmap comple x.pdb; echo "comple: exit $?"
ilmap lokup c 1 2; echo "lokup: exit $?"
ilmap zzzzzzzz; echo "zzzzzzzz: exit $?"
ilmap lookup; echo "lookup: exit $?"
ilmap dump; echo "dump: exit $?"
for sub in compile dump info; do
  ilmap $sub --help | grep -o -- '--max-decompressed [A-Z]*'
done
for sub in "" compile lookup dump info verify; do
  echo "longest --help line of '$sub': $(ilmap $sub --help | awk '{ if (length($0) > m) m = length($0) } END { print (m <= 100 ? "<= 100" : m) }')"
done
