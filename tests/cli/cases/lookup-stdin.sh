# lookup CACHE without METHOD reads queries from stdin as --batch does (like llvm-symbolizer
# and addr2line; issue 9 item 20); METHOD without IL_OFFSET stays a usage error.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
printf '%s\n' '0x0600000a 7' '99999 0' | ilmap lookup f.ilmap; echo "exit $?"
printf '%s\n' '0x0600000a 7' | ilmap lookup f.ilmap --json; echo "exit $?"
ilmap lookup f.ilmap 10 </dev/null; echo "exit $?"
