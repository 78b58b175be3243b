// bench_lookup.cpp - ilmap_bench_lookup: open latency and lookup latency on a cache.
//
//   ilmap_bench_lookup --cache FILE [--queries FILE] [benchmark flags]
//       open/file            Cache::open(path) (mmap + validation) and close
//       open/from_bytes      Cache::from_bytes (copy into an aligned buffer + validation)
//       lookup/random_hit    random (method, IL offset) pairs that answer
//       lookup/miss_unknown_row   rows past the table, row 0, rows without points
//       lookup/miss_before_first  offsets before a method's first visible point
//       lookup/sequential    every point's own offset, in row order
//       lookup/query_file    the --queries stream, in file order
//       lines/by_path        Cache::lines(document path, line): document matching (exact
//                            path) + the binding rule (format 1.2), random lines that have code
//       lines/matched        Cache::lines_in(the document, line): the line index alone
//       plain/<kind>         the lookup/<kind> queries answered by the plain-array baseline
//                            (plain_arrays.h: per-method sorted arrays, binary search)
//     One benchmark iteration is one lookup (Cache::lookup with a 0x06 token): Time = ns/lookup.
//   ilmap_bench_lookup --cache FILE --queries FILE --replay [--repeat N] [--plain]
//     answers the whole query stream N times (after one warm-up) and prints
//     "queries=<n> hits=<h> ns_per_query=<median iteration time / n>", like the oracle's lookup-bench.
//     --plain: each iteration also answers the stream with the plain-array baseline (right after
//     the cache, so both see the same machine load), after checking once that every answer is
//     the same; adds "plain_ns_per_query=<median> ratio=<cache / plain>".
#include <benchmark/benchmark.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <utility>

#include "bench_common.h"
#include "bench_queries.h"
#include "plain_arrays.h"

using namespace ilmap;
using namespace ilmap::bench;

namespace {

std::string g_cache_path;
std::vector<std::uint8_t> g_cache_bytes;
const Cache* g_cache = nullptr;

std::vector<Query> load_queries(const std::string& path) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<Query> q;
  std::uint64_t row, il;
  while (f >> row >> il) q.push_back({static_cast<std::uint32_t>(row), static_cast<std::uint32_t>(il)});
  return q;
}

