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
# (librust-*-dev, installed with apt when missing and the script runs as root) and for a local
# shim of `watto` (written here: the few items symbolic-ppdb uses, same semantics and bytes), and
# built offline with cargo's source replacement pointing at /usr/share/cargo/registry.
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
# Exit 3 (after printing and writing) when the two answer a query both hit with different lines.
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
      librust-stable-deref-trait-dev)
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
mkdir -p "$rs/cargo-home" "$rs/watto/src"
cp -r "$src/symbolic-common" "$src/symbolic-ppdb" "$rs/"
rm -rf "$rs/symbolic-ppdb/fuzz" "$rs/symbolic-ppdb/benches" "$rs/symbolic-ppdb/tests" "$rs/symbolic-common/tests" "$rs/symbolic-common/benches"
cp -r "$here/symbolic" "$rs/bench"
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
cat > "$rs/watto/Cargo.toml" <<'EOF'
[package]
name = "watto"
version = "0.2.0"
edition = "2021"
EOF
# The shim: what symbolic-ppdb uses of watto 0.2 (Pod, align_to, Writer, StringTable), written
# for this benchmark with the crate's documented behaviour: alignment checked on the pointer,
# strings stored once each with a LEB128 length prefix, the empty string at offset usize::MAX.
cat > "$rs/watto/src/lib.rs" <<'EOF'
use std::collections::HashMap;
use std::io::{self, Write};
use std::{mem, slice};

fn aligned(bytes: &[u8], align: usize) -> bool {
    bytes.as_ptr() as usize % align == 0
}

/// Plain old data: every bit pattern is a valid value and the layout is fixed.
///
/// # Safety
/// Only for `repr(C)` types without padding-sensitive invariants.
pub unsafe trait Pod {
    fn as_bytes(&self) -> &[u8] {
        unsafe { slice::from_raw_parts(self as *const Self as *const u8, mem::size_of_val(self)) }
    }
    fn ref_from_bytes(bytes: &[u8]) -> Option<&Self>
    where
        Self: Sized,
    {
        if bytes.len() != mem::size_of::<Self>() || !aligned(bytes, mem::align_of::<Self>()) {
            return None;
        }
        Some(unsafe { &*(bytes.as_ptr() as *const Self) })
    }
    fn ref_from_prefix(bytes: &[u8]) -> Option<(&Self, &[u8])>
    where
        Self: Sized,
    {
        if bytes.len() < mem::size_of::<Self>() || !aligned(bytes, mem::align_of::<Self>()) {
            return None;
        }
        let (head, rest) = bytes.split_at(mem::size_of::<Self>());
        Some((unsafe { &*(head.as_ptr() as *const Self) }, rest))
    }
    fn slice_from_bytes(bytes: &[u8]) -> Option<&[Self]>
    where
        Self: Sized,
    {
        let size = mem::size_of::<Self>();
        if bytes.len() % size != 0 || !aligned(bytes, mem::align_of::<Self>()) {
            return None;
        }
        Some(unsafe { slice::from_raw_parts(bytes.as_ptr() as *const Self, bytes.len() / size) })
    }
    fn slice_from_prefix(bytes: &[u8], n: usize) -> Option<(&[Self], &[u8])>
    where
        Self: Sized,
    {
        let len = mem::size_of::<Self>().checked_mul(n)?;
        if bytes.len() < len || !aligned(bytes, mem::align_of::<Self>()) {
            return None;
        }
        let (head, rest) = bytes.split_at(len);
        Some((unsafe { slice::from_raw_parts(head.as_ptr() as *const Self, n) }, rest))
    }
}

unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}
unsafe impl Pod for u8 {}
unsafe impl Pod for u16 {}
unsafe impl Pod for u32 {}
unsafe impl Pod for u64 {}
unsafe impl Pod for i32 {}
unsafe impl Pod for i64 {}

/// Splits `bytes` into the padding before the next `align`-aligned address and the rest.
pub fn align_to(bytes: &[u8], align: usize) -> Option<(&[u8], &[u8])> {
    let pad = bytes.as_ptr().align_offset(align);
    if pad > bytes.len() {
        return None;
    }
    Some(bytes.split_at(pad))
}

/// A `Write` that counts its position and pads with zeros to an alignment.
pub struct Writer<W> {
    inner: W,
    position: usize,
}

impl<W: Write> Writer<W> {
    pub fn new(inner: W) -> Self {
        Self { inner, position: 0 }
    }
    pub fn position(&self) -> usize {
        self.position
    }
    pub fn align_to(&mut self, align: usize) -> io::Result<usize> {
        let pad = (align - self.position % align) % align;
        self.write_all(&[0u8; 16][..pad])?;
        Ok(pad)
    }
}

impl<W: Write> Write for Writer<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.position += n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[derive(Debug)]
pub struct ReadStringError;

impl std::fmt::Display for ReadStringError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("invalid string reference")
    }
}

impl std::error::Error for ReadStringError {}

/// Deduplicated strings, each stored as a LEB128 length and its UTF-8 bytes.
#[derive(Debug, Default, Clone)]
pub struct StringTable {
    offsets: HashMap<String, usize>,
    bytes: Vec<u8>,
}

impl StringTable {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn insert(&mut self, s: &str) -> usize {
        if s.is_empty() {
            return usize::MAX;
        }
        if let Some(&offset) = self.offsets.get(s) {
            return offset;
        }
        let offset = self.bytes.len();
        let mut len = s.len() as u64;
        loop {
            let byte = (len & 0x7f) as u8;
            len >>= 7;
            if len == 0 {
                self.bytes.push(byte);
                break;
            }
            self.bytes.push(byte | 0x80);
        }
        self.bytes.extend_from_slice(s.as_bytes());
        self.offsets.insert(s.to_owned(), offset);
        offset
    }
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
    pub fn read(bytes: &[u8], offset: usize) -> Result<&str, ReadStringError> {
        let mut rest = bytes.get(offset..).ok_or(ReadStringError)?;
        let (mut len, mut shift) = (0u64, 0u32);
        loop {
            let (&byte, tail) = rest.split_first().ok_or(ReadStringError)?;
            rest = tail;
            if shift >= 64 {
                return Err(ReadStringError);
            }
            len |= u64::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        let s = rest.get(..usize::try_from(len).map_err(|_| ReadStringError)?).ok_or(ReadStringError)?;
        std::str::from_utf8(s).map_err(|_| ReadStringError)
    }
}
EOF
echo "building symbolic-ppdb $symver (offline, Debian's crates) ..." >&2
CARGO_HOME=$rs/cargo-home CARGO_TARGET_DIR=$rs/target nice cargo build --release --offline -j2 -q \
  --manifest-path "$rs/bench/Cargo.toml"
sym=$rs/target/release/ilmap-symbolic-bench

# --- inputs ------------------------------------------------------------------------------------
ilmap=$build/tools/ilmap
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
    "$build/bench/ilmap_bench_lookup" --cache "$c" --queries "$q" --replay --repeat "$repeat" --plain >> "$res/$n.ilmap_lookup"
    "$sym" --repeat "$repeat" --pdb "$p" --queries "$q" --answers "$res/$n.sym_answers" | sed -n 2p >> "$res/$n.sym_lookup"
  done
  # whole process
  hyperfine -N --style none --warmup 3 --runs "$runs" --export-json "$res/$n.hyperfine.json" \
    "$ilmap compile $p -o $res/$n.ilmap --force -q" "$sym --once $p -o $res/$n.symcache" "$(command -v true)" >/dev/null
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
