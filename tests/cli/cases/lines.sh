# lines: source line -> (method, IL offset, span) as a debugger binds a breakpoint (SPEC.md 6.2,
# 6.3): a statement holding a lambda binds the statement, a column inside the lambda binds the
# lambda, a line without code binds the next line with code, a method spanning documents
# (field initializers of a partial class in the constructor), paths by file name, suffix, the
# other separator and exactly; --json.
. "$(dirname "$0")/../common.sh"
need "$FEATURES.pdb"
cp "$FEATURES.pdb" f.pdb
ilmap compile -q f.pdb -o f.ilmap
ilmap lines f.ilmap ControlFlow.cs:53
ilmap lines f.ilmap ControlFlow.cs:53:40
ilmap lines f.ilmap ControlFlow.cs:53:14
ilmap lines f.ilmap ControlFlow.cs:62
ilmap lines f.ilmap 'Features\ControlFlow.cs:96:40'
ilmap lines f.ilmap /_/Features/ControlFlow.cs:96 --json
ilmap lines f.ilmap Widget.Part2.cs:7
ilmap lines f.ilmap 'Grüße/Ünïcødé.cs:1'
echo "exit $?"
