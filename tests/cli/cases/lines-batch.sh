# lines --batch: one FILE:LINE[:COLUMN] query per stdin line, each answer ends with an empty line;
# rejected queries get an error line and the run goes on (exit 1 for a malformed query, which
# outranks "not found"); --json; a run with only "not found" answers exits 3.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
printf 'Program.cs:1\nNope.cs:2\nProgram.cs\nScenarios.cs:11\n' | ilmap lines f.ilmap --batch; echo "exit $?"
printf 'Nope.cs:2\n' | ilmap lines f.ilmap; echo "exit $?"
printf 'Program.cs:1\n' | ilmap lines f.ilmap --batch --json; echo "exit $?"
