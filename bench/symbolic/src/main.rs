//! symbolic-ppdb's side of bench/symbolic_compare.sh (issue 23).
//!
//!   ilmap-symbolic-bench [--repeat N] --pdb FILE [--queries FILE [--answers OUT]] [--pdb ...]
//!     per PDB (read into memory once): converts it to a PortablePdbCache N times (after one
//!     warm-up) and prints "file=F pdb_bytes=B cache_bytes=C convert_median_ns=T"; with
//!     --queries ("<method row> <il offset>" per line, bench/gen_queries.cpp), parses the cache
//!     and replays the queries through PortablePdbCache::lookup N times (after one warm-up):
//!     "queries=Q hits=H ns_per_query=X" (median pass / Q). --answers writes one line per query,
//!     "<line> <file>" or "0 ??", for the agreement check against `ilmap lookup --batch`.
//!   ilmap-symbolic-bench --once FILE -o OUT
//!     reads FILE, converts it and writes the cache to OUT: the whole-process run for hyperfine.
//! Every conversion measured is first checked to parse back (PortablePdbCache::parse).
use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

use symbolic_ppdb::{PortablePdb, PortablePdbCache, PortablePdbCacheConverter};

fn convert(pdb: &[u8]) -> Vec<u8> {
    let parsed = PortablePdb::parse(pdb).unwrap_or_else(|e| fail(&format!("parse: {e}")));
    let mut converter = PortablePdbCacheConverter::new();
    converter
        .process_portable_pdb(&parsed)
        .unwrap_or_else(|e| fail(&format!("convert: {e}")));
    let mut out = Vec::new();
    converter.serialize(&mut out).unwrap_or_else(|e| fail(&format!("serialize: {e}")));
    out
}

fn fail(msg: &str) -> ! {
    eprintln!("ilmap-symbolic-bench: {msg}");
    std::process::exit(1)
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| fail(&format!("{path}: {e}")))
}

fn median(mut v: Vec<u128>) -> u128 {
    v.sort_unstable();
    v[v.len() / 2]
}

fn read_queries(path: &str) -> Vec<(u32, u32)> {
    let text = String::from_utf8(read(path)).unwrap_or_else(|_| fail(&format!("{path}: not UTF-8")));
    let mut queries = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut it = line.split_whitespace().map(|s| s.parse::<u32>());
        match (it.next(), it.next()) {
            (Some(Ok(row)), Some(Ok(offset))) => queries.push((row, offset)),
            _ => fail(&format!("{path}: bad query line {line:?}")),
        }
    }
    queries
}

struct Input {
    pdb: String,
    queries: Option<String>,
    answers: Option<String>,
}

fn bench(input: &Input, repeat: usize) {
    let pdb = read(&input.pdb);
    let cache_bytes = convert(&pdb);
    // what symbolic-ppdb's own tests (tests/test_caches.rs) ask of every cache they write: that
    // it parses back; bench/symbolic_compare.sh checks its size and lookups
    if let Err(e) = PortablePdbCache::parse(&cache_bytes) {
        fail(&format!("{}: the cache written does not parse back: {e}", input.pdb));
    }
    let times: Vec<u128> = (0..repeat)
        .map(|_| {
            let t = Instant::now();
            black_box(convert(black_box(&pdb)));
            t.elapsed().as_nanos()
        })
        .collect();
    println!(
        "file={} pdb_bytes={} cache_bytes={} convert_median_ns={}",
        input.pdb,
        pdb.len(),
        cache_bytes.len(),
        median(times)
    );
    let Some(qpath) = &input.queries else { return };
    let queries = read_queries(qpath);
    if queries.is_empty() {
        fail(&format!("{qpath}: no queries"));
    }
    let cache = PortablePdbCache::parse(&cache_bytes).unwrap_or_else(|e| fail(&format!("cache: {e}")));
    let pass = |hits: &mut usize| {
        let t = Instant::now();
        let mut h = 0usize;
        for &(row, offset) in &queries {
            if let Some(info) = cache.lookup(black_box(row), black_box(offset)) {
                h += 1;
                black_box(info.line);
            }
        }
        *hits = h;
        t.elapsed().as_nanos()
    };
    let mut hits = 0;
    pass(&mut hits);
    let times: Vec<u128> = (0..repeat).map(|_| pass(&mut hits)).collect();
    println!(
        "queries={} hits={} ns_per_query={:.1}",
        queries.len(),
        hits,
        median(times) as f64 / queries.len() as f64
    );
    if let Some(apath) = &input.answers {
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(apath).unwrap_or_else(|e| fail(&format!("{apath}: {e}"))),
        );
        for &(row, offset) in &queries {
            let r = match cache.lookup(row, offset) {
                Some(info) => writeln!(out, "{} {}", info.line, info.file_name),
                None => writeln!(out, "0 ??"),
            };
            r.unwrap_or_else(|e| fail(&format!("{apath}: {e}")));
        }
        out.flush().unwrap_or_else(|e| fail(&format!("{apath}: {e}")));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 20usize;
    let mut inputs: Vec<Input> = Vec::new();
    let (mut once, mut out) = (None, None);
    let mut i = 0;
    while i < args.len() {
        let value = || args.get(i + 1).cloned().unwrap_or_else(|| fail(&format!("{} needs a value", args[i])));
        match args[i].as_str() {
            "--repeat" => repeat = value().parse().unwrap_or_else(|_| fail("--repeat N")),
            "--pdb" => inputs.push(Input { pdb: value(), queries: None, answers: None }),
            "--queries" => inputs.last_mut().unwrap_or_else(|| fail("--queries follows a --pdb")).queries = Some(value()),
            "--answers" => inputs.last_mut().unwrap_or_else(|| fail("--answers follows a --pdb")).answers = Some(value()),
            "--once" => once = Some(value()),
            "-o" => out = Some(value()),
            other => fail(&format!("unknown argument {other:?}")),
        }
        i += 2;
    }
    if let Some(pdb) = once {
        let cache = convert(&read(&pdb));
        let out = out.unwrap_or_else(|| fail("--once FILE needs -o OUT"));
        std::fs::write(&out, cache).unwrap_or_else(|e| fail(&format!("{out}: {e}")));
        return;
    }
    if inputs.is_empty() || repeat == 0 {
        fail("usage: ilmap-symbolic-bench [--repeat N] --pdb FILE [--queries FILE [--answers OUT]]... | --once FILE -o OUT");
    }
    for input in &inputs {
        bench(input, repeat);
    }
}
