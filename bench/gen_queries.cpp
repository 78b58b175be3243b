// gen_queries.cpp - ilmap_gen_queries: writes a lookup query file for a PDB or a cache.
//
//   ilmap_gen_queries INPUT [--count N] [--miss-percent P] [--seed S] -o FILE
//
// INPUT is a cache, or a .pdb (compiled in memory first). Each line is "<method row> <il offset>"
// in decimal: the format of `ilmap_bench_lookup --queries`, of the oracle's `lookup-bench
// --queries` and, line by line, of `ilmap lookup CACHE --batch`. (100-P)% of the queries are
// random hits (a method with points, an offset between its first visible point and its last
// point + 16); P% (default 10) are misses, half unknown rows (past the table, rows without
// points) and half offsets before a method's first visible point. Shuffled.
#include <cstring>
#include <filesystem>

#include "decode/DebugInput.h"
#include "bench_common.h"
#include "bench_queries.h"

using namespace ilmap;
using namespace ilmap::bench;

int main(int argc, char** argv) {
  std::string input, out;
  std::size_t count = 100000;
  unsigned miss_percent = 10;
  std::uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value for %s\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--count") count = std::strtoull(value(), nullptr, 10);
    else if (a == "--miss-percent") miss_percent = static_cast<unsigned>(std::strtoul(value(), nullptr, 10));
    else if (a == "--seed") seed = std::strtoull(value(), nullptr, 10);
    else if (a == "-o") out = value();
    else if (!a.empty() && a[0] != '-' && input.empty()) input = a;
    else {
      std::fprintf(stderr, "usage: ilmap_gen_queries INPUT [--count N] [--miss-percent P] [--seed S] -o FILE\n");
      return 1;
    }
  }
  if (input.empty() || out.empty() || miss_percent > 100) {
    std::fprintf(stderr, "usage: ilmap_gen_queries INPUT [--count N] [--miss-percent P] [--seed S] -o FILE\n");
    return 1;
  }
  std::vector<std::uint8_t> bytes = read_file(input);
  if (sniff_input(bytes) == InputKind::kPortablePdb) {
    std::vector<std::uint8_t> cache;
    auto r = compile_in_memory(bytes, std::filesystem::path(input).filename().string(), &cache);
    if (!r) {
      std::fprintf(stderr, "%s: %s\n", input.c_str(), r.error().message.c_str());
      return 2;
    }
    bytes = std::move(cache);
  }
  auto cache = Cache::from_bytes(bytes);
  if (!cache) {
    std::fprintf(stderr, "%s: %s\n", input.c_str(), cache.error().message.c_str());
    return 2;
  }
  const auto ms = method_spans(*cache);
  const std::size_t misses = count * miss_percent / 100;
  std::vector<Query> q = random_hits(*cache, ms, count - misses, seed);
  auto a = random_unknown_rows(*cache, ms, misses / 2, seed + 1);
  auto b = random_before_first(*cache, ms, misses - misses / 2, seed + 2);
  if (b.size() < misses - misses / 2) a = random_unknown_rows(*cache, ms, misses - b.size(), seed + 1);
  q.insert(q.end(), a.begin(), a.end());
  q.insert(q.end(), b.begin(), b.end());
  Splitmix r{seed + 3};
  for (std::size_t i = q.size(); i > 1; --i) std::swap(q[i - 1], q[r.below(static_cast<std::uint32_t>(i))]);
  std::FILE* f = std::fopen(out.c_str(), "w");
  if (!f) {
    std::perror(out.c_str());
    return 2;
  }
  for (const Query& x : q) std::fprintf(f, "%u %u\n", x.row, x.il);
  if (std::fclose(f) != 0) {
    std::perror(out.c_str());
    return 2;
  }
  std::printf("%s: %zu queries (%zu hits drawn, %zu misses)\n", out.c_str(), q.size(), q.size() - a.size() - b.size(),
              a.size() + b.size());
  return 0;
}
