# --msym-dir naming no folder: symbolicate and serve say so at once (exit 3), before reading a
# trace or listening, rather than count every Mono AOT frame "no msym"; a file is no folder.
. "$(dirname "$0")/../common.sh"
echo '  at A.B.C () <0x7f00 + 0x0002b> in <0123456789abcdef0123456789abcdef#0123456789abcdef0123456789abcdef>:0' >t.txt
ilmap symbolicate --msym-dir nope t.txt; echo "symbolicate: exit $?"
ilmap symbolicate --msym-dir t.txt t.txt; echo "symbolicate, a file: exit $?"
ilmap serve --port 0 --msym-dir nope; echo "serve: exit $?"
