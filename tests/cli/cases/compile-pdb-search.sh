# Finding the PDB of a PE (issue 9 item 14), each candidate accepted only when its PDB id
# matches the PE's CodeView entry: the embedded PDB, the CodeView path as written (when it
# exists here), the CodeView file name beside the PE, then <PE name>.pdb beside the PE; --pdb
# names the file. When nothing matches, the error lists every file tried and why it failed.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$FEATURES.pdb" "$EMBEDDED_DLL"
# The CodeView path patched (in a copy) to an absolute path of this directory needs room in the
# 60-byte original.
cv=/_/build/obj/Frames/Release/net10.0/Ilmap.Corpus.Frames.pdb
far=$PWD/far/F.pdb
[[ ${#far} -le ${#cv} ]] || { echo "working directory path too long for the patch"; exit 77; }
# A PE renamed with its PDB renamed the same way: found as <PE name>.pdb.
mkdir a && cp "$FRAMES.dll" a/renamed.dll && cp "$FRAMES.pdb" a/renamed.pdb
ilmap compile -q a/renamed.dll; echo "renamed pair: exit $?"
ilmap info a/renamed.ilmap | grep -E '^(pe_name|source_name)'
# The CodeView path as written.
mkdir far c && cp "$FRAMES.pdb" "$far"
CV="$cv" FAR="$far" perl -0777 -pe '$n = $ENV{FAR} . ("\0" x (length($ENV{CV}) - length($ENV{FAR}))); s/\Q$ENV{CV}\E/$n/' "$FRAMES.dll" >c/app.dll
ilmap compile -q c/app.dll; echo "CodeView path as written: exit $?"
# Nothing matches: every candidate is listed.
mkdir b && cp "$FRAMES.dll" b/app.dll
printf 'Microsoft C/C++ MSF 7.00\r\n\032DS\0\0\0' >b/Ilmap.Corpus.Frames.pdb
cp "$FEATURES.pdb" b/app.pdb
ilmap compile b/app.dll 2>&1; echo "exit $?"
echo "not a PDB" >b/app.pdb
rm b/Ilmap.Corpus.Frames.pdb
ilmap compile b/app.dll 2>&1; echo "exit $?"
# --pdb names it (still checked against the CodeView id).
mkdir elsewhere && cp "$FRAMES.pdb" elsewhere/x.pdb && cp "$FEATURES.pdb" elsewhere/other.pdb
ilmap compile -q b/app.dll --pdb elsewhere/x.pdb; echo "--pdb: exit $?"
ilmap compile b/app.dll --pdb elsewhere/other.pdb --force 2>&1; echo "exit $?"
ilmap compile b/app.dll --pdb elsewhere/missing.pdb --force 2>&1; echo "exit $?"
ilmap compile b/app.dll a/renamed.dll --pdb elsewhere/x.pdb 2>&1; echo "exit $?"
# The embedded PDB comes first.
cp "$EMBEDDED_DLL" e.dll
ilmap compile -q e.dll; echo "embedded: exit $?"
ls a b c e.*
ilmap compile a/renamed.pdb --pdb elsewhere/x.pdb -o x.ilmap 2>&1; echo "exit $?"
