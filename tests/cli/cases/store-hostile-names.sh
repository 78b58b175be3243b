# A PE whose CodeView entry names ".." makes an invalid symbol-store key: that is bad input
# (exit 2), not a usage error, for store add (of a PE with an embedded PDB, whose cache would
# go under that key) and fetch; store add checks every key before the first write, so nothing
# is stored. A key given on the command line stays a usage error (exit 1).
. "$(dirname "$0")/../common.sh"
need "$EMBEDDED_ALL.dll" "$FRAMES.dll"
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
forge() { python3 "$(dirname "$0")/../mkforged.py" "$@" || exit 1; }
forge cvname "$EMBEDDED_ALL.dll" .. dotdot.dll
forge cvname "$FRAMES.dll" .. frames-dotdot.dll
ilmap store add st dotdot.dll; echo "store add exit $?"
find st -type f ! -name .ilmap-store.lock 2>/dev/null | wc -l
mkdir local
ilmap fetch --symbol-path local frames-dotdot.dll; echo "fetch exit $?"
ilmap store get st ../x/..; echo "store get exit $?"
