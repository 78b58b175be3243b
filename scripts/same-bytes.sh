#!/usr/bin/env bash
# scripts/same-bytes.sh - do two ilmap programs write the same cache bytes?
#
#   scripts/same-bytes.sh OLD_ILMAP NEW_ILMAP [INPUT...]
#
# Compiles every input with both programs (each PDB alone, copied into an empty folder, and
# each .dll/.exe where it lies, so that names and PE identity are compiled too) and compares
# the caches byte for byte. Without INPUTs: every .pdb/.dll/.exe of corpus/out, of
# ../shared/corpus-public (when present) and of the NuGet Windows corpus (corpus/windows, when
# its packages are restored: `corpus/windows/restore.sh` prints their folder; set
# ILMAP_WIN_CORPUS to that folder). An input that both programs refuse with the same exit code
# counts as the same. Use it around a refactoring that must not change a byte: build the old
# revision into another folder (`git worktree add`), then compare.
#
# Prints one line per input that differs and a closing line `N same, N differ`.
# Exit 0 when every cache is the same, 1 when one differs, 2 on a usage error.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[[ $# -ge 2 ]] || { sed -n '4,15p' "$0" >&2; exit 2; }
OLD=$(realpath "$1")
NEW=$(realpath "$2")
shift 2
for p in "$OLD" "$NEW"; do [[ -x $p ]] || { echo "same-bytes.sh: $p is not a program" >&2; exit 2; }; done

INPUTS=("$@")
if [[ ${#INPUTS[@]} -eq 0 ]]; then
  dirs=("$ROOT/corpus/out")
  [[ -d $ROOT/../shared/corpus-public ]] && dirs+=("$ROOT/../shared/corpus-public")
  [[ -n ${ILMAP_WIN_CORPUS:-} && -d $ILMAP_WIN_CORPUS ]] && dirs+=("$ILMAP_WIN_CORPUS")
  while IFS= read -r f; do INPUTS+=("$f"); done < <(
    find "${dirs[@]}" -type f \( -iname '*.pdb' -o -iname '*.dll' -o -iname '*.exe' \) 2>/dev/null | sort)
fi
[[ ${#INPUTS[@]} -gt 0 ]] || { echo "same-bytes.sh: no inputs (build the corpus: corpus/build.sh)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ilmap-same-bytes.XXXXXX")
trap 'rm -rf "$work"' EXIT

# compile PROGRAM INPUT OUT: prints the exit code; a PDB is compiled from a copy alone in a folder.
compile() {
  local prog=$1 input=$2 out=$3 src=$2
  if [[ ${input,,} == *.pdb ]]; then
    mkdir -p "$work/alone"
    src="$work/alone/$(basename "$input")"
    cp "$input" "$src"
  fi
  local rc=0
  "$prog" compile "$src" -o "$out" -q > /dev/null 2>&1 || rc=$?
  rm -rf "$work/alone"
  echo "$rc"
}

same=0
differ=0
for input in "${INPUTS[@]}"; do
  rc_old=$(compile "$OLD" "$input" "$work/old.ilmap")
  rc_new=$(compile "$NEW" "$input" "$work/new.ilmap")
  label=${input#"$ROOT/"}
  if [[ $rc_old != "$rc_new" ]]; then
    echo "differs: $label (exit $rc_old, then $rc_new)"
    differ=$((differ + 1))
  elif [[ $rc_old != 0 ]] || cmp -s "$work/old.ilmap" "$work/new.ilmap"; then
    same=$((same + 1))
  else
    echo "differs: $label ($(cmp "$work/old.ilmap" "$work/new.ilmap" 2>&1 | head -n 1))"
    differ=$((differ + 1))
  fi
  rm -f "$work/old.ilmap" "$work/new.ilmap"
done
echo "$same same, $differ differ"
[[ $differ -eq 0 ]]
