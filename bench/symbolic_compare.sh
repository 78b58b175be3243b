#!/usr/bin/env bash
# bench/symbolic_compare.sh - ilmap side by side with Sentry's symbolic-ppdb (issue 23), in one run
# on the same PDBs: in-process compile, whole-process compile (hyperfine -N), lookups on the same
# query file, and a check that both answer the hits with the same lines.
#
#   bench/symbolic_compare.sh --symbolic-src DIR [--build DIR] [--work DIR] [--repeat N]
#                             [--rounds N] [--runs N] [--count N] [--pdb FILE]... [--write FILE]
#
# --symbolic-src: a checkout (or extracted tree) of getsentry/symbolic; measured with tag 13.9.0:
#     git clone --branch 13.9.0 --depth 1 https://github.com/getsentry/symbolic
# Only its symbolic-ppdb and symbolic-common sources are used. They are copied into the work
# folder with manifests of our own that ask for the crate versions Debian packages
# (librust-*-dev, installed with apt when missing and the script runs as root) and for
# bench/symbolic/watto-shim in place of `watto` 0.2.0, which Debian lacks (it follows 0.2.0:
# zero-copy reads, each distinct string stored once with the empty one stored too, and a hash
# table of offsets with a fast hasher; see its src/lib.rs), and built offline with cargo's source
# replacement pointing at /usr/share/cargo/registry.
# The caches symbolic writes are checked before anything is measured, and the script stops with
# exit 4 when one fails:
#   - symbolic-ppdb 13.9.0's own tests assert no cache sizes. What they assert is checked on
#     their inputs: tests/test_caches.rs test_documents and test_async (the fixtures
#     Documents.pdbx and Async.pdbx of the source tree: the cache parses back) and
#     test_integration (symbolic-testutils' windows/portable.pdb, or its copy
#     ../shared/corpus-public/symbolic_integration/integration.pdb: five lookups give the lines
#     and the file the test names), and the same five on a copy of that PDB whose document
#     has the empty name (watto 0.2.0 stores "", so they give "" as the file).
#   - Every cache symbolic writes, in those checks and in the measurements (the in-process
#     conversions and the whole-process --once outputs), has exactly the size that
#     bench/symbolic/cache_expect.py works out for its PDB from symbolic-ppdb 13.9.0's cache
#     layout and watto 0.2.0's string table, counting points and documents with `ilmap dump`.
# --build: ilmap's Release build (default build/release: tools/ilmap, bench/ilmap_bench_*).
# --work: scratch folder (default: a new temporary one, removed at the end).
# --repeat: in-process repetitions (default 20); --rounds: interleaved rounds of the in-process
# and lookup measurements, ilmap then symbolic (default 5; the table gives the median round);
# --runs: hyperfine runs (default 30);
# --count: queries per PDB (default 100000, ilmap_gen_queries, 10% misses).
# --pdb: the inputs (default: System.Private.CoreLib.pdb when one is found on this machine, the
#     corpus PDBs corpus/out/*/*.pdb, ../shared/corpus-public/symbolic_Sentry.Samples.Maui,
#     asmresolver_LargeIndicesPdb, and a 100k-point synthetic PDB, ilmap_gen_pdb --seed 3).
#     Each is copied alone into the work folder, so that ilmap stores no method names (symbolic
#     has none) and both programs read the same file.
# --write FILE: replaces the text between "<!-- symbolic:begin -->" and "<!-- symbolic:end -->".
# Exit 3 (after printing and writing) when the two answer a query both hit with different lines;
# exit 4 when a cache symbolic writes fails a check above.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$root/scripts/bench-lib.sh"
build=$root/build/release
work=
src=
repeat=20
runs=30
rounds=5
count=100000
write=
pdbs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --symbolic-src) src=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --pdb) pdbs+=("$2"); shift 2 ;;
    --write) write=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

