# Directory mode over a bin/-like folder (issue 9 items 15, 16): PEs without debug information
# are skipped and counted (a native apphost X.exe beside X.dll, a managed DLL whose PDB is not
# shipped, a native DLL), a PE with a stale PDB of another build beside it fails with exit 3
# (and that PDB is never compiled as the PE's cache), --include/--exclude select files, --json
# prints one object. Named inputs keep failing loudly (native.pdb: a Windows PDB cut after its
# signature is corrupt, exit 2). Windows PDBs compile (tests/corpus check.sh windows).
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.dll" "$FEATURES.pdb"
# make_native SRC DST: a copy of SRC without CLI header and debug directory (a native PE).
make_native() {
  cp "$1" "$2"
  local lfanew opt magic dirs
  lfanew=$(od -An -tu4 -j60 -N4 "$2" | tr -d ' ')
  opt=$((lfanew + 24))
  magic=$(od -An -tu2 -j$opt -N2 "$2" | tr -d ' ')
  dirs=$((opt + (magic == 523 ? 112 : 96)))
  printf '\0\0\0\0\0\0\0\0' | dd of="$2" bs=1 seek=$((dirs + 6 * 8)) conv=notrunc status=none
  printf '\0\0\0\0\0\0\0\0' | dd of="$2" bs=1 seek=$((dirs + 14 * 8)) conv=notrunc status=none
}
mask() { sed -E 's/, [0-9]+ bytes, [0-9.]+ bytes\/point\)/, N bytes, N bytes\/point)/; s/"bytes": [0-9]+/"bytes": N/'; }
mkdir -p bin/mm
cp "$FRAMES.dll" "$FRAMES.pdb" bin/
make_native "$FRAMES.dll" bin/Ilmap.Corpus.Frames.exe
cp "$FEATURES.dll" bin/Framework.dll
make_native "$FEATURES.dll" bin/native.dll
printf 'Microsoft C/C++ MSF 7.00\r\n\032DS\0\0\0' >bin/native.pdb
cp "$FRAMES.dll" bin/mm/X.dll
cp "$FEATURES.pdb" bin/mm/X.pdb
ilmap compile -j 1 bin | mask; echo "exit ${PIPESTATUS[0]}"
find bin -name '*.ilmap' | sort
ilmap compile -j 1 bin; echo "exit $?"
ilmap compile -q bin; echo "exit $?"
ilmap compile -q --exclude 'mm/*' bin; echo "exit $?"
ilmap compile --include 'Ilmap.*' --exclude '*.exe' bin; echo "exit $?"
# A PDB beside its PE is read through the PE, even when a glob selects only PDBs.
ilmap compile --include '*.pdb' bin; echo "exit $?"
ilmap compile --json --force bin 2>/dev/null | mask; echo "exit ${PIPESTATUS[0]}"
# Named inputs: still errors.
ilmap compile bin/native.dll 2>&1; echo "exit $?"
ilmap compile bin/native.pdb 2>&1; echo "exit $?"
ilmap compile bin/mm/X.dll 2>&1; echo "exit $?"
exit 0
