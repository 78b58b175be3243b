// bench_common.h - helpers shared by the benchmark programs (not part of the library).
#pragma once

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "CacheBuilder.h"
#include "Identity.h"
#include "PortablePdb.h"

namespace ilmap::bench {

inline volatile std::uint64_t g_sink = 0;  // defeats dead-code elimination

inline std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// What `ilmap compile FILE.pdb` does between reading the file and writing the cache: decode the
// PDB, hash the input, derive the identity, build the cache bytes. Returns the cache size.
struct CompileResult {
  std::size_t cache_bytes = 0;
  std::uint64_t points = 0;
};

// Threads for build_cache (ilmap_bench_compile --threads N); 1 = the single-threaded path.
inline unsigned g_compile_threads = 1;

inline Result<CompileResult> compile_in_memory(const std::vector<std::uint8_t>& pdb_bytes, const std::string& name,
                                               std::vector<std::uint8_t>* out = nullptr) {
  auto pdb = PortablePdb::parse(pdb_bytes);
  if (!pdb) return pdb.error();
  CacheSource src;
  src.pdb = &*pdb;
  src.source_name = name;
  src.source_size = pdb_bytes.size();
  src.source_xxh3 = XXH3_64bits(pdb_bytes.data(), pdb_bytes.size());
  const PdbId id = pdb->id();
  src.pdb_key = ssqp_portable_pdb_key(name, id.guid());
  src.debug_id = portable_debug_id(id.guid(), id.stamp());
  CacheStats stats;
  CacheBuildOptions opt;
  opt.threads = g_compile_threads;
  auto bytes = build_cache(src, opt, &stats);
  if (!bytes) return bytes.error();
  CompileResult r{bytes->size(), stats.points};
  if (out) *out = bytes->to_vector();
  return r;
}

// Decode only: parse + every sequence point of every method (the work SRM's decode-all does).
inline Result<std::uint64_t> decode_all(const std::vector<std::uint8_t>& pdb_bytes, std::vector<SequencePoint>& scratch) {
  auto pdb = PortablePdb::parse(pdb_bytes);
  if (!pdb) return pdb.error();
  std::uint64_t n = 0, sum = 0;
  const std::uint32_t methods = pdb->method_count();
  for (std::uint32_t rid = 1; rid <= methods; ++rid) {
    scratch.clear();
    if (Status s = pdb->sequence_points(rid, scratch); !s) return s.error();
    n += scratch.size();
    for (const SequencePoint& p : scratch) sum += p.il_offset + p.start_line + p.start_column + p.document;
  }
  g_sink = sum;
  return n;
}

}  // namespace ilmap::bench
