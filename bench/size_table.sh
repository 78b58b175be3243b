#!/usr/bin/env bash
# bench/size_table.sh - cache bytes per section over every .pdb of corpus/out and
# ../shared/corpus-public (issue 14's measure): each PDB compiled twice, "alone" (copied into an
# empty directory: no DLL beside it, so no method names) and "default" (where it lies: a
# same-named DLL beside it gives names), summed per section from `ilmap info --json`. Prints one
# line per PDB and the totals, with bytes per sequence point. BENCHMARKS.md "Cache size".
#
#   bench/size_table.sh [--build DIR] [--ilmap PATH] [--out DIR] [--write FILE] [PDB...]
#     --build DIR   a Release build with the target ilmap (default build/release)
#     --ilmap PATH  the ilmap program to measure (default DIR/tools/ilmap); e.g. an older build
#     --out DIR     where the caches go (default DIR/size-table)
#     --write FILE  replace the sections size-sections and size-files of FILE (between the lines
#                   <!-- NAME:begin --> and <!-- NAME:end -->) with Markdown tables of the same
#                   figures (scripts/bench-write.py), instead of printing the listing
#     PDB...        measure these instead of the corpus and shared PDBs
# Never a ctest test.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/bench-lib.sh"
ARGS=("$@")
WRITE=""
BUILD="$ROOT/build/release"
ILMAP=""
OUT=""
PDBS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) BUILD="$2"; shift ;;
    --ilmap) ILMAP="$2"; shift ;;
    --out) OUT="$2"; shift ;;
    --write) WRITE="$(realpath "$2")"; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
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
load_before=$(bench_load)
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
if [[ -z $WRITE ]]; then
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
exit 0
fi

# --write: the same figures as Markdown, each section stamped with the command that reproduces it
cmd="bench/size_table.sh --build $(bench_rel "$BUILD")"
[[ ${#ARGS[@]} -gt 0 && " ${ARGS[*]} " == *" --ilmap "* ]] && cmd+=" --ilmap ILMAP"
stamp=$(bench_stamp "$cmd" "$load_before")
python3 - "$OUT/info.jsonl" "$OUT" "$stamp" <<'PY'
import collections, json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
out, stamp = sys.argv[2], sys.argv[3]
fig = open(os.environ["BENCH_FIGURES"], "a") if os.environ.get("BENCH_FIGURES") else None
def figure(k, v):
    if fig: fig.write(f"{k}\t{v}\n")
by_pdb = collections.OrderedDict()
for r in rows:
    by_pdb.setdefault(r["pdb"], {})[r["mode"]] = r
def name(pdb):
    d = os.path.basename(os.path.dirname(pdb))
    return f"corpus/{d}" if pdb.startswith("corpus/") else d
sections = [("point blocks", ["section_point_blocks_bytes"]),
            ("method directory (+ profile table and index)", ["section_method_directory_bytes"]),
            ("documents + strings", ["section_documents_bytes"]),
            ("details", ["section_details_bytes"]),
            ("reverse line index", ["section_lines_bytes"]),
            ("method names", ["section_names_bytes"])]
tot = {m: collections.Counter() for m in ("alone", "default")}
for r in rows:
    t = tot[r["mode"]]
    t["points"] += r.get("sequence_points", 0)
    for k, v in r.items():
        if isinstance(v, int) and (k.startswith("section_") or k == "file_size"):
            t[k] += v
pts = tot["alone"]["points"] or 1
lines = [stamp, "",
         f"{len(by_pdb)} PDBs, {tot['alone']['points']:,} sequence points; bytes summed over `ilmap info --json` of every cache.",
         "", "| section | alone: bytes | per point | default: bytes | per point |", "| --- | ---: | ---: | ---: | ---: |"]
named = 0
for label, keys in sections:
    a = sum(tot["alone"][k] for k in keys); d = sum(tot["default"][k] for k in keys)
    lines.append(f"| {label} | {a:,} | {a / pts:.2f} | {d:,} | {d / pts:.2f} |")
for mode in ("alone", "default"):
    t = tot[mode]
    t["other"] = t["file_size"] - sum(t[k] for _, ks in sections for k in ks)
lines.append(f"| identity, FlatBuffers tables, header (the rest) | {tot['alone']['other']:,} | {tot['alone']['other'] / pts:.2f} "
             f"| {tot['default']['other']:,} | {tot['default']['other'] / pts:.2f} |")
fa, fd = tot["alone"]["file_size"], tot["default"]["file_size"]
lines.append(f"| **whole files** | **{fa:,}** | **{fa / pts:.2f}** | **{fd:,}** | **{fd / pts:.2f}** |")
pointsec = tot["alone"]["section_point_blocks_bytes"] + tot["alone"]["section_method_directory_bytes"]
with_names = sum(1 for m in by_pdb.values() if m["default"].get("section_names_bytes", 0))
lines += ["", f"The point sections (blocks and directory with its profiles) take **{pointsec / pts:.2f}** bytes per point; "
          f"{with_names} of the {len(by_pdb)} PDBs have a DLL beside them, whose method names the default compile adds."]
figure("size.pdbs", len(by_pdb)); figure("size.points", tot["alone"]["points"])
figure("size.alone_bpp", f"{fa / pts:.2f}"); figure("size.default_bpp", f"{fd / pts:.2f}")
figure("size.point_sections_bpp", f"{pointsec / pts:.2f}")
figure("size.blocks_bpp", f"{tot['alone']['section_point_blocks_bytes'] / pts:.2f}")
open(f"{out}/size-sections.md", "w").write("\n".join(lines) + "\n")
lines = [stamp, "", "| PDB | points | alone | default | B/point alone |", "| --- | ---: | ---: | ---: | ---: |"]
for pdb, m in by_pdb.items():
    p = m["alone"].get("sequence_points", 0)
    a, d = m["alone"]["file_size"], m["default"]["file_size"]
    lines.append(f"| {name(pdb)} | {p:,} | {a:,} | {d:,} | {a / p:.2f} |" if p else f"| {name(pdb)} | 0 | {a:,} | {d:,} | n/a |")
    if name(pdb) == "symbolic_Sentry.Samples.Maui":
        figure("size.maui_alone", a)
open(f"{out}/size-files.md", "w").write("\n".join(lines) + "\n")
PY
bench_write "$WRITE" size-sections "$OUT/size-sections.md"
bench_write "$WRITE" size-files "$OUT/size-files.md"
