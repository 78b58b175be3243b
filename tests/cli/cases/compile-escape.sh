# compile messages print file-supplied paths escaped (docs/text-output.md): a file name with a
# newline or an escape character found in a directory cannot split or forge output lines.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FEATURES.dll"
mkdir d
cp "$FRAMES.pdb" d/$'evil\nok.pdb'
cp "$FEATURES.dll" d/$'bad\e[31m.dll'
ilmap compile -j 1 d | sed -E 's/, [0-9]+ bytes, [0-9.]+ bytes\/point\)/, N bytes, N bytes\/point)/'; echo "exit ${PIPESTATUS[0]}"
# JSON has its own escaping (not ours): \n and \u001b.
ilmap compile -j 1 --json d | grep -F '"input":'
