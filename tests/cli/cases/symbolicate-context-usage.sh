# Bad --context, --source-root and --color values are usage errors (exit 1) before anything is
# read (docs/symbolicate.md).
. "$(dirname "$0")/../common.sh"
printf 'no frames\n' >t.txt
mkdir dir
for args in "--context -1" "--context abc" "--context 101" "--source-root nodir" \
            "--source-root /_/=missing" "--source-root /_/=t.txt" "--source-root =dir" "--source-root /_/=" \
            "--color=sometimes"; do
  echo "-- $args"
  # shellcheck disable=SC2086  # split on purpose
  ilmap symbolicate --search dir $args t.txt 2>&1
  echo "exit $?"
done
echo "-- valid: --context 0, --context 100, PREFIX=DIR with '=' in DIR's name"
mkdir 'a=b'
ilmap symbolicate --search dir --context 0 t.txt 2>/dev/null; echo "exit $?"
ilmap symbolicate --search dir --context 100 --source-root 'x=a=b' t.txt 2>/dev/null; echo "exit $?"
