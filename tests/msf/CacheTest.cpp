// CacheTest.cpp - Windows PDBs through build_cache (CacheSource::msf): the cache answers the
// decoded points under the lookup rule, carries the Windows identity (pdb_id = GUID + DBI age)
// and SourceLink URLs from the "sourcelink" stream; a token of another table is refused.
#include <gtest/gtest.h>

#include "compiler/CacheBuilder.h"
#include "decode/SymstoreKeys.h"
#include "MsfWriter.h"
#include "ilmap/cache.h"
#include "reader/RawCache.h"
#include "ilmap_generated.h"
#include "decode/msf/MsfPdb.h"

using namespace ilmap;
using namespace ilmap::msf;
using namespace ilmap::msf::test;

namespace {

// Two methods (rows 2 and 5), two documents, a hidden point, a subsection inside method 5.
Pdb two_methods() {
  Pdb p;
  p.info_age = 9;  // the info stream's age differs from the DBI's: the DBI's is the identity
  p.dbi_age = 4;
  Module m;
  m.files = {"C:\\src\\A.cs", "D:\\other\\B.cs"};
  m.procs = {{0x06000002, 0, 20}, {0x06000005, 20, 30}};
  Lines l1{0, 1, true, 20, {}};
  l1.blocks.push_back({0, {{0, 10, 10, 5, 9}, {3, kHiddenLine, kHiddenLine, 0, 0}, {6, 11, 13, 1, 2}}});
  l1.blocks.push_back({1, {{12, 7, 7, 3, 4}}});
  Lines l2{24, 1, false, 26, {}};
  l2.blocks.push_back({0, {{0, 20, 21}, {4, 22, 22}}});
  m.lines = {l1, l2};
  p.modules.push_back(m);
  const std::string sl = R"({"documents": {"C:\\src\\*": "https://example.com/src/*"}})";
  p.named = {{"sourcelink", Bytes(sl.begin(), sl.end())}};
  return p;
}

Result<CacheBytes> build(const MsfPdb& pdb) {
  CacheSource src;
  src.msf = &pdb;
  src.source_name = "Lib.pdb";
  src.pdb_key = ssqp_windows_pdb_key("Lib.pdb", pdb.guid(), pdb.age());
  src.debug_id = windows_debug_id(pdb.guid(), pdb.age());
  return build_cache(src, CacheBuildOptions{});
}

}  // namespace

TEST(MsfCache, LookupsIdentityAndUrls) {
  const Bytes b = write_pdb(two_methods());
  auto pdb = MsfPdb::parse(b);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  auto bytes = build(*pdb);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  auto cache = Cache::from_bytes(bytes->span());
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  ASSERT_TRUE(cache->verify().ok());

  EXPECT_EQ(cache->method_count(), 5u);  // up to the highest token row
  EXPECT_EQ(cache->point_count(), 6u);
  EXPECT_EQ(cache->hidden_count(), 1u);
  ASSERT_EQ(cache->document_count(), 2u);
  EXPECT_EQ(cache->document_path(0), "C:\\src\\A.cs");
  EXPECT_EQ(cache->document_source_url(0), "https://example.com/src/A.cs");
  EXPECT_EQ(cache->document_source_url(1), "");

  // Row 2: 0 -> 10:5, 3 hidden (the answer stays at 0), 6 -> 11:1, 12 -> B.cs 7:3.
  auto at = [&](std::uint32_t token, std::uint32_t il) { return cache->lookup(token, il); };
  ASSERT_TRUE(at(0x06000002, 4));
  EXPECT_EQ(at(0x06000002, 4)->line, 10u);
  EXPECT_EQ(at(0x06000002, 4)->column, 5u);
  EXPECT_EQ(at(0x06000002, 8)->line, 11u);
  EXPECT_EQ(at(0x06000002, 8)->end_line, 13u);
  EXPECT_EQ(at(0x06000002, 100)->file, "D:\\other\\B.cs");
  // Row 5: its subsection starts 4 bytes into the method.
  EXPECT_FALSE(at(0x06000005, 3));
  ASSERT_TRUE(at(0x06000005, 4));
  EXPECT_EQ(at(0x06000005, 4)->line, 20u);
  EXPECT_EQ(at(0x06000005, 9)->line, 22u);
  // Rows without a procedure answer nothing.
  EXPECT_FALSE(at(0x06000001, 0));
  EXPECT_FALSE(at(0x06000003, 0));

  const auto* root = raw_root(*cache);
  const fb::Identity* id = root->identity();
  ASSERT_TRUE(id && id->pdb_id() && id->pdb_id()->size() == 20);
  const std::vector<std::uint8_t> want_id = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 4, 0, 0, 0};
  EXPECT_EQ(std::vector<std::uint8_t>(id->pdb_id()->begin(), id->pdb_id()->end()), want_id);
  EXPECT_EQ(id->pdb_key()->str(), "lib.pdb/0403020106050807090a0b0c0d0e0f104/lib.pdb");
  EXPECT_EQ(id->debug_id()->str(), "04030201-0605-0807-090a-0b0c0d0e0f10-4");
  EXPECT_EQ(id->entry_point(), 0u);
}

