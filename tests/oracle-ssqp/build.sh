#!/bin/sh
# Build the SSQP client oracle out of tree: build.sh OUTDIR.
# tests/dotnet-build.sh does the work; prints the path of the apphost on success.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 1
fi
exec "$here/../dotnet-build.sh" "$here/SsqpOracle.csproj" "ssqp oracle" "$1"