need_src() {
  cat >&2 <<EOF
$1
Give --symbolic-src DIR, a checkout of getsentry/symbolic, e.g.:
  git clone --branch 13.9.0 --depth 1 https://github.com/getsentry/symbolic
  bench/symbolic_compare.sh --symbolic-src symbolic
EOF
  exit 2
}
[ -n "$src" ] || need_src "no --symbolic-src"
[ -f "$src/symbolic-ppdb/src/cache/lookup.rs" ] && [ -f "$src/symbolic-common/src/lib.rs" ] ||
  need_src "$src: no symbolic-ppdb/src/cache/lookup.rs or symbolic-common/src/lib.rs"
src=$(cd "$src" && pwd)
symver=$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$src/symbolic-ppdb/Cargo.toml" | head -1)

for p in tools/ilmap bench/ilmap_bench_compile bench/ilmap_bench_lookup bench/ilmap_gen_pdb bench/ilmap_gen_queries; do
  [ -x "$build/$p" ] || { echo "missing $build/$p: build Release first (cmake --preset release && cmake --build build/release)" >&2; exit 2; }
done
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"  # where rustup puts cargo and rustc
command -v cargo >/dev/null || { echo "cargo not found (a Rust toolchain is needed)" >&2; exit 2; }

# Debian's crate sources (the versions the manifests below ask for) and hyperfine.
reg=/usr/share/cargo/registry
debs=(librust-indexmap-dev librust-thiserror-dev librust-flate2-dev librust-memmap2-dev
      librust-serde-json-dev librust-serde-dev librust-debugid-dev librust-uuid-dev
      librust-stable-deref-trait-dev librust-hashbrown-dev)
missing=()
for d in "${debs[@]}"; do dpkg -s "$d" >/dev/null 2>&1 || missing+=("$d"); done
command -v hyperfine >/dev/null || missing+=(hyperfine)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -q "${missing[@]}" >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }
  else
    echo "missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2; exit 2
  fi
fi

if [ -z "$work" ]; then
  work=$(mktemp -d /tmp/ilmap-symbolic.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)

# --- symbolic-ppdb, built offline ------------------------------------------------------------
rs=$work/rust
rm -rf "$rs/symbolic-common" "$rs/symbolic-ppdb" "$rs/watto" "$rs/bench"
mkdir -p "$rs/cargo-home"
cp -r "$src/symbolic-common" "$src/symbolic-ppdb" "$rs/"
rm -rf "$rs/symbolic-ppdb/fuzz" "$rs/symbolic-ppdb/benches" "$rs/symbolic-ppdb/tests" "$rs/symbolic-common/tests" "$rs/symbolic-common/benches"
cp -r "$here/symbolic" "$rs/bench"
mv "$rs/bench/watto-shim" "$rs/watto"
cat > "$rs/cargo-home/config.toml" <<EOF
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$reg"
[net]
offline = true
EOF
cat > "$rs/symbolic-common/Cargo.toml" <<EOF
[package]
name = "symbolic-common"
version = "$symver"
edition = "2021"
[features]
serde = []
[dependencies]
debugid = "0.8"
memmap2 = "0.5"
stable_deref_trait = "1.2"
uuid = "1"
EOF
cat > "$rs/symbolic-ppdb/Cargo.toml" <<EOF
[package]
name = "symbolic-ppdb"
version = "$symver"
edition = "2021"
[dependencies]
flate2 = { version = "1", default-features = false, features = ["rust_backend"] }
indexmap = "1.9"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
symbolic-common = { path = "../symbolic-common" }
thiserror = "1"
uuid = "1"
watto = { path = "../watto" }
EOF
sed -i "s|^symbolic-ppdb = .*|symbolic-ppdb = { path = \"../symbolic-ppdb\" }|" "$rs/bench/Cargo.toml"
echo "building symbolic-ppdb $symver (offline, Debian's crates) ..." >&2
CARGO_HOME=$rs/cargo-home CARGO_TARGET_DIR=$rs/target nice cargo build --release --offline -j2 -q \
  --manifest-path "$rs/bench/Cargo.toml"
sym=$rs/target/release/ilmap-symbolic-bench
ilmap=$build/tools/ilmap

