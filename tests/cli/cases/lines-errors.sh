# lines errors: malformed FILE:LINE[:COLUMN] (exit 1), no such document, no code at or after the
# line (exit 3, nothing on stdout), a format 1.0 cache (exit 2, refused at open).
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
ilmap lines f.ilmap Program.cs; echo "exit $?"
ilmap lines f.ilmap Program.cs:0; echo "exit $?"
ilmap lines f.ilmap Program.cs:12:0; echo "exit $?"
ilmap lines f.ilmap :12; echo "exit $?"
ilmap lines f.ilmap Program.cs:16707566; echo "exit $?"
ilmap lines f.ilmap Nope.cs:3; echo "exit $?"
ilmap lines f.ilmap gram.cs:3; echo "exit $?"
ilmap lines f.ilmap Program.cs:100000; echo "exit $?"
cp "$CORPUS/../tests/reader/format-1.0.ilmap" old.ilmap
ilmap lines old.ilmap Program.cs:3; echo "exit $?"
