# An unknown subcommand, or none: usage error, exit 1, nothing on stdout.
. "$(dirname "$0")/../common.sh"
ilmap frobnicate x 2>/dev/null; echo "exit $?"
ilmap 2>/dev/null; echo "exit $?"
ilmap lookup 2>/dev/null; echo "exit $?"
ilmap compile --no-such-flag x.pdb 2>/dev/null; echo "exit $?"
ilmap frobnicate
