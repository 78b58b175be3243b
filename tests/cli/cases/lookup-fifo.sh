# A FIFO given as the cache or input is refused at once (issue 9 item 7): opening one used to
# block for a writer forever. Each command runs under `timeout` so a regression fails (exit
# 124) instead of hanging the test run. (`dump` sniffs its input with fopen first: its owner
# fixes that; it is not run here.)
. "$(dirname "$0")/../common.sh"
mkfifo f.ilmap f.pdb
timeout 10 ilmap lookup f.ilmap 1 0; echo "lookup: exit $?"
timeout 10 ilmap lookup f.ilmap </dev/null; echo "lookup (stdin): exit $?"
timeout 10 ilmap info f.pdb; echo "info: exit $?"
timeout 10 ilmap verify f.ilmap; echo "verify: exit $?"
timeout 10 ilmap compile -q f.pdb -o out.ilmap; echo "compile: exit $?"
