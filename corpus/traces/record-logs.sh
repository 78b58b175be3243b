#!/usr/bin/env bash
# record-logs.sh - records the real log outputs of corpus/traces/logs/ (docs/symbolicate.md "Logs",
# tests/cli/cases/symbolicate-log-*.sh): exceptions thrown through corpus/out/cs-frames with its PDB
# absent and ShowILOffsets on, as real log pipelines write them.
#   journald.short.txt     the first two scenarios of cs-frames.il-offsets.txt sent to journald by
#   journald.short-iso.txt `systemd-cat -t app`, read back by `journalctl -t app -o short`,
#   journald.json          `-o short-iso` and `-o json` (one JSON object per entry, the line in MESSAGE)
#   mel.simple.txt         Microsoft.Extensions.Logging's console formatters (tests/symbolicate/
#   mel.single-line.txt    logrecorder: the first two scenarios of Scenarios.All(), run by CoreCLR
#   mel.json               without the PDB): the simple layout (timestamp, level, category, the trace
#   mel.systemd.txt        indented), the same on one line, the JSON console, the systemd console
# Needs dotnet (SDK 10 and the ASP.NET Core shared framework) and a running journald (in a
# container without systemd, start /lib/systemd/systemd-journald first). Not deterministic: the
# recordings carry the time, host name and process id of the run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$here/logs
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-logs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out" "$tmp/nopdb"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 MSBUILDDISABLENODEREUSE=1

# journald: the recorded trace through systemd-cat, read back after the cursor of this run.
awk '/^== lambda$/ { exit } { print }' "$here/cs-frames.il-offsets.txt" >"$tmp/trace.txt"
cursor=$(journalctl -n 0 --show-cursor --no-pager | sed -n 's/^-- cursor: //p')
systemd-cat -t app <"$tmp/trace.txt"
sleep 1
journal() { journalctl -t app --after-cursor "$cursor" --no-pager "$@"; }
journal -o short >"$out/journald.short.txt"
journal -o short-iso >"$out/journald.short-iso.txt"
journal -o json --output-fields=MESSAGE,PRIORITY,SYSLOG_IDENTIFIER,_PID >"$out/journald.json"
[[ $(wc -l <"$out/journald.short.txt") -eq $(wc -l <"$tmp/trace.txt") ]] || { echo "journald lost lines" >&2; exit 1; }

# Microsoft.Extensions.Logging, from the shared framework (nothing to restore).
cp "$here/../NuGet.config" "$tmp/"
dotnet build "$root/tests/symbolicate/logrecorder/LogRecorder.csproj" -c Release --nologo -v quiet -o "$tmp/bin" \
    --artifacts-path "$tmp/artifacts" "-p:PathMap=$root/tests/symbolicate/logrecorder=/_/logrecorder" \
    -p:RestoreConfigFile="$tmp/NuGet.config" -p:UseSharedCompilation=false -nodeReuse:false >"$tmp/build.log" 2>&1 ||
    { cat "$tmp/build.log" >&2; exit 1; }
cp "$root/corpus/out/cs-frames/Ilmap.Corpus.Frames.dll" "$tmp/nopdb/"
rc=$tmp/bin/LogRecorder.runtimeconfig.json
sed 's/"configProperties": {/&\n      "Switch.System.Diagnostics.StackTrace.ShowILOffsets": true,/' "$rc" >"$rc.new" && mv "$rc.new" "$rc"
grep -q ShowILOffsets "$rc" || { echo "could not switch ShowILOffsets on in $rc" >&2; exit 1; }
for mode in simple single-line json systemd; do
  case $mode in json) file=mel.json ;; *) file=mel.$mode.txt ;; esac
  dotnet "$tmp/bin/LogRecorder.dll" "$mode" "$tmp/nopdb/Ilmap.Corpus.Frames.dll" 2 >"$out/$file"
done
if grep -l -e "$root" -e "$tmp" -e "$HOME" "$out"/*; then echo "a recording holds a path of this machine" >&2; exit 1; fi
echo "recorded: $(cd "$out" && ls | tr '\n' ' ')"