TEST(MsfCache, Deterministic) {
  const Bytes b = write_pdb(two_methods());
  auto pdb = MsfPdb::parse(b);
  ASSERT_TRUE(pdb.ok());
  auto one = build(*pdb), two = build(*pdb);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_TRUE(*one == *two);
}

TEST(MsfCache, TokenOfAnotherTableIsRefused) {
  Pdb p = two_methods();
  p.modules[0].procs[1].token = 0x02000005;  // a TypeDef token
  const Bytes b = write_pdb(p);
  auto pdb = MsfPdb::parse(b);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  auto bytes = build(*pdb);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().code, Errc::kMalformed);
  EXPECT_NE(bytes.error().message.find("0x02000005"), std::string::npos) << bytes.error().message;
}

// Every byte of a PDB with sourcelink and srcsrv streams flipped in turn: what still decodes
// builds a cache that verifies and holds every decoded point, or fails with a code and a message.
TEST(MsfCache, FlipSweep) {
  Pdb p = two_methods();
  const std::string srv =
      "SRCSRV: ini ---\r\nVERSION=2\r\nSRCSRV: variables ---\r\nA=https://h/%var2%\r\nSRCSRVTRG=%A%\r\n"
      "SRCSRV: source files ---\r\nC:\\src\\A.cs*A.cs\r\nD:\\other\\B.cs*B.cs\r\nSRCSRV: end ---\r\n";
  p.named.push_back({"srcsrv", Bytes(srv.begin(), srv.end())});
  const Bytes file = write_pdb(p);
  ASSERT_TRUE(MsfPdb::parse(file).ok());
  std::size_t built = 0;
  for (std::size_t i = 0; i < file.size(); ++i) {
    Bytes b = file;
    b[i] ^= 0xFF;
    auto pdb = MsfPdb::parse(b);
    if (!pdb) continue;
    auto bytes = build(*pdb);
    if (!bytes) {
      ASSERT_NE(bytes.error().code, Errc::kOk) << i;
      ASSERT_FALSE(bytes.error().message.empty()) << i;
      continue;
    }
    ++built;
    auto cache = Cache::from_bytes(bytes->span());
    ASSERT_TRUE(cache.ok()) << i;
    const Status v = cache->verify();
    ASSERT_TRUE(v.ok()) << i << ": " << v.message();
    ASSERT_EQ(cache->point_count(), pdb->point_count()) << i;
  }
  EXPECT_GT(built, 0u);
}

// A method's IL offsets never decrease in the cache format (verify checks it): line records
// out of order are refused with the method and the offsets, not stored.
TEST(MsfCache, DecreasingOffsetsAreRefused) {
  Pdb p = two_methods();
  p.modules[0].lines[1].blocks[0].lines = {{4, 22, 22}, {0, 20, 21}};
  const Bytes b = write_pdb(p);
  auto pdb = MsfPdb::parse(b);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  auto bytes = build(*pdb);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().code, Errc::kMalformed);
  EXPECT_NE(bytes.error().message.find("method 0x06000005: point 1 has IL offset 4 after 8"), std::string::npos)
      << bytes.error().message;
}

