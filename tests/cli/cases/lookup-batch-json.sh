# lookup --batch --json: JSON answers, {"error": ...} for malformed lines; exit 1 (one was malformed).
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
printf '%s\n' '0x0600000a 7' 'hello' '99999 0' '0x06000013 5' | ilmap lookup f.ilmap --batch --json; echo "exit $?"
