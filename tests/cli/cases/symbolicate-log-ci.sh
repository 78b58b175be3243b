# Frames in a CI job's log: GitHub Actions and Azure Pipelines put "<ISO 8601 time, 7 fraction
# digits>Z " before every line of the logs they keep and let one download (GitHub Docs "Using
# workflow run logs"). The trace is a real CoreCLR one (corpus/traces/cs-frames.il-offsets.txt)
# indented as `dotnet test` prints a failed test's stack trace.
. "$(dirname "$0")/../common.sh"
need "$FRAMES.pdb" "$FRAMES.dll" "$CORPUS/traces/cs-frames.il-offsets.txt"
mkdir pe && cp "$FRAMES.pdb" "$FRAMES.dll" pe/
{
  echo '##[group]Run dotnet test --no-build'
  echo '  Failed Ilmap.Tests.ScenarioTests.Plain [12 ms]'
  echo '  Error Message:'
  awk '/^== generic-nested$/ { exit } /^Ilmap/ { print "   " $0; print "  Stack Trace:" } /^   at / { print "  " $0 }' \
    "$CORPUS/traces/cs-frames.il-offsets.txt"
  echo '##[error]Process completed with exit code 1.'
} | awk '{ printf "2026-11-24T10:00:00.%07dZ %s\n", NR * 1234567 % 10000000, $0 }' >job.log
ilmap symbolicate --search pe --cache-dir cc job.log; echo "exit $?"