# --- the caches symbolic writes, checked (see the top) ------------------------------------------
expect=$here/symbolic/cache_expect.py
check_failed() { echo "symbolic_compare: $1" >&2; exit 4; }
# expected_bytes PDB: the size of symbolic-ppdb's cache of PDB with watto 0.2.0 (cache_expect.py)
expected_bytes() {
  local e
  e=$(python3 "$expect" size "$ilmap" "$1") || check_failed "$1: cache_expect.py could not work out its cache's size"
  e=${e#bytes=}; echo "${e%% *}"
}
# check_size WHAT PDB BYTES [EXPECTED]: BYTES must be the size expected_bytes gives for PDB
check_size() {
  local want=${4:-$(expected_bytes "$2")}
  [ "$3" = "$want" ] || check_failed "$1: symbolic-ppdb wrote a cache of $3 bytes for $2, where symbolic-ppdb $symver's layout with watto 0.2.0's string table gives $want ($(python3 "$expect" size "$ilmap" "$2")): the watto shim (bench/symbolic/watto-shim) does not write what watto 0.2.0 writes"
}
cache_bytes() { sed -n 's/.* cache_bytes=\([0-9]*\).*/\1/p' "$1" | tail -1; }
chk=$work/checks
rm -rf "$chk" && mkdir -p "$chk"
# test_documents, test_async: the fixtures convert, and the caches parse back (the bench
# program parses every cache it converts)
for f in "$src/symbolic-ppdb/tests/fixtures/Documents.pdbx" "$src/symbolic-ppdb/tests/fixtures/Async.pdbx"; do
  [ -f "$f" ] || { echo "note: $f is not in the source tree: its check (test_caches.rs) is skipped" >&2; continue; }
  "$sym" --repeat 1 --pdb "$f" > "$chk/out" || check_failed "$f: symbolic-ppdb's test_caches.rs input does not convert and parse back"
  check_size "test_caches.rs input" "$f" "$(cache_bytes "$chk/out")"
done
# test_integration: windows/portable.pdb, the five lookups it asserts; then the same PDB with its
# document's name emptied, where watto 0.2.0 gives "" as the file (watto 0.1 gave no answer)
portable=$src/symbolic-testutils/fixtures/windows/portable.pdb
[ -f "$portable" ] || portable=$root/../shared/corpus-public/symbolic_integration/integration.pdb
if [ -f "$portable" ]; then
  printf '7 10\n5 6\n3 0\n2 0\n1 45\n' > "$chk/integration.queries"
  python3 "$expect" empty-name "$portable" "$chk/empty-name.pdb"
  for t in "$portable=/Users/swatinem/Coding/sentry-dotnet/samples/foo/Program.cs" "$chk/empty-name.pdb="; do
    p=${t%%=*} file=${t#*=}
    "$sym" --repeat 1 --pdb "$p" --queries "$chk/integration.queries" --answers "$chk/answers" > "$chk/out" ||
      check_failed "$p: symbolic-ppdb's test_integration input does not convert"
    check_size "test_integration input" "$p" "$(cache_bytes "$chk/out")"
    printf '%s\n' "81 $file" "37 $file" "30 $file" "25 $file" "20 $file" > "$chk/want"
    cmp -s "$chk/want" "$chk/answers" ||
      check_failed "$p: test_integration's lookups (7,10) (5,6) (3,0) (2,0) (1,45) should give lines 81 37 30 25 20 in '$file'; symbolic-ppdb gave: $(tr '\n' ';' < "$chk/answers")"
  done
else
  echo "note: no windows/portable.pdb (symbolic-testutils) or corpus-public copy: test_integration's check is skipped" >&2
fi
echo "symbolic-ppdb's caches: sizes and test expectations check out" >&2

# --- inputs ------------------------------------------------------------------------------------
in=$work/in
rm -rf "$in" && mkdir -p "$in"
pdbs_given=("${pdbs[@]}")
if [ ${#pdbs[@]} -eq 0 ]; then
  corelib=$(find / -xdev -name System.Private.CoreLib.pdb -not -path '/proc/*' 2>/dev/null | head -1 || true)
  [ -n "$corelib" ] && pdbs+=("$corelib")
  for f in "$root"/corpus/out/*/*.pdb; do [ -f "$f" ] && pdbs+=("$f"); done
  shared=$root/../shared/corpus-public
  for f in "$shared"/symbolic_Sentry.Samples.Maui/*.pdb "$shared"/asmresolver_LargeIndicesPdb/*.pdb; do
    [ -f "$f" ] && pdbs+=("$f")
  done
  "$build/bench/ilmap_gen_pdb" --points 100000 --seed 3 -o "$work/syn-100kpts.pdb" >/dev/null
  pdbs+=("$work/syn-100kpts.pdb")
fi
names=()
for f in "${pdbs[@]}"; do
  n=$(basename "$f" .pdb)
  while [ -e "$in/$n.pdb" ]; do n=${n}_; done
  cp "$f" "$in/$n.pdb"
  "$ilmap" compile "$in/$n.pdb" -o "$in/$n.ilmap" --force -q
  "$build/bench/ilmap_gen_queries" "$in/$n.ilmap" --count "$count" -o "$in/$n.queries" >/dev/null
  expected_bytes "$in/$n.pdb" > "$in/$n.expected_bytes"
  names+=("$n")
done

# --- measurements ------------------------------------------------------------------------------
res=$work/results
rm -rf "$res" && mkdir -p "$res"
load_before=$(bench_load)
echo "load average before: $load_before" >&2
for n in "${names[@]}"; do
  p=$in/$n.pdb c=$in/$n.ilmap q=$in/$n.queries
  echo "== $n" >&2
  # in process and lookups: interleaved rounds, ilmap then symbolic
  # (both in-process programs with glibc's mmap and trim thresholds set high, as bench.sh runs
  # ilmap_bench_compile, so that repeated conversions reuse the heap instead of faulting in new
  # mappings each time: that cost is the whole-process table's)
  for r in $(seq "$rounds"); do
    MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 \
      "$build/bench/ilmap_bench_compile" --median --repeat "$repeat" --pdb "$p" >> "$res/$n.ilmap_compile"
    MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 \
      "$sym" --repeat "$repeat" --pdb "$p" >> "$res/$n.sym_compile"
    check_size "in process" "$p" "$(cache_bytes "$res/$n.sym_compile")" "$(cat "$in/$n.expected_bytes")"
    "$build/bench/ilmap_bench_lookup" --cache "$c" --queries "$q" --replay --repeat "$repeat" --plain >> "$res/$n.ilmap_lookup"
    "$sym" --repeat "$repeat" --pdb "$p" --queries "$q" --answers "$res/$n.sym_answers" | sed -n 2p >> "$res/$n.sym_lookup"
  done
  # whole process
  hyperfine -N --style none --warmup 3 --runs "$runs" --export-json "$res/$n.hyperfine.json" \
    "$ilmap compile $p -o $res/$n.ilmap --force -q" "$sym --once $p -o $res/$n.symcache" "$(command -v true)" >/dev/null
  check_size "whole process (--once)" "$p" "$(stat -c %s "$res/$n.symcache")" "$(cat "$in/$n.expected_bytes")"
  # the answers
  "$ilmap" lookup "$c" --batch < "$q" > "$res/$n.ilmap_answers"
done
load_after=$(bench_load)
echo "load average after: $load_after" >&2

agree=0
python3 - "$res" "$symver" "$load_before" "$load_after" "$repeat" "$runs" "$count" "$rounds" "${names[@]}" > "$res/section.md" <<'PY' || agree=$?
import json, re, statistics, sys
res, symver, lb, la, repeat, runs, count, rounds = sys.argv[1:9]
names = sys.argv[9:]

def kv(path):
    rows = []
    for line in open(path):
        rows.append(dict(re.findall(r'(\w+)=(\S+)', line)))
    return rows

def ms(ns): return f"{ns / 1e6:.3f} ms" if ns < 1e8 else f"{ns / 1e6:.0f} ms"
def ratio(a, b): return f"**{a / b:.1f}x**" if b else "—"

comp, proc, look = [], [], []
bad = 0
fig = {"inproc": [], "wall": [], "cpu": [], "lookup": []}
for n in names:
    ic = kv(f"{res}/{n}.ilmap_compile"); sc = kv(f"{res}/{n}.sym_compile")
    il = kv(f"{res}/{n}.ilmap_lookup"); sl = kv(f"{res}/{n}.sym_lookup")
    i_ns = statistics.median(float(r['compile_median_ns']) for r in ic)
    s_ns = statistics.median(float(r['convert_median_ns']) for r in sc)
    pdb_bytes = int(ic[0]['pdb_bytes']); points = int(ic[0]['points'])
    fig["inproc"].append((n, s_ns / i_ns, points))
    if n == "Sentry.Samples.Maui":
        fig["maui_bytes"] = (int(ic[0]['cache_bytes']), int(sc[0]['cache_bytes']))
    comp.append(f"| {n} | {pdb_bytes:,} | {points:,} | {ms(i_ns)} | {ms(s_ns)} | {ratio(s_ns, i_ns)} "
                f"| {int(ic[0]['cache_bytes']):,} | {int(sc[0]['cache_bytes']):,} |")
    h = json.load(open(f"{res}/{n}.hyperfine.json"))['results']
    iw, sw = h[0]['median'] * 1e9, h[1]['median'] * 1e9
    icpu, scpu = (h[0]['user'] + h[0]['system']) * 1e9, (h[1]['user'] + h[1]['system']) * 1e9
    tw, tcpu = h[2]['median'] * 1e9, (h[2]['user'] + h[2]['system']) * 1e9
    fig["wall"].append((n, sw / iw, points)); fig["cpu"].append((n, scpu / icpu, points))
    proc.append(f"| {n} | {ms(iw)} | {ms(sw)} | {ratio(sw, iw)} | {ms(icpu)} | {ms(scpu)} | {ratio(scpu, icpu)} | {ms(tw)} / {ms(tcpu)} |")
    i_q = statistics.median(float(r['ns_per_query']) for r in il)
    p_q = statistics.median(float(r['plain_ns_per_query']) for r in il)
    s_q = statistics.median(float(r['ns_per_query']) for r in sl)
    ihits, shits = int(il[0]['hits']), int(sl[0]['hits'])
    # agreement on the lines: ilmap prints "path:line:column" or "??:0:0", symbolic "<line> <file>" or "0 ??"
    ia = [int(l.rsplit(':', 2)[1]) for l in open(f"{res}/{n}.ilmap_answers")]
    sa = [int(l.split(' ', 1)[0]) for l in open(f"{res}/{n}.sym_answers")]
    assert len(ia) == len(sa), n
    both = sum(1 for a, b in zip(ia, sa) if a and b)
    same = sum(1 for a, b in zip(ia, sa) if a and b and a == b)
    only_i = sum(1 for a, b in zip(ia, sa) if a and not b)
    only_s = sum(1 for a, b in zip(ia, sa) if b and not a)
    bad += both - same
    agree = f"{same:,} / {both:,}" + (f"; ilmap only {only_i:,}" if only_i else "") + (f"; symbolic only {only_s:,}" if only_s else "")
    fig["lookup"].append((n, s_q / i_q, points))
    look.append(f"| {n} | {len(ia):,} | {ihits:,} | {shits:,} | {i_q:.1f} | {p_q:.1f} | {s_q:.1f} | {ratio(s_q, i_q)} | {agree} |")

print(f"symbolic-ppdb {symver}, built offline against Debian's crates. In process: medians of {repeat} conversions of the PDB in memory "
      f"(one warm-up, glibc's mmap and trim thresholds at 1 GiB for both), the median of {rounds} interleaved rounds (ilmap's `ilmap_bench_compile --median` includes "
      f"decoding, the input's XXH3 and packing; symbolic's `PortablePdb::parse`, `PortablePdbCacheConverter` "
      f"and `serialize` to a `Vec`). Each PDB is copied alone, so neither stores method names.\n")
print("| PDB | bytes | points | ilmap in process | symbolic in process | symbolic / ilmap | ilmap cache bytes | symbolic cache bytes |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
print("\n".join(comp))
print(f"\nWhole process (`hyperfine -N`, {runs} runs after 3 warm-ups; `ilmap compile X -o Y --force -q` against "
      f"the Rust program's `--once X -o Y`, which reads, converts and writes, and `true` in the same run as the "
      f"floor of any process): median wall time, and mean CPU (user + system).\n")
print("| PDB | ilmap wall | symbolic wall | symbolic / ilmap | ilmap CPU | symbolic CPU | symbolic / ilmap | `true` wall / CPU |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
print("\n".join(proc))
print(f"\nLookups: the same {count} queries per PDB (`ilmap_gen_queries`, 10% misses), replayed {repeat} times "
      f"(median pass, median of {rounds} rounds); ilmap's `ilmap_bench_lookup --replay --plain` (the plain column: "
      f"per-method sorted arrays, binary search), symbolic's `PortablePdbCache::lookup` (which also reads the "
      f"file name from its string table and checks it is UTF-8). Agreement: queries both answer with the "
      f"same line / queries both answer (`ilmap lookup --batch` against symbolic's answers).\n")
print("| PDB | queries | ilmap hits | symbolic hits | ilmap ns | plain ns | symbolic ns | symbolic / ilmap | same line / both hit |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
print("\n".join(look))
sys.stderr.write(f"lines that differ where both hit: {bad}\n")
with open(f"{res}/figures.tsv", "w") as f:
    for k in ("inproc", "wall", "cpu", "lookup"):
        v = sorted(r for _, r, _ in fig[k])
        big = sorted(r for _, r, p in fig[k] if p >= 1000)
        f.write(f"symbolic.{k}.min\t{v[0]:.2f}\nsymbolic.{k}.max\t{v[-1]:.2f}\nsymbolic.{k}.median\t{statistics.median(v):.2f}\n")
        if big:
            f.write(f"symbolic.{k}.big_min\t{big[0]:.2f}\nsymbolic.{k}.big_max\t{big[-1]:.2f}\n")
        for n, r, _ in fig[k]:
            f.write(f"symbolic.{k}.{n}\t{r:.2f}\n")
    if "maui_bytes" in fig:
        f.write(f"symbolic.maui.ilmap_bytes\t{fig['maui_bytes'][0]}\nsymbolic.maui.symbolic_bytes\t{fig['maui_bytes'][1]}\n")
    f.write(f"symbolic.version\t{symver}\nsymbolic.disagree\t{bad}\n")
sys.exit(3 if bad else 0)
PY
[ "$agree" = 0 ] || [ "$agree" = 3 ] || exit "$agree"
if [ -n "${BENCH_FIGURES:-}" ]; then cat "$res/figures.tsv" >> "$BENCH_FIGURES"; fi
# the command that reproduces it (the sources' folder and PDBs given by name only)
cmd="bench/symbolic_compare.sh --symbolic-src SYMBOLIC-$symver --build $(bench_rel "$build") --repeat $repeat --rounds $rounds --runs $runs --count $count"
for f in "${pdbs_given[@]}"; do cmd+=" --pdb $(bench_rel "$f")"; done
{ bench_stamp "$cmd" "$load_before" "$load_after"; echo; cat "$res/section.md"; } > "$res/section-stamped.md"
mv "$res/section-stamped.md" "$res/section.md"
cat "$res/section.md"

if [ -n "$write" ]; then
  bench_write "$write" symbolic "$res/section.md"
  echo "wrote the section into $write" >&2
fi
if [ "$agree" = 3 ]; then
  echo "ilmap and symbolic-ppdb answer some queries with different lines (see the table)" >&2
  exit 3
fi
