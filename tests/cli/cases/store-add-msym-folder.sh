# store add of a Mono .msym: its key is made from the AOT id folder it lies in (docs/msym.md), so
# a folder that is not 32 hex digits (a path-like name, an id too short) is refused, nothing is
# written; the same file in its AOT id's folder is stored under NAME.msym/AOTID/NAME.msym.
. "$(dirname "$0")/../common.sh"
msym=$CORPUS/../tests/decode/data/Ilmap.Trace.exe.msym
need "$msym"
mkdir -p "in/..x" in/0123456789abcdef in/0123456789abcdef0123456789abcdef
cp "$msym" "in/..x/" && cp "$msym" in/0123456789abcdef/ && cp "$msym" in/0123456789abcdef0123456789abcdef/
for d in ..x 0123456789abcdef; do
  ilmap store add -q st "in/$d/Ilmap.Trace.exe.msym" 2>&1; echo "exit $?"
done
[[ -e st ]] && find st -type f | sort || echo "no store written"
ilmap store add -q st in/0123456789abcdef0123456789abcdef/Ilmap.Trace.exe.msym; echo "exit $?"
find st -type f | sort
