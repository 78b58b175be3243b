// MethodDirectoryTest.cpp - the method directory (SPEC.md section 4): per 64 method
// rows a base and 16-bit block ends, with the high halves apart for a group spanning 64 KiB or
// more. A PDB with one huge method among small and empty ones exercises both kinds of group;
// hand-made damage to each part of the directory must fail verify and give no answer for the
// rows it touches, never a wrong one.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>

#include "compiler/CacheBuilder.h"
#include "decode/PortablePdb.h"
#include "tests/common/TestEncoders.h"
#include "ilmap/cache.h"
#include "format/ilmap_format.h"
#include "ilmap_generated.h"

namespace ilmap::test {
namespace {

namespace d = ilmap::disk;

constexpr std::uint32_t kRows = 150;      // three groups: 64 + 64 + 22 rows
constexpr std::uint32_t kHugeRow = 5;     // in group 0: makes it wide
constexpr std::uint32_t kHugePoints = 30000;

bool empty_row(std::uint32_t rid) { return rid % 7 == 0; }

// Row kHugeRow: kHugePoints points at IL 2k, line 10 + (k * 7919) % 50000, column 1 + k % 300,
// width 5. Other rows: one point at IL 0, line rid, columns 1-4; every 7th row none.
Bytes directory_pdb() {
  MiniPdb p;
  p.add_document(p.add_name('/', {"", "src", "a.cs"}));
  std::vector<std::uint32_t> blob(kRows + 1, 0);
  for (std::uint32_t rid = 1; rid <= kRows; ++rid) {
    if (rid == kHugeRow || empty_row(rid)) continue;
    SpBlob sp;
    sp.u(0).u(0).u(0).u(3).u(rid).u(1);
    blob[rid] = p.blobs.add(sp.b);
  }
  // The huge blob goes last: its start must stay below 64 KiB (2-byte blob indices).
  SpBlob sp;
  sp.u(0);
  std::int64_t line = 0, col = 0;
  for (std::uint32_t k = 0; k < kHugePoints; ++k) {
    const std::int64_t l = 10 + (std::int64_t(k) * 7919) % 50000, c = 1 + k % 300;
    sp.u(k == 0 ? 0 : 2).u(0).u(5);
    if (k == 0) {
      sp.u(std::uint32_t(l)).u(std::uint32_t(c));
    } else {
      sp.s(std::int32_t(l - line)).s(std::int32_t(c - col));
    }
    line = l;
    col = c;
  }
  blob[kHugeRow] = p.blobs.add(sp.b);
  for (std::uint32_t rid = 1; rid <= kRows; ++rid) p.add_method(1, blob[rid]);
  return p.image().build();
}

Bytes directory_cache() {
  static const Bytes pdb_bytes = directory_pdb();
  auto pdb = PortablePdb::parse(pdb_bytes);
  EXPECT_TRUE(pdb) << pdb.error().message;
  CacheSource src;
  src.pdb = &*pdb;
  auto bytes = build_cache(src, CacheBuildOptions{});
  EXPECT_TRUE(bytes) << bytes.error().message;
  return Bytes(bytes->data(), bytes->data() + bytes->size());
}

const fb::Cache* root_of(const Bytes& b) { return fb::GetCache(b.data() + d::kHeaderSize); }

// Rewrites the header checksum so that verify reaches the structural checks.
void reseal(Bytes& b) {
  const std::uint64_t sum = XXH3_64bits(b.data() + d::kHeaderSize, b.size() - d::kHeaderSize);
  std::memcpy(b.data() + 24, &sum, 8);
}

std::size_t at(const Bytes& b, const void* p) { return static_cast<std::size_t>(static_cast<const std::uint8_t*>(p) - b.data()); }

TEST(MethodDirectory, WideAndNarrowGroupsAnswerEveryRow) {
  const Bytes b = directory_cache();
  const fb::Cache* root = root_of(b);
  ASSERT_EQ(root->method_rows(), kRows);
  ASSERT_EQ(root->method_groups()->size(), 3u);
  ASSERT_EQ(root->block_ends()->size(), kRows);
  // Group 0 spans the huge block (> 64 KiB): it has high halves, 64 of them; the others none.
  EXPECT_EQ(root->method_groups()->Get(0)->high(), 0u);
  EXPECT_EQ(root->method_groups()->Get(1)->high(), d::kGroupNarrow);
  EXPECT_EQ(root->method_groups()->Get(2)->high(), d::kGroupNarrow);
  ASSERT_EQ(root->block_ends_high()->size(), 64u);
  ASSERT_GT(root->point_blocks()->size(), 0x10000u + 0x10000u / 2);
  // 8 bytes per group + 2 per row + 2 per row of a wide group, and the block profiles (SPEC.md
  // 5.1): 8 bytes each, and one index byte per row.
  auto cache = Cache::from_bytes(b);
  ASSERT_TRUE(cache) << cache.error().message;
  ASSERT_TRUE(root->block_profiles() && root->block_profile_index());
  EXPECT_EQ(root->block_profile_index()->size(), kRows);
  EXPECT_EQ(cache->point_section_bytes(),
            root->point_blocks()->size() + 3 * 8 + kRows * 2 + 64 * 2 + root->block_profiles()->size() * 8 + kRows);
  ASSERT_TRUE(cache->verify()) << cache->verify().message();
  EXPECT_EQ(cache->method_count(), kRows);
  EXPECT_EQ(cache->point_count(), kHugePoints + (kRows - 1) - kRows / 7);
  for (std::uint32_t rid = 1; rid <= kRows; ++rid) {
    std::vector<CachePoint> pts;
    ASSERT_TRUE(cache->points(rid, pts)) << rid;
    const auto r = cache->lookup(0x06000000u | rid, 0);
    if (rid == kHugeRow) {
      ASSERT_EQ(pts.size(), kHugePoints);
      for (std::uint32_t k : {0u, 1u, 4095u, 20000u, kHugePoints - 1}) {
        EXPECT_EQ(pts[k].start_line, 10 + (k * 7919) % 50000) << k;
        EXPECT_EQ(pts[k].start_column, 1 + k % 300) << k;
        const auto q = cache->lookup(0x06000000u | rid, 2 * k + 1);
        ASSERT_TRUE(q) << k;
        EXPECT_EQ(q->line, pts[k].start_line) << k;
      }
    } else if (empty_row(rid)) {
      EXPECT_TRUE(pts.empty()) << rid;
      EXPECT_FALSE(r) << rid;
    } else {
      ASSERT_EQ(pts.size(), 1u) << rid;
      ASSERT_TRUE(r) << rid;
      EXPECT_EQ(r->line, rid);
      EXPECT_EQ(r->end_column, 4u);
    }
  }
  EXPECT_FALSE(cache->lookup_row(kRows + 1, 0));
  std::vector<CachePoint> pts;
  EXPECT_EQ(cache->points(kRows + 1, pts).code(), Errc::kNotFound);
}

// Each damage: verify fails with kMalformed, and the rows listed give no answer while the
// others in another group still answer.
TEST(MethodDirectory, DamageFailsVerifyAndNeverAnswersWrongly) {
  const Bytes good = directory_cache();
  const fb::Cache* groot = root_of(good);
  const std::size_t groups = at(good, groot->method_groups()->Data());
  const std::size_t ends = at(good, groot->block_ends()->Data());
  const std::size_t high = at(good, groot->block_ends_high()->Data());
  struct Case {
    const char* what;
    std::size_t offset;
    std::uint32_t value;
    unsigned bytes;
    std::uint32_t dead_row;  // a row that must give no answer
  };
  const std::uint32_t row71 = 71 - 1;  // row 71: group 1, index 6 (row 70 has no points)
  const Case cases[] = {
      {"group 1 base past the blocks", groups + 8, 0x7FFFFFF0u, 4, 71},
      {"group 1 high index past block_ends_high", groups + 12, 1000, 4, 71},
      {"row 71 end before its start", ends + 2 * row71, 0, 2, 71},
      {"row 6 high half past the blocks", high + 2 * 5, 0xFFFF, 2, 6},
  };
  for (const Case& c : cases) {
    Bytes b = good;
    std::memcpy(b.data() + c.offset, &c.value, c.bytes);
    reseal(b);
    auto cache = Cache::from_bytes(b);
    ASSERT_TRUE(cache) << c.what << ": " << cache.error().message;
    EXPECT_EQ(cache->verify().code(), Errc::kMalformed) << c.what << ": " << cache->verify().message();
    EXPECT_FALSE(cache->lookup_row(c.dead_row, 0)) << c.what;
    std::vector<CachePoint> pts;
    EXPECT_EQ(cache->points(c.dead_row, pts).code(), Errc::kMalformed) << c.what;
    // Row 141 (group 2) is untouched by every case.
    const auto r = cache->lookup_row(141, 0);
    ASSERT_TRUE(r) << c.what;
    EXPECT_EQ(r->line, 141u) << c.what;
  }
  // Open refuses a directory whose sizes do not match method_rows.
  Bytes b = good;
  const std::size_t rows_len = ends - 4;  // the u32 length of block_ends
  std::uint32_t n = kRows - 1;
  std::memcpy(b.data() + rows_len, &n, 4);
  auto cache = Cache::from_bytes(b);
  ASSERT_FALSE(cache);
  EXPECT_EQ(cache.error().code, Errc::kMalformed);
}

}  // namespace
}  // namespace ilmap::test
