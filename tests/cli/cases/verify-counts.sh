# verify: counts are singular or plural as needed ("1 document"), and a cache path with a
# control character is printed escaped (one line per cache).
. "$(dirname "$0")/../common.sh"
need "$GOLDEN/good.ilmap"
cp "$GOLDEN/good.ilmap" one.ilmap
cp "$GOLDEN/good.ilmap" $'new\nline\e.ilmap'
ilmap verify one.ilmap; echo "exit $?"
ilmap verify $'new\nline\e.ilmap'; echo "exit $?"
