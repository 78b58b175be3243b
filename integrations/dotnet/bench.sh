#!/usr/bin/env bash
# Builds and runs the lookup benchmark (Ilmap.Bench): bench.sh LIBILMAP_SO OUTDIR CACHE PDB [options]
# Options go to the program: --queries FILE (bench/ilmap_gen_queries format), --repeat N,
# --warmup-ms MS, --reader managed|native. Builds into OUTDIR; prints key=value figures (BENCHMARKS.md ".NET").
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: $0 LIBILMAP_SO OUTDIR CACHE PDB [--queries FILE] [--repeat N] [--warmup-ms MS]" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"
ilmap_require_dotnet
lib=$(realpath "$1")
mkdir -p "$2"
out=$(cd "$2" && pwd)
shift 2
dotnet build "$here/Ilmap.Bench/Ilmap.Bench.csproj" -c Release "${ilmap_restore_args[@]}" \
    --artifacts-path "$out/artifacts" -o "$out/bin" -v quiet "${ilmap_build_args[@]}" >"$out/build.log" 2>&1 || {
    cat "$out/build.log" >&2
    echo "build of Ilmap.Bench failed (log: $out/build.log)" >&2
    exit 1
}
ILMAP_LIBRARY="$lib" "$out/bin/Ilmap.Bench" "$@"
