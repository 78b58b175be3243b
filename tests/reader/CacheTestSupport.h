// CacheTestSupport.h - inputs and in-memory caches shared by the tests/reader GoogleTest binaries.
//
// Inputs come from two places, read where they are (never copied):
//   ILMAP_TEST_SHARED_DIR  = ${ILMAP_SHARED_DIR}/corpus-public: every *.pdb of every folder except win_*
//   ILMAP_TEST_CORPUS_DIR  = corpus/: every manifest.tsv row, its PDB (if any) and its DLL
// Either may be absent; tests that need one call GTEST_SKIP then.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>

#include "compiler/CacheBuilder.h"
#include "decode/PortablePdb.h"
#include "decode/DebugInput.h"

namespace ilmap::test {

struct TestInput {
  std::string name;  // gtest-safe: [A-Za-z0-9_]
  std::string path;
};

inline void PrintTo(const TestInput& t, std::ostream* os) { *os << t.path; }

inline std::string gtest_safe(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

inline std::string shared_dir() { return ILMAP_TEST_SHARED_DIR; }
inline std::string corpus_dir() { return ILMAP_TEST_CORPUS_DIR; }

// Rows of corpus/manifest.tsv as (case, dll, pdb) with paths relative to corpus/ ("-" = none).
struct ManifestRow {
  std::string name, dll, pdb;
};

inline std::vector<ManifestRow> manifest_rows() {
  std::vector<ManifestRow> rows;
  std::ifstream in(corpus_dir() + "/manifest.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("case\t", 0) == 0) continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (cols.size() < 3) continue;
    rows.push_back({cols[0], cols[1], cols[2]});
  }
  return rows;
}

inline std::vector<TestInput> shared_inputs() {
  namespace fs = std::filesystem;
  std::vector<TestInput> out;
  std::error_code ec;
  if (!fs::is_directory(shared_dir(), ec)) return out;
  for (const auto& dir : fs::directory_iterator(shared_dir(), ec)) {
    if (!dir.is_directory()) continue;
    const std::string folder = dir.path().filename().string();
    if (folder.rfind("win_", 0) == 0) continue;
    for (const auto& f : fs::directory_iterator(dir.path(), ec))
      if (f.path().extension() == ".pdb")
        out.push_back({gtest_safe("shared_" + folder + "_" + f.path().stem().string()), f.path().string()});
  }
  std::sort(out.begin(), out.end(), [](const TestInput& a, const TestInput& b) { return a.name < b.name; });
  return out;
}

// The Windows (MSF) PDBs of corpus-public (win_* folders): each .pdb, and each .dll beside it
// (matched through its CodeView entry). Empty when the folder is absent.
// ILMAP_TEST_WINDOWS_INPUTS names a file of NAME<TAB>PATH lines to test instead (the NuGet
// corpus of corpus/windows, restored at test time by tests/oracle-cecil/check-nuget.sh).
inline std::vector<TestInput> windows_inputs() {
  namespace fs = std::filesystem;
  std::vector<TestInput> out;
  std::error_code ec;
  if (const char* list = std::getenv("ILMAP_TEST_WINDOWS_INPUTS"); list && *list) {
    std::ifstream in(list);
    for (std::string line; std::getline(in, line);) {
      const std::size_t tab = line.find('\t');
      if (tab != std::string::npos) out.push_back({gtest_safe(line.substr(0, tab)), line.substr(tab + 1)});
    }
    if (out.empty()) out.push_back({"none", ""});
    return out;
  }
  if (!fs::is_directory(shared_dir(), ec)) return out;
  for (const auto& dir : fs::directory_iterator(shared_dir(), ec)) {
    if (!dir.is_directory()) continue;
    const std::string folder = dir.path().filename().string();
    if (folder.rfind("win_", 0) != 0) continue;
    for (const auto& f : fs::directory_iterator(dir.path(), ec))
      if (f.path().extension() == ".pdb" || f.path().extension() == ".dll")
        out.push_back({gtest_safe(folder + f.path().extension().string()), f.path().string()});
  }
  std::sort(out.begin(), out.end(), [](const TestInput& a, const TestInput& b) { return a.name < b.name; });
  if (out.empty()) out.push_back({"none", ""});  // keeps the suite instantiated; the test skips
  return out;
}

inline std::vector<TestInput> corpus_inputs() {
  std::vector<TestInput> out;
  for (const ManifestRow& r : manifest_rows()) {
    if (r.pdb != "-") out.push_back({gtest_safe("corpus_" + r.name + "_pdb"), corpus_dir() + "/" + r.pdb});
    out.push_back({gtest_safe("corpus_" + r.name + "_dll"), corpus_dir() + "/" + r.dll});
  }
  return out;
}

inline std::vector<TestInput> all_inputs() {
  std::vector<TestInput> out = shared_inputs();
  for (TestInput& t : corpus_inputs()) out.push_back(std::move(t));
  if (out.empty()) out.push_back({"none", ""});  // keeps the suite instantiated; the test skips
  return out;
}

// A decoded input and the cache built from it, in memory.
struct Compiled {
  std::unique_ptr<DebugInput> input;
  std::vector<std::uint8_t> bytes;
};

// With `windows`, Windows (MSF) PDBs open too (DebugInputOptions::windows_pdbs).
inline Result<Compiled> compile_in_memory(const std::string& path, bool windows = false) {
  DebugInputOptions options;
  options.windows_pdbs = windows;
  auto in = open_debug_input(path, options);
  if (!in) return in.error();
  Compiled c;
  c.input = std::move(*in);
  CacheSource src;
  if (c.input->msf) src.msf = &*c.input->msf;
  else src.pdb = &*c.input->pdb;
  src.source_name = std::filesystem::path(path).filename().string();
  auto bytes = build_cache(src, CacheBuildOptions{});
  if (!bytes) return bytes.error();
  c.bytes = bytes->to_vector();
  return c;
}

// A PDB's bytes and the cache built from them in memory (tests that edit the cache's bytes and
// compare with the PDB's own points). Failures are reported as test failures.
struct BuiltFromPdb {
  std::vector<std::uint8_t> pdb_bytes, cache;
};
inline BuiltFromPdb build_from_pdb_file(const std::string& path, const CacheBuildOptions& options = {}) {
  BuiltFromPdb b;
  std::ifstream in(path, std::ios::binary);
  b.pdb_bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  auto pdb = PortablePdb::parse(b.pdb_bytes);
  EXPECT_TRUE(pdb) << path << ": " << pdb.error().message;
  if (!pdb) return b;
  CacheSource src;
  src.pdb = &*pdb;
  src.source_name = std::filesystem::path(path).filename().string();
  auto bytes = build_cache(src, options);
  EXPECT_TRUE(bytes) << path << ": " << bytes.error().message;
  if (bytes) b.cache.assign(bytes->begin(), bytes->end());
  return b;
}

// `cache` with field `alias` of the FlatBuffers table at `table` (a pointer into `cache`) made to
// name what field `field` of that table names: the table's vtable entry for `field` copied
// into `alias`'s slot, the header checksum resealed. Makes a cache that holds one section under
// two fields (both forms of a packed section, SPEC.md 3.8). Empty when a slot is missing.
inline std::vector<std::uint8_t> with_field_alias(const std::vector<std::uint8_t>& cache, const void* table,
                                                  flatbuffers::voffset_t alias, flatbuffers::voffset_t field) {
  std::vector<std::uint8_t> b = cache;
  const std::size_t t = static_cast<std::size_t>(static_cast<const std::uint8_t*>(table) - cache.data());
  std::int32_t back = 0;
  std::memcpy(&back, b.data() + t, 4);
  const std::size_t vt = t - static_cast<std::size_t>(static_cast<std::int64_t>(back));
  std::uint16_t vt_size = 0, entry = 0;
  std::memcpy(&vt_size, b.data() + vt, 2);
  if (alias + 2u > vt_size || field + 2u > vt_size) return {};
  std::memcpy(&entry, b.data() + vt + field, 2);
  if (entry == 0) return {};
  std::memcpy(b.data() + vt + alias, &entry, 2);
  const std::uint64_t sum = XXH3_64bits(b.data() + 32, b.size() - 32);
  std::memcpy(b.data() + 24, &sum, 8);
  return b;
}

// The normative rule, as literally as possible: walk in PDB order, stop at the first point whose
// offset is greater than `il`; the answer is the last non-hidden point seen. -1 = no answer.
inline long naive_lookup(const std::vector<SequencePoint>& pts, std::uint32_t il) {
  long answer = -1;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].il_offset > il) break;
    if (!pts[i].hidden()) answer = static_cast<long>(i);
  }
  return answer;
}

}  // namespace ilmap::test
