# --source-root with the Windows paths of a PDB built on Windows (C:\src\WindowsPaths\..., a
# folder and a file name with spaces): '\' separates components after the prefix as '/' does,
# and a prefix without a trailing separator matches whole components. Context blocks end their
# lines as the frame's line ends (CR LF), and a last line without an end gets one before its
# block (docs/text-output.md "Source context").
. "$(dirname "$0")/../common.sh"
WP=$CORPUS/out/cs-windows-paths/Ilmap.Corpus.WindowsPaths
need "$WP.dll" "$WP.pdb" "$CORPUS/src/WindowsPaths/Calculator.cs" "$CORPUS/src/WindowsPaths/Sub Folder/Spaced Name.cs"
mkdir app src
cp "$WP.dll" "$WP.pdb" app/
cp -r "$CORPUS/src/WindowsPaths" src/
at() { printf '   at M() in Ilmap.Corpus.WindowsPaths.dll:token %s+%s' "$1" "$2"; }
{ at 0x6000002 0x0; echo; at 0x6000003 0x0; echo; } >t.txt
run() { ilmap symbolicate --search app --cache-dir cc "$@" 2>/dev/null; }
echo '-- C:\src\=src'
run --context 1 --source-root 'C:\src\=src' t.txt
echo '-- C:\src=src (whole components): the same'
run --context 1 --source-root 'C:\src=src' t.txt | cmp - <(run --context 1 --source-root 'C:\src\=src' t.txt) && echo same
echo "-- the lines are the files' own"
run --context 3 --source-root 'C:\src\=src' t.txt >out.txt
check_context_blocks out.txt src 'C:\src\'
echo "-- CR LF lines get CR LF block lines; a last line without an end gets one"
{ at 0x6000002 0x0; printf '\r\n'; at 0x6000003 0x0; } >crlf.txt
run --context 1 --source-root 'C:\src\=src' crlf.txt | od -An -c | tr -s ' ' | grep -o -e '\\r \\n' -e '[^\\]\\n' | sort | uniq -c
run --context 1 --source-root 'C:\src\=src' crlf.txt | tail -c 20 | od -An -c
