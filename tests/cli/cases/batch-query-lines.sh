# The query lines of both --batch modes (docs/text-output.md "Query lines"): lookup and lines
# read them alike. A CR before the LF (a Windows-edited file) and spaces or tabs around the query
# are ignored; a blank line is a malformed query that still gets its answer, so answers stay in
# step with queries; a CR inside a line separates nothing; a line over 65536 bytes (a CR before
# its LF counted) is rejected and the run goes on. IL_OFFSET takes 0X as well as 0x. A batch
# whose answers include ??:0:0 but no malformed line exits 0.
. "$(dirname "$0")/../common.sh"
frames_cache f.ilmap
printf '0x0600000a 7\r\n  10\t0X7 \r\n\r\n \t\n10\r7\n0x0600000a 7\r\r\n0x0600000a 7\r' |
  ilmap lookup f.ilmap --batch; echo "exit $?"
printf 'Program.cs:1\r\n\tScenarios.cs:11  \r\n\r\nProgram.cs:1\r\r\nProgram.cs:1\r' |
  ilmap lines f.ilmap --batch; echo "exit $?"
# 65536 bytes: a (malformed) query; 65535 bytes and a CR: the same; 65536 bytes and a CR: too long.
long=$(head -c 65535 /dev/zero | tr '\0' 'a')
printf '%s\n%s\r\n%s\r\n0x0600000a 7\n' "${long}a" "$long" "${long}a" | ilmap lookup f.ilmap --batch; echo "exit $?"
printf '%s\r\nProgram.cs:1\n' "${long}a" | ilmap lines f.ilmap --batch; echo "exit $?"
# Only answers, some of them ??:0:0: exit 0 (a single lookup without an answer exits 3).
printf '99999 0\n10 -1\n10 0x7\n' | ilmap lookup f.ilmap --batch; echo "exit $?"
ilmap lookup f.ilmap 10 0X7; echo "exit $?"
ilmap lookup f.ilmap 10 -1; echo "exit $?"
