#!/usr/bin/env bash
# bench/size_table.sh - cache bytes per section over every .pdb of corpus/out and
# ../shared/corpus-public (issue 14's measure): each PDB compiled twice, "alone" (copied into an
# empty directory: no DLL beside it, so no method names) and "default" (where it lies: a
# same-named DLL beside it gives names), summed per section from `ilmap info --json`. Prints one
# line per PDB and the totals, with bytes per sequence point. BENCHMARKS.md "Cache size".
#
#   bench/size_table.sh [--build DIR] [--ilmap PATH] [--out DIR] [PDB...]
#     --build DIR   a Release build with the target ilmap (default build/release)
#     --ilmap PATH  the ilmap program to measure (default DIR/tools/ilmap); e.g. an older build
#     --out DIR     where the caches go (default DIR/size-table)
#     PDB...        measure these instead of the corpus and shared PDBs
# Never a ctest test.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build/release"
ILMAP=""
OUT=""
PDBS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift ;;
    --ilmap) ILMAP="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "size_table.sh: unknown option $1" >&2; exit 1 ;;
    *) PDBS+=("$1") ;;
  esac
  shift
done
ILMAP="${ILMAP:-$BUILD/tools/ilmap}"
OUT="${OUT:-$BUILD/size-table}"
[[ -x $ILMAP ]] || { echo "size_table.sh: no ilmap program at $ILMAP (build the target ilmap)" >&2; exit 1; }
if [[ ${#PDBS[@]} -eq 0 ]]; then
  while IFS= read -r f; do PDBS+=("$f"); done < <(
    { find "$ROOT/corpus/out" -name '*.pdb' 2>/dev/null; find "$ROOT/../shared/corpus-public" -name '*.pdb' 2>/dev/null; } | sort)
fi
[[ ${#PDBS[@]} -gt 0 ]] || { echo "size_table.sh: no PDBs (build the corpus: corpus/build.sh)" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT/alone" "$OUT/default"
: > "$OUT/info.jsonl"
i=0
for pdb in "${PDBS[@]}"; do
  i=$((i + 1))
  name="$(basename "$pdb")"
  mkdir -p "$OUT/alone/$i"
  cp "$pdb" "$OUT/alone/$i/$name"
  "$ILMAP" compile "$OUT/alone/$i/$name" -o "$OUT/alone/$i.ilmap" -q
  "$ILMAP" compile "$pdb" -o "$OUT/default/$i.ilmap" -q
  for mode in alone default; do
    "$ILMAP" info --json "$OUT/$mode/$i.ilmap" |
      python3 -c 'import json,sys; o=json.load(sys.stdin); o["pdb"]=sys.argv[1]; o["mode"]=sys.argv[2]; print(json.dumps(o))' \
        "${pdb#"$ROOT/"}" "$mode" >> "$OUT/info.jsonl"
  done
done
python3 - "$OUT/info.jsonl" <<'PY'
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = ["section_point_blocks_bytes", "section_method_directory_bytes", "section_documents_bytes",
        "section_details_bytes", "section_lines_bytes", "section_names_bytes", "file_size"]
short = {"section_point_blocks_bytes": "blocks", "section_method_directory_bytes": "directory",
         "section_documents_bytes": "documents", "section_details_bytes": "details",
         "section_lines_bytes": "lines", "section_names_bytes": "names", "file_size": "file"}
print("%-70s %7s %8s %9s %9s" % ("pdb", "points", "alone", "default", "B/pt alone"))
by_pdb = collections.OrderedDict()
for r in rows:
    by_pdb.setdefault(r["pdb"], {})[r["mode"]] = r
for pdb, m in by_pdb.items():
    pts = m["alone"].get("sequence_points", 0)
    bpt = "%.2f" % (m["alone"]["file_size"] / pts) if pts else "n/a"
    print("%-70s %7d %8d %9d %9s" % (pdb[-70:], pts, m["alone"]["file_size"], m["default"]["file_size"], bpt))
for mode in ("alone", "default"):
    t = collections.Counter()
    for r in rows:
        if r["mode"] != mode:
            continue
        t["points"] += r.get("sequence_points", 0)
        for k in keys:
            v = r.get(k, 0)
            t[k] += v if isinstance(v, int) else 0
    pts = t["points"] or 1
    print("total %s (%d PDBs, %d points): " % (mode, len(by_pdb), t["points"]) +
          ", ".join("%s %d (%.2f B/pt)" % (short[k], t[k], t[k] / pts) for k in keys))
PY
