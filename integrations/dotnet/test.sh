#!/usr/bin/env bash
# Builds and runs the Ilmap library's xunit tests (Ilmap.Tests) against the built ilmap program and
# shared library (the native reader the managed one is compared with; the golden bad caches are
# looked for beside ILMAP_EXE, in BUILD/tests/hostile/golden): test.sh ILMAP_EXE LIBILMAP_SO CORPUS_DIR OUTDIR
# (ctest dotnet_ilmap_library passes them). Everything is written under OUTDIR. Exit 77 (skip)
# without dotnet or when the test packages cannot be restored.
set -euo pipefail
if [ $# -ne 4 ]; then
    echo "usage: $0 ILMAP_EXE LIBILMAP_SO CORPUS_DIR OUTDIR" >&2
    exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"
ilmap_require_dotnet
mkdir -p "$4"
out=$(cd "$4" && pwd)
project="$here/Ilmap.Tests/Ilmap.Tests.csproj"

if ! dotnet restore "$project" "${ilmap_restore_args[@]}" --artifacts-path "$out/artifacts" \
        -v quiet "${ilmap_build_args[@]}" >"$out/restore.log" 2>&1; then
    cat "$out/restore.log"
    echo "SKIP: the test packages could not be restored (log: $out/restore.log)"
    exit 77
fi
if ! dotnet build "$project" -c Release --no-restore --artifacts-path "$out/artifacts" \
        -v quiet "${ilmap_build_args[@]}" >"$out/build.log" 2>&1; then
    cat "$out/build.log" >&2
    echo "build of Ilmap.Tests failed (log: $out/build.log)" >&2
    exit 1
fi
# The NuGet Windows PDB corpus (corpus/windows), restored as oracle_cecil_nuget restores it, for
# the agreement tests; without a NuGet source it is left out, and said so.
windows_corpus="" rc=0
"$here/../../corpus/windows/restore.sh" >"$out/windows-restore.out" 2>"$out/windows-restore.log" || rc=$?
if [ $rc -eq 0 ]; then
    windows_corpus=$(tail -n 1 "$out/windows-restore.out")
    echo "NuGet Windows PDB corpus: $windows_corpus"
elif [ $rc -eq 77 ]; then
    echo "note: the NuGet Windows PDB corpus could not be restored: not in the agreement tests ($(tail -n 1 "$out/windows-restore.log"))"
else
    cat "$out/windows-restore.log" >&2
    echo "the NuGet Windows PDB corpus differs from corpus/windows/manifest.tsv" >&2
    exit 1
fi
ILMAP_WINDOWS_CORPUS=$windows_corpus \
ILMAP_EXE=$(realpath "$1") ILMAP_LIBRARY=$(realpath "$2") ILMAP_CORPUS_DIR=$(realpath "$3") \
    dotnet test "$project" -c Release --no-build --artifacts-path "$out/artifacts" "${ilmap_build_args[@]}" \
    --logger "console;verbosity=normal"
