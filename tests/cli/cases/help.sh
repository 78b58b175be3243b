# --help of the program and of every subcommand exits 0 and prints a usage line.
. "$(dirname "$0")/../common.sh"
for sub in "" compile lookup dump info verify; do
  out=$(ilmap $sub --help 2>&1); rc=$?
  first=$(printf '%s\n' "$out" | grep -m1 -i 'usage' || true)
  echo "ilmap${sub:+ $sub} --help: exit $rc${first:+, has a usage line}"
done
ilmap --version; echo "exit $?"