// What Windows PDBs hold beyond what Portable PDBs can: an IL offset repeated (C++/CLI writes
// two lines at one offset), hidden points with columns (VB), and a hidden point after visible
// points at its offset. The cache keeps every point, in PDB order, with its values (SPEC.md
// 5.3, 5.5), and lookups follow the runtime's rule: of repeated offsets, the last visible one.
TEST(MsfCache, RepeatedOffsetsAndHiddenPointsAreKeptInFull) {
  Pdb p;
  Module m;
  m.files = {"C:\\src\\A.vb"};
  m.procs = {{0x06000001, 0, 40}, {0x06000002, 40, 20}};
  Lines l1{0, 1, true, 40, {}};
  l1.blocks.push_back({0, {{0, kHiddenLine, kHiddenLine, 1, 2},  // hidden with columns, first
                           {0, 10, 10, 5, 9},
                           {4, 20, 20, 1, 3},
                           {4, 21, 21, 1, 7},                    // the same offset again
                           {4, kHiddenLine, kHiddenLine, 0, 0},  // hidden after visible ones at 4
                           {8, kHiddenLine, kHiddenLine, 3, 4},
                           {8, 30, 30, 2, 6},
                           {8, 31, 31, 2, 6},
                           {12, kHiddenLine, kHiddenLine, 0, 0}}});
  Lines l2{40, 1, true, 20, {}};
  l2.blocks.push_back({0, {{0, 50, 50, 1, 2}, {2, kHiddenLine, kHiddenLine, 0, 0}, {6, 51, 51, 1, 2}}});
  m.lines = {l1, l2};
  p.modules.push_back(m);
  const Bytes b = write_pdb(p);
  auto pdb = MsfPdb::parse(b);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  auto bytes = build(*pdb);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  auto cache = Cache::from_bytes(bytes->span());
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  ASSERT_TRUE(cache->verify().ok()) << cache->verify().message();
  for (const MsfMethod& method : pdb->methods()) {
    std::vector<CachePoint> got;
    ASSERT_TRUE(cache->points(method.token & 0xFFFFFF, got).ok());
    ASSERT_EQ(got.size(), method.points.size()) << std::hex << method.token;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const SequencePoint& want = method.points[i];
      EXPECT_EQ(got[i].il_offset, want.il_offset) << i;
      EXPECT_EQ(got[i].hidden, want.hidden()) << i;
      EXPECT_EQ(got[i].start_line, want.start_line) << i;
      EXPECT_EQ(got[i].end_line, want.end_line) << i;
      EXPECT_EQ(got[i].start_column, want.start_column) << i;
      EXPECT_EQ(got[i].end_column, want.end_column) << i;
    }
  }
  // Only the points their records cannot describe have an entry: the hidden ones with
  // columns, and the one after visible points at its offset (row 2 needs none).
  const auto* hp = raw_root(*cache)->hidden_points();
  ASSERT_TRUE(hp);
  EXPECT_EQ(hp->size(), 3u);
  auto at = [&](std::uint32_t il) { return cache->lookup(0x06000001, il); };
  ASSERT_TRUE(at(0));
  EXPECT_EQ(at(0)->line, 10u);
  ASSERT_TRUE(at(4));
  EXPECT_EQ(at(4)->line, 21u);  // the last visible point at offset 4, as the runtime walks
  EXPECT_EQ(at(4)->end_column, 7u);
  EXPECT_EQ(at(7)->line, 21u);
  EXPECT_EQ(at(8)->line, 31u);
  EXPECT_EQ(at(100)->line, 31u);
  ASSERT_TRUE(cache->lookup(0x06000002, 3));
  EXPECT_EQ(cache->lookup(0x06000002, 3)->line, 50u);
}
