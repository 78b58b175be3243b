# Output that cannot be written is an I/O failure (exit 2, one message), for every command:
# dump, lookup, info, verify and compile with stdout on /dev/full (always "no space left").
. "$(dirname "$0")/../common.sh"
[[ -w /dev/full ]] || { echo "/dev/full not available"; exit 77; }
frames_cache c.ilmap
ilmap dump c.ilmap >/dev/full; echo "dump: exit $?"
ilmap dump --documents frames.pdb >/dev/full; echo "dump --documents: exit $?"
ilmap lookup c.ilmap 0x06000001 0 >/dev/full; echo "lookup: exit $?"
ilmap info c.ilmap >/dev/full; echo "info: exit $?"
ilmap verify c.ilmap >/dev/full; echo "verify: exit $?"
ilmap compile frames.pdb -o d.ilmap >/dev/full; echo "compile: exit $?"
ilmap help >/dev/full; echo "help: exit $?"
