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
#include <optional>
#include <string>
#include <vector>

#include "compiler/CacheBuilder.h"
#include "decode/SymstoreKeys.h"
#include "decode/PortablePdb.h"
#include "decode/msf/MsfPdb.h"

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

// True for a Windows (MSF 7.00) PDB: compile_in_memory and decode_all take those too.
inline bool is_msf(const std::vector<std::uint8_t>& b) {
  static constexpr char kSig[] = "Microsoft C/C++ MSF 7.00";
  return b.size() >= 24 && std::equal(kSig, kSig + 24, b.begin());
}

inline Result<CompileResult> compile_in_memory(const std::vector<std::uint8_t>& pdb_bytes, const std::string& name,
                                               std::vector<std::uint8_t>* out = nullptr) {
  CacheSource src;
  std::optional<PortablePdb> pdb;
  std::optional<msf::MsfPdb> win;
  if (is_msf(pdb_bytes)) {
    auto w = msf::MsfPdb::parse(pdb_bytes);
    if (!w) return w.error();
    win = std::move(*w);
    src.msf = &*win;
    src.pdb_key = ssqp_windows_pdb_key(name, win->guid(), win->age());
    src.debug_id = windows_debug_id(win->guid(), win->age());
  } else {
    auto p = PortablePdb::parse(pdb_bytes);
    if (!p) return p.error();
    pdb = std::move(*p);
    src.pdb = &*pdb;
    const PdbId id = pdb->id();
    src.pdb_key = ssqp_portable_pdb_key(name, id.guid());
    src.debug_id = portable_debug_id(id.guid(), id.stamp());
  }
  src.source_name = name;
  src.source_size = pdb_bytes.size();
  src.source_xxh3 = XXH3_64bits(pdb_bytes.data(), pdb_bytes.size());
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
// A Windows PDB is decoded whole by MsfPdb::parse (every module's lines): that is its decode.
inline Result<std::uint64_t> decode_all(const std::vector<std::uint8_t>& pdb_bytes, std::vector<SequencePoint>& scratch) {
  if (is_msf(pdb_bytes)) {
    auto w = msf::MsfPdb::parse(pdb_bytes);
    if (!w) return w.error();
    g_sink = w->point_count();
    return static_cast<std::uint64_t>(w->point_count());
  }
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