void bm_open_file(benchmark::State& state) {
  for (auto _ : state) {
    auto c = Cache::open(g_cache_path);
    if (!c) {
      state.SkipWithError(c.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(c->method_count());
  }
}

void bm_open_bytes(benchmark::State& state) {
  for (auto _ : state) {
    auto c = Cache::from_bytes(g_cache_bytes);
    if (!c) {
      state.SkipWithError(c.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(c->method_count());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * g_cache_bytes.size()));
}

// Query arrays are padded to a power of two so the index wraps with a mask. `L` answers a
// query: the cache or the plain-array baseline.
template <class L>
void bm_lookup(benchmark::State& state, const L* lookup, const std::vector<Query>* qs) {
  if (qs->empty()) {
    state.SkipWithError("no queries of this kind in this cache");
    return;
  }
  std::vector<Query> q = *qs;
  std::size_t n = 1;
  while (n < q.size()) n <<= 1;
  for (std::size_t i = q.size(); i < n; ++i) q.push_back(q[i - qs->size()]);
  const std::size_t mask = n - 1;
  std::size_t i = 0, hits = 0;
  const L& c = *lookup;
  for (auto _ : state) {
    const Query& x = q[i];
    auto r = c.lookup(0x06000000u | x.row, x.il);
    benchmark::DoNotOptimize(r);
    hits += r.has_value();
    i = (i + 1) & mask;
  }
  state.counters["hit_rate"] = state.iterations() ? double(hits) / double(state.iterations()) : 0;
  state.counters["queries"] = double(qs->size());
}

// Source lines (format 1.2): random (document, start line) pairs of visible points, so every
// query has code on its line, plus as many lines one below (a line without code, or the next).
struct LineQuery {
  std::uint32_t document, line;
};
std::vector<LineQuery> line_queries(const Cache& c, std::size_t n, std::uint64_t seed) {
  std::vector<LineQuery> all;
  std::vector<CachePoint> pts;
  for (std::uint32_t rid = 1; rid <= c.method_count(); ++rid) {
    pts.clear();
    if (!c.points(rid, pts)) continue;
    for (const CachePoint& p : pts)
      if (!p.hidden) all.push_back({p.document, p.start_line});
  }
  std::vector<LineQuery> out;
  if (all.empty()) return out;
  Splitmix rng{seed};
  for (std::size_t i = 0; i < n; ++i) {
    LineQuery q = all[rng.below(static_cast<std::uint32_t>(all.size()))];
    if (i & 1) q.line += 1;
    out.push_back(q);
  }
  return out;
}

void bm_lines(benchmark::State& state, const std::vector<LineQuery>* qs, bool by_path) {
  if (qs->empty()) {
    state.SkipWithError("no visible points in this cache");
    return;
  }
  const std::size_t mask = qs->size() - 1;  // a power of two
  std::size_t i = 0, bound = 0;
  std::vector<LineMatch> out;
  const Cache& c = *g_cache;
  for (auto _ : state) {
    const LineQuery& q = (*qs)[i];
    if (by_path) (void)c.lines(c.document_path(q.document), q.line, 0, out);
    else (void)c.lines_in(std::span<const std::uint32_t>(&q.document, 1), q.line, 0, out);
    benchmark::DoNotOptimize(out.data());
    bound += out.size();
    i = (i + 1) & mask;
  }
  state.counters["bindings_per_query"] = state.iterations() ? double(bound) / double(state.iterations()) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string queries_path;
  bool replay = false;
  bool plain = false;
  int repeat = 20;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cache") && i + 1 < argc) g_cache_path = argv[++i];
    else if (!std::strcmp(argv[i], "--queries") && i + 1 < argc) queries_path = argv[++i];
    else if (!std::strcmp(argv[i], "--replay")) replay = true;
    else if (!std::strcmp(argv[i], "--plain")) plain = true;
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else rest.push_back(argv[i]);
  }
  if (g_cache_path.empty()) {
    std::fprintf(stderr, "usage: ilmap_bench_lookup --cache FILE [--queries FILE [--replay [--repeat N] [--plain]]] [benchmark flags]\n");
    return 1;
  }
  auto cache = Cache::open(g_cache_path);
  if (!cache) {
    std::fprintf(stderr, "%s: %s\n", g_cache_path.c_str(), cache.error().message.c_str());
    return 2;
  }
  g_cache = &*cache;
  g_cache_bytes = read_file(g_cache_path);

  std::vector<Query> file_q;
  if (!queries_path.empty()) file_q = load_queries(queries_path);

  if (replay) {
    if (file_q.empty()) {
      std::fprintf(stderr, "--replay needs a non-empty --queries FILE\n");
      return 1;
    }
    std::optional<PlainArrays> arrays;
    if (plain) {
      arrays.emplace(*cache);
      std::size_t differ = 0;
      for (const Query& x : file_q)
        differ += !same_answer(cache->lookup(0x06000000u | x.row, x.il), arrays->lookup(0x06000000u | x.row, x.il));
      if (differ) {
        std::fprintf(stderr, "the plain arrays answer %zu of %zu queries differently\n", differ, file_q.size());
        return 1;
      }
    }
    auto pass = [&](const auto& c, std::size_t& hits) {
      hits = 0;
      const std::uint64_t t0 = now_ns();
      for (const Query& x : file_q) {
        auto r = c.lookup(0x06000000u | x.row, x.il);
        benchmark::DoNotOptimize(r);
        hits += r.has_value();
      }
      return double(now_ns() - t0);
    };
    std::vector<double> t, tp;
    std::size_t hits = 0, plain_hits = 0;
    for (int it = -1; it < repeat; ++it) {
      const double a = pass(*cache, hits);
      if (it >= 0) t.push_back(a);
      if (arrays) {
        const double b = pass(*arrays, plain_hits);
        if (it >= 0) tp.push_back(b);
      }
    }
    const double n = double(file_q.size());
    std::printf("queries=%zu hits=%zu ns_per_query=%.1f", file_q.size(), hits, median(t) / n);
    if (arrays) std::printf(" plain_ns_per_query=%.1f ratio=%.2f", median(tp) / n, median(t) / median(tp));
    std::printf("\n");
    return 0;
  }

  const auto ms = method_spans(*cache);
  static std::vector<Query> hit = random_hits(*cache, ms, 1 << 16, 11);
  static std::vector<Query> unknown = random_unknown_rows(*cache, ms, 1 << 16, 12);
  static std::vector<Query> before = random_before_first(*cache, ms, 1 << 16, 13);
  static std::vector<Query> seq = sequential(*cache, 1 << 20);
  static std::vector<Query> fq = file_q;
  static std::vector<LineQuery> lq = line_queries(*cache, 1 << 16, 14);
  static const PlainArrays arrays(*cache);

  benchmark::AddCustomContext("cache", g_cache_path);
  benchmark::AddCustomContext("cache_bytes", std::to_string(g_cache_bytes.size()));
  benchmark::AddCustomContext("cache_points", std::to_string(cache->point_count()));
  benchmark::AddCustomContext("cache_methods", std::to_string(cache->method_count()));
  benchmark::RegisterBenchmark("open/file", bm_open_file);
  benchmark::RegisterBenchmark("open/from_bytes", bm_open_bytes);
  const std::pair<const char*, const std::vector<Query>*> kinds[] = {
      {"random_hit", &hit}, {"miss_unknown_row", &unknown}, {"miss_before_first", &before}, {"sequential", &seq},
      {"query_file", &fq}};
  for (const auto& [kind, qs] : kinds) {
    if (qs->empty() && qs == &fq) continue;
    benchmark::RegisterBenchmark((std::string("lookup/") + kind).c_str(), bm_lookup<Cache>, g_cache, qs);
    benchmark::RegisterBenchmark((std::string("plain/") + kind).c_str(), bm_lookup<PlainArrays>, &arrays, qs);
  }
  benchmark::RegisterBenchmark("lines/by_path", bm_lines, &lq, true);
  benchmark::RegisterBenchmark("lines/matched", bm_lines, &lq, false);
  int bargc = static_cast<int>(rest.size());
  benchmark::Initialize(&bargc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(bargc, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
