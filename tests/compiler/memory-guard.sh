#!/usr/bin/env bash
# memory-guard.sh ILMAP GEN_PDB BUILD_TYPE SANITIZE [MARGIN_MIB] - the memory guard of issue 47:
# the peak resident memory of one whole-process `ilmap compile` of the 100 MB synthetic PDB
# (`ilmap_gen_pdb --size-mb 100 --seed 5`, 18.4M points) must stay at most input + output +
# MARGIN_MIB (default 64 MiB, the goal of issue 47). docs/architecture.md ("Memory") gives the
# model behind the bound; resident memory is deterministic enough for a margin (BENCHMARKS.md,
# "Memory"). Before issue 47 the same compile took 927 MB, input + output + 711 MB; now about
# input + output + 11 MiB. Takes a few seconds.
# Exit 0 pass, 1 fail, 77 skip (not a Release build, a sanitizer build, or no ilmap_gen_pdb).
set -euo pipefail
ilmap=$1 gen=$2 build_type=$3 sanitize=$4 margin_mib=${5:-64}
case "$build_type" in Release|RelWithDebInfo) ;; *) echo "SKIP: $build_type build (the bound is for Release)"; exit 77 ;; esac
case "$sanitize" in ON|on|1|TRUE|true) echo "SKIP: sanitizer build"; exit 77 ;; esac
[[ -x $gen ]] || { echo "SKIP: $gen is not built (bench/, ILMAP_BUILD_BENCH)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-memory-guard.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$gen" --size-mb 100 --seed 5 -o "$work/syn-100mb.pdb" > /dev/null
# The child's peak (ru_maxrss of the waited-for child; it counts the pages python3 had before
# the exec, about 13 MB: nothing beside the bound).
python3 - "$ilmap" "$work/syn-100mb.pdb" "$work/syn-100mb.ilmap" "$margin_mib" <<'PY'
import os, resource, subprocess, sys
ilmap, pdb, out, margin_mib = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
subprocess.run([ilmap, "compile", pdb, "-o", out, "-q"], check=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
mib = 1 << 20
inp, outp = os.path.getsize(pdb), os.path.getsize(out)
bound = inp + outp + margin_mib * mib
print(f"peak resident {peak / mib:.1f} MiB; input {inp / mib:.1f} MiB + output {outp / mib:.1f} MiB "
      f"+ {margin_mib} MiB = bound {bound / mib:.1f} MiB; over input + output: {(peak - inp - outp) / mib:.1f} MiB")
if peak > bound:
    print("FAIL: the compile's peak resident memory is over its bound (docs/architecture.md, \"Memory\")")
    sys.exit(1)
print("ok")
PY
