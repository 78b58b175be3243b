#!/usr/bin/env bash
# test.sh BUILD_DIR CORPUS - the Python package as its users get it: builds the wheel
# (build-wheel.sh, bundling BUILD_DIR/capi/libilmap.so.1), installs it with pip from the file
# alone (--no-index) into a fresh venv of Debian's python3 (--system-site-packages, for Debian's
# pytest), and runs tests/test_ilmap.py from a temporary folder outside the source tree, so the
# installed package is what is imported. The expected values are the .NET runtime's frames
# (CORPUS/runtime-frames.tsv, CORPUS/traces) and what BUILD_DIR's `ilmap` prints (`info` of the
# corpus PDB and PE, `lines`, `compile`, `symbolicate`); the package's version must be the
# project's (VERSION).
# Exit 0 pass, 1 fail, 77 skip (python3 venv/pip/pytest or the corpus absent).
set -euo pipefail
export LC_ALL=C.UTF-8
[[ $# -eq 2 ]] || { echo "usage: $0 BUILD_DIR CORPUS" >&2; exit 2; }
build=$(cd "$1" && pwd) corpus=$(cd "$2" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${ILMAP_PYTHON:-/usr/bin/python3}
ilmap=$build/tools/ilmap
tsv=$corpus/runtime-frames.tsv manifest=$corpus/manifest.tsv

[[ -x $python ]] || { echo "SKIP: $python not found (Debian's python3)"; exit 77; }
for module in venv ensurepip pip pytest setuptools wheel; do
  "$python" -c "import $module" 2>/dev/null \
    || { echo "SKIP: python3 module $module missing (scripts/install-deps.sh installs python3-venv, python3-pip, python3-pytest, python3-setuptools, python3-wheel)"; exit 77; }
done
[[ -f $tsv && -f $manifest ]] || { echo "SKIP: $tsv or $manifest not found"; exit 77; }
[[ -x $ilmap && -f $build/capi/libilmap.so.1 ]] || { echo "FAIL: $ilmap or $build/capi/libilmap.so.1 not built"; exit 1; }

# One version: the package's is the project's.
project_version=$(head -n 1 "$here/../../VERSION")
package_version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$here/ilmap/_version.py")
[[ -n $project_version && $project_version == "$package_version" ]] \
  || { echo "FAIL: ilmap/_version.py says '$package_version', VERSION '$project_version'"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-python.XXXXXX")
trap 'rm -rf "$work"' EXIT
data=$work/data
mkdir -p "$data" "$work/run"

# The wheel, then a venv that installs it as pip does, from the file alone.
wheel=$("$here/build-wheel.sh" "$build" "$work/wheels" | tail -n 1)
# Tagged manylinux_X_Y_<arch> with X.Y the newest glibc version the library needs, as objdump
# (not setup.py's own reading) lists its symbols.
glibc=$(objdump -T "$build/capi/libilmap.so.1" | grep -o 'GLIBC_[0-9]*\.[0-9]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)
arch=x86_64
if objdump -f "$build/capi/libilmap.so.1" | grep aarch64 >/dev/null; then arch=aarch64; fi
want_wheel="ilmap-$project_version-py3-none-manylinux_${glibc/./_}_$arch.whl"
[[ ${wheel##*/} == "$want_wheel" ]] || { echo "FAIL: wheel name ${wheel##*/} (want $want_wheel)"; exit 1; }
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-index --no-deps "$wheel"

# The corpus PE of the runtime's frames (its PDB beside it), as c_api_test.sh picks it.
asm=$(awk -F'\t' 'NR > 1 && !/^#/ && NF > 0 { print $3; exit }' "$tsv")
read -r dll pdb < <(awk -F'\t' -v want="$asm.dll" '{ n = split($2, p, "/"); if (p[n] == want && $3 != "-") { print $2, $3; exit } }' "$manifest")
[[ -n ${pdb:-} ]] || { echo "FAIL: no manifest row with dll $asm.dll and a .pdb"; exit 1; }
"$ilmap" compile -q "$corpus/$dll" -o "$data/frames.ilmap"
mkdir "$work/alone" && cp "$corpus/$pdb" "$work/alone/"  # no PE beside it: no names, no PE identity
"$ilmap" compile -q "$work/alone/${pdb##*/}" -o "$data/pdb-only.ilmap"
cp "$corpus/$pdb" "$data/not-a-cache"

# The identity, as `ilmap info` reads it from the PDB and the PE themselves.
field() { awk -v k="$1:" '$1 == k { print $2; exit }' "$2"; }
"$ilmap" info "$corpus/$pdb" >"$work/pdb.info"
"$ilmap" info "$corpus/$dll" >"$work/pe.info"
{
  echo "pdb_id $(field pdb_id "$work/pdb.info")"
  echo "debug_id $(field debug_id "$work/pdb.info")"
  echo "pdb_key $(field ssqp_key "$work/pdb.info")"
  echo "pe_name ${dll##*/}"
  echo "pe_key $(field pe_ssqp_key "$work/pe.info")"
  echo "code_id $(field pe_code_id "$work/pe.info")"
  echo "mvid $(field mvid "$work/pe.info")"
  echo "assembly_name $asm"
  echo "version $("$ilmap" --version | awk '{ print $2 }')"
} >"$data/identity"
awk 'NF != 2 { print "FAIL: no value for " $1 " in ilmap info"; bad = 1 } END { exit bad }' "$data/identity"

# `ilmap lines` of every file:line the runtime printed, a non-ASCII path's suffix, and a line
# past the end (no code: exit 3, no output); lines.tsv with the default rule (the debugger's),
# lines-all-methods.tsv with --all-methods; the line after each of the runtime's, and two lines
# the rules bind differently (a statement that declares a lambda, a switch expression).
{
  awk -F'\t' 'NR > 1 && !/^#/ && $6 != "" { print $6 ":" $7; print $6 ":" $7 + 1 }' "$tsv" | sort -u
  echo "Ümläut.cs:1"
  echo "Scenarios.cs:100000"
  echo "Scenarios.cs:44"
  echo "Scenarios.cs:101"
} >"$work/lines.queries"
for rule in default all-methods; do
  options=() out=$data/lines.tsv
  [[ $rule == default ]] || options=(--all-methods) out=$data/lines-$rule.tsv
  while IFS= read -r query; do
    printf '%s\t\n' "$query"
    rc=0
    "$ilmap" lines "${options[@]}" "$data/frames.ilmap" "$query" >"$work/lines.out" 2>/dev/null || rc=$?
    [[ $rc -eq 0 || $rc -eq 3 ]] || { echo "FAIL: ilmap lines ${options[*]} $query: exit $rc" >&2; exit 1; }
    sed "s|^|$query\t|" "$work/lines.out"
  done <"$work/lines.queries" >"$out"
done

# A PDB with embedded sources, compiled with --embed-sources; its source file in corpus/src.
sources_pdb=$(awk -F'\t' '$4 == "embedded-sources" && $3 != "-" { print $3; exit }' "$manifest")
source_file=$corpus/src/EmbeddedSources/Inventory.cs
[[ -n $sources_pdb && -f $source_file ]] || { echo "FAIL: no embedded-sources PDB in $manifest, or no $source_file"; exit 1; }
"$ilmap" compile -q --embed-sources "$corpus/$sources_pdb" -o "$data/sources.ilmap"
echo "$source_file" >"$data/source"

# compile and Symbolicator (the C API's compile and symbolicate): the PE, and what the program
# prints for the same work.
echo "$corpus/$dll" >"$data/pe_path"
# A local store for fetch (a folder symbol path): the PE and its PDB, with the PDB's cache.
mkdir "$work/store-in" && cp "$corpus/$dll" "$corpus/$pdb" "$work/store-in/"
"$ilmap" store add "$data/store" "$work/store-in" >/dev/null
"$ilmap" info "$data/frames.ilmap" | awk '$1 == "sequence_points:" { print $2 }' >"$data/points"
# Every method of frames.ilmap at IL offsets 0..255, and what `ilmap lookup` answers for each
# (one line a query, "??:0:0" for none): the state-machine fallback the binding must share.
methods=$("$ilmap" info "$data/frames.ilmap" | awk '$1 == "methods:" { print $2 }')
for ((row = 1; row <= methods; row++)); do
  for ((il = 0; il < 256; il++)); do printf '0x%08x %d\n' $((0x06000000 | row)) "$il"; done
done >"$data/lookup-queries.txt"
"$ilmap" lookup "$data/frames.ilmap" <"$data/lookup-queries.txt" >"$data/lookup-answers.txt"
"$ilmap" symbolicate --columns --search "$(dirname "$corpus/$dll")" --cache-dir "$work/sym-cache" \
  "$corpus/traces/cs-frames.il-offsets.txt" >"$data/symbolicate-columns.txt" 2>/dev/null

# From outside the source tree, with nothing that could point at another copy of the package.
cp "$here/tests/test_ilmap.py" "$work/run/"
cd "$work/run"
env -u PYTHONPATH -u ILMAP_LIBRARY -u PYTHONHOME \
  ILMAP_TEST_DIR="$data" ILMAP_TEST_CORPUS="$corpus" ILMAP_TEST_VENV="$work/venv" \
  "$work/venv/bin/python" -m pytest -q -p no:cacheprovider test_ilmap.py
