// BlockProfilesTest.cpp - format 2.0's block profiles (SPEC.md 5.1): the shared table and the
// per-row index byte. ilmap's writer puts every block's profile in the table (writing rarer
// blocks in a wider entry when there are more profiles than entries); its first policy kept
// profiles used once in their blocks. Caches of either policy, and with a table smaller than
// the PDB's profiles, answer as the PDB's points say; a damaged index or profile gives no
// answer for that row only (never another row's or a wrong point) and fails verify.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "compiler/CacheBuilder.h"
#include "CacheTestSupport.h"
#include "decode/PortablePdb.h"
#include "ilmap/cache.h"
#include "format/ilmap_format.h"
#include "reader/CacheImpl.h"
#include "ilmap_generated.h"

namespace ilmap::test {
namespace {

namespace d = ilmap::disk;
using Bytes = std::vector<std::uint8_t>;

// cs-manymethods: thousands of methods, most sharing a handful of profiles; cs-frames: few
// methods, many profiles used once (kept in their blocks).
const std::string kMany = std::string(ILMAP_TEST_CORPUS_DIR) + "/out/cs-manymethods/Ilmap.Corpus.ManyMethods.pdb";
const std::string kFrames = std::string(ILMAP_TEST_CORPUS_DIR) + "/out/cs-frames/Ilmap.Corpus.Frames.pdb";

using Built = BuiltFromPdb;
Built build(const std::string& path, const CacheBuildOptions& opt = {}) { return build_from_pdb_file(path, opt); }

const fb::Cache* root_of(const Bytes& b) { return fb::GetCache(b.data() + d::kHeaderSize); }

void reseal(Bytes& b) {
  const std::uint64_t sum = XXH3_64bits(b.data() + d::kHeaderSize, b.size() - d::kHeaderSize);
  std::memcpy(b.data() + 24, &sum, 8);
}

std::size_t at(const Bytes& b, const void* p) { return static_cast<std::size_t>(static_cast<const std::uint8_t*>(p) - b.data()); }

// Rows with points, split by where their profile is.
struct Rows {
  std::vector<std::uint32_t> in_table, in_block;
};
Rows rows_of(const Bytes& b, const Cache& cache) {
  Rows r;
  const fb::Cache* root = root_of(b);
  for (std::uint32_t rid = 1; rid <= cache.method_count(); ++rid) {
    std::vector<CachePoint> pts;
    EXPECT_TRUE(cache.points(rid, pts));
    if (pts.empty()) continue;
    (root->block_profile_index()->Get(rid - 1) ? r.in_table : r.in_block).push_back(rid);
  }
  return r;
}

CacheBuildOptions rare_in_blocks() {
  CacheBuildOptions opt;
  opt.rare_profiles_in_blocks = true;
  return opt;
}

CacheBuildOptions table_of(unsigned entries) {
  CacheBuildOptions opt;
  opt.profile_table_entries = entries;
  return opt;
}

// Every row's points (IL offsets, lines, columns, hidden) == the PDB's.
void expect_points_of_pdb(const Built& b, const Cache& cache, const std::string& what) {
  auto pdb = PortablePdb::parse(b.pdb_bytes);
  ASSERT_TRUE(pdb);
  for (std::uint32_t rid = 1; rid <= cache.method_count(); ++rid) {
    std::vector<SequencePoint> want;
    ASSERT_TRUE(pdb->sequence_points(rid, want)) << rid;
    std::vector<CachePoint> got;
    ASSERT_TRUE(cache.points(rid, got)) << rid;
    ASSERT_EQ(got.size(), want.size()) << what << " row " << rid;
    for (std::size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].il_offset, want[k].il_offset) << what << " " << rid << "/" << k;
      EXPECT_EQ(got[k].hidden, want[k].hidden()) << what << " " << rid << "/" << k;
      if (!got[k].hidden) {
        EXPECT_EQ(got[k].start_line, want[k].start_line) << what << " " << rid << "/" << k;
        EXPECT_EQ(got[k].start_column, want[k].start_column) << what << " " << rid << "/" << k;
        EXPECT_EQ(got[k].end_line, want[k].end_line) << what << " " << rid << "/" << k;
        EXPECT_EQ(got[k].end_column, want[k].end_column) << what << " " << rid << "/" << k;
      }
    }
  }
}

// The largest block of at most `max_size` bytes among rows `rids` (rows with points): its row,
// where it starts in the cache's bytes, and its size; row 0 when there is none.
struct BlockAt {
  std::uint32_t rid = 0;
  std::size_t at = 0, size = 0;
};
BlockAt largest_block(const Bytes& bytes, const Cache& cache, const std::vector<std::uint32_t>& rids,
                      std::size_t max_size = SIZE_MAX) {
  BlockAt t;
  const auto& impl = CacheInternals::of(cache);
  for (std::uint32_t rid : rids) {
    std::uint32_t b = 0, e = 0;
    EXPECT_EQ(impl.block_range(rid, b, e), CacheInternals::Impl::Range::kBlock) << rid;
    if (e - b > t.size && e - b <= max_size) t = {rid, at(bytes, root_of(bytes)->point_blocks()->data() + b), e - b};
  }
  return t;
}

// The profile of each row with points, wherever it is.
std::vector<std::uint64_t> profiles_of(const Bytes& b, const Rows& rows) {
  const fb::Cache* root = root_of(b);
  std::vector<std::uint64_t> out;
  for (std::uint32_t rid : rows.in_table)
    out.push_back(root->block_profiles()->Get(root->block_profile_index()->Get(rid - 1) - 1));
  return out;
}

// Both writers' caches read back as the PDB. The default writer: every row with points names a
// table entry and every entry is used. The first policy: the table holds only profiles used
// twice or more, and cs-frames keeps some in its blocks.
TEST(BlockProfiles, BothWritersReadBackAsThePdb) {
  for (const bool first_policy : {false, true}) {
    for (const std::string& path : {kMany, kFrames}) {
      if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus/out not built";
      const std::string what = path + (first_policy ? " (profiles used once in their blocks)" : "");
      const Built b = build(path, first_policy ? rare_in_blocks() : CacheBuildOptions{});
      auto cache = Cache::from_bytes(b.cache);
      ASSERT_TRUE(cache) << cache.error().message;
      ASSERT_TRUE(cache->verify()) << what << ": " << cache->verify().message();
      const fb::Cache* root = root_of(b.cache);
      ASSERT_TRUE(root->block_profiles() && root->block_profile_index());
      EXPECT_LE(root->block_profiles()->size(), d::kMaxProfiles);
      EXPECT_EQ(root->block_profile_index()->size(), cache->method_count());
      const Rows rows = rows_of(b.cache, *cache);
      EXPECT_FALSE(rows.in_table.empty()) << what;
      std::vector<std::uint32_t> uses(root->block_profiles()->size() + 1, 0);
      for (std::uint32_t rid : rows.in_table) ++uses[root->block_profile_index()->Get(rid - 1)];
      for (std::size_t i = 1; i < uses.size(); ++i)
        EXPECT_GE(uses[i], first_policy ? 2u : 1u) << what << ": table entry " << i - 1;
      if (!first_policy) {
        EXPECT_TRUE(rows.in_block.empty()) << what << ": " << rows.in_block.size() << " blocks keep their profile";
      } else if (path == kFrames) {
        EXPECT_FALSE(rows.in_block.empty()) << "cs-frames should keep some profiles in blocks";
      }
      expect_points_of_pdb(b, *cache, what);
    }
  }
}

// More profiles than table entries: the rarer blocks are written in a wider entry (one that
// dominates their own), the table is full, and every row still reads back as the PDB. With one
// entry, every block takes the fieldwise maximum of all profiles.
TEST(BlockProfiles, BlocksRewrittenInAWiderEntryReadBackAsThePdb) {
  if (!std::filesystem::exists(kMany)) GTEST_SKIP() << "corpus/out not built";
  const Built full = build(kMany);
  auto reference = Cache::from_bytes(full.cache);
  ASSERT_TRUE(reference);
  const std::size_t distinct = root_of(full.cache)->block_profiles()->size();
  ASSERT_GT(distinct, 8u) << "cs-manymethods should have more than 8 profiles";
  for (unsigned entries : {8u, 2u, 1u}) {
    const std::string what = "table of " + std::to_string(entries);
    const Built b = build(kMany, table_of(entries));
    auto cache = Cache::from_bytes(b.cache);
    ASSERT_TRUE(cache) << cache.error().message;
    ASSERT_TRUE(cache->verify()) << what << ": " << cache->verify().message();
    const fb::Cache* root = root_of(b.cache);
    EXPECT_LE(root->block_profiles()->size(), entries) << what;
    if (entries == 1) {
      EXPECT_EQ(root->block_profiles()->size(), 1u);
    }
    const Rows rows = rows_of(b.cache, *cache);
    EXPECT_TRUE(rows.in_block.empty()) << what;
    // Wider blocks: the point blocks grow, and fewer rows keep the profile of the full table.
    EXPECT_GT(root->point_blocks()->size(), root_of(full.cache)->point_blocks()->size()) << what;
    const std::vector<std::uint64_t> got = profiles_of(b.cache, rows);
    const std::vector<std::uint64_t> own = profiles_of(full.cache, rows_of(full.cache, *reference));
    ASSERT_EQ(got.size(), own.size()) << what;
    std::size_t wider = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      for (unsigned f = 0; f < 6; ++f)
        EXPECT_GE(got[i] >> (5 * f) & 31, own[i] >> (5 * f) & 31) << what << " block " << i << " width " << f;
      for (unsigned c = 0; c < 4; ++c)
        EXPECT_GE(got[i] >> (32 + 2 * c) & 3, own[i] >> (32 + 2 * c) & 3) << what << " block " << i << " code " << c;
      wider += got[i] != own[i];
    }
    EXPECT_GT(wider, 0u) << what;
    expect_points_of_pdb(b, *cache, what);
  }
}

// A row's index byte set past the table: that row has no answer and no points, the other rows
// answer as before, verify fails naming the row.
TEST(BlockProfiles, IndexPastTheTableGivesNoAnswerForThatRowOnly) {
  if (!std::filesystem::exists(kFrames)) GTEST_SKIP() << "corpus/out not built";
  const Built good = build(kFrames, rare_in_blocks());  // rows of both kinds
  auto before = Cache::from_bytes(good.cache);
  ASSERT_TRUE(before);
  const Rows rows = rows_of(good.cache, *before);
  const fb::Cache* root = root_of(good.cache);
  const std::uint32_t count = root->block_profiles()->size();
  ASSERT_LT(count, 255u);
  ASSERT_FALSE(rows.in_table.empty());
  ASSERT_FALSE(rows.in_block.empty());
  for (std::uint32_t target : {rows.in_table.front(), rows.in_block.front()}) {
    Bytes b = good.cache;
    b[at(good.cache, root->block_profile_index()->data()) + target - 1] = static_cast<std::uint8_t>(count + 1);
    reseal(b);
    auto cache = Cache::from_bytes(b);
    ASSERT_TRUE(cache) << cache.error().message;
    std::size_t answers = 0;
    for (std::uint32_t rid = 1; rid <= cache->method_count(); ++rid) {
      for (std::uint32_t il = 0; il < 64; ++il) {
        const auto want = before->lookup_row(rid, il);
        const auto got = cache->lookup_row(rid, il);
        if (rid == target) {
          EXPECT_FALSE(got) << "row " << rid << " IL " << il;
          continue;
        }
        ASSERT_EQ(got.has_value(), want.has_value()) << rid << " " << il;
        if (got) {
          EXPECT_EQ(got->line, want->line);
          EXPECT_EQ(got->il_offset, want->il_offset);
          ++answers;
        }
      }
    }
    EXPECT_GT(answers, 0u);
    std::vector<CachePoint> pts;
    EXPECT_FALSE(cache->points(target, pts));
    const Status v = cache->verify();
    EXPECT_EQ(v.code(), Errc::kMalformed) << v.message();
    EXPECT_NE(v.message().find("method row " + std::to_string(target)), std::string::npos) << v.message();
  }
}

// A table entry with bit 30 set (a reserved widths bit) makes its rows corrupt; bit 40 (above
// the codes) is ignored by lookups but fails verify.
TEST(BlockProfiles, ReservedProfileBits) {
  if (!std::filesystem::exists(kMany)) GTEST_SKIP() << "corpus/out not built";
  const Built good = build(kMany);
  auto before = Cache::from_bytes(good.cache);
  ASSERT_TRUE(before);
  const Rows rows = rows_of(good.cache, *before);
  const fb::Cache* root = root_of(good.cache);
  const std::uint32_t target = rows.in_table.front();
  const std::uint32_t entry = root->block_profile_index()->Get(target - 1) - 1;
  const std::size_t entry_at = at(good.cache, root->block_profiles()->data()) + std::size_t(entry) * 8;
  std::uint32_t probe_il = 0;
  {
    std::vector<CachePoint> pts;
    ASSERT_TRUE(before->points(target, pts));
    for (const CachePoint& p : pts)
      if (!p.hidden) {
        probe_il = p.il_offset;
        break;
      }
    ASSERT_TRUE(before->lookup_row(target, probe_il));
  }
  for (const auto& [byte, bit, answers] : {std::tuple{3u, 6u, false}, std::tuple{5u, 0u, true}}) {
    Bytes b = good.cache;
    b[entry_at + byte] |= static_cast<std::uint8_t>(1u << bit);
    reseal(b);
    auto cache = Cache::from_bytes(b);
    ASSERT_TRUE(cache) << cache.error().message;
    EXPECT_EQ(cache->lookup_row(target, probe_il).has_value(), answers) << "bit " << byte * 8 + bit;
    EXPECT_EQ(cache->verify().code(), Errc::kMalformed) << "bit " << byte * 8 + bit << ": " << cache->verify().message();
  }
}

// block_profile_index one entry short: open refuses the cache.
TEST(BlockProfiles, IndexOfTheWrongLengthIsRefusedAtOpen) {
  if (!std::filesystem::exists(kFrames)) GTEST_SKIP() << "corpus/out not built";
  Built b = build(kFrames);
  const fb::Cache* root = root_of(b.cache);
  const std::size_t len_at = at(b.cache, root->block_profile_index()->data()) - 4;
  std::uint32_t len;
  std::memcpy(&len, b.cache.data() + len_at, 4);
  --len;
  std::memcpy(b.cache.data() + len_at, &len, 4);
  reseal(b.cache);
  auto cache = Cache::from_bytes(b.cache);
  ASSERT_FALSE(cache);
  EXPECT_EQ(cache.error().code, Errc::kMalformed);
  EXPECT_NE(cache.error().message.find("block_profile_index"), std::string::npos) << cache.error().message;
}

}  // namespace
// A block whose records take no bits (every width 0) may claim any number of points in no
// bytes: 2^32 - 1 of them in a 9-byte header. Expanding them (points, verify) must not be
// attempted: the row is corrupt, and verify says so, at once and without the memory.
TEST(BlockProfiles, PointsClaimedInNoBytesAreRefused) {
  if (!std::filesystem::exists(kFrames)) GTEST_SKIP() << "corpus/out not built";
  const Built good = build(kFrames, rare_in_blocks());
  auto before = Cache::from_bytes(good.cache);
  ASSERT_TRUE(before);
  const Rows rows = rows_of(good.cache, *before);
  ASSERT_FALSE(rows.in_block.empty());
  // The largest block whose profile is in the block: room for the 9-byte header.
  const BlockAt block = largest_block(good.cache, *before, rows.in_block);
  const std::uint32_t target = block.rid;
  const std::size_t target_at = block.at;
  ASSERT_GE(block.size, 9u);
  Bytes b = good.cache;
  const std::uint8_t header[9] = {0, 0, 0, 0, 0x03, 0xFF, 0xFF, 0xFF, 0xFF};  // widths 0; visible code 3 = 2^32 - 1
  std::memcpy(b.data() + target_at, header, sizeof header);
  reseal(b);
  auto cache = Cache::from_bytes(b);
  ASSERT_TRUE(cache) << cache.error().message;
  std::vector<CachePoint> pts;
  const Status p = cache->points(target, pts);
  EXPECT_FALSE(p) << "row " << target << " gave " << pts.size() << " points";
  EXPECT_LT(pts.capacity(), std::size_t{1} << 20);
  const Status v = cache->verify();
  EXPECT_EQ(v.code(), Errc::kMalformed) << v.message();
  EXPECT_NE(v.message().find("method row " + std::to_string(target)), std::string::npos) << v.message();
}

// Lookup step 5: the header and the records must lie inside the block. A block rewritten with
// the most visible records that fit answers from its last record; one more record, which would
// need bytes past the block's end, gives no answer (the lookup reads no record of it).
TEST(BlockProfiles, RecordsPastTheBlockGiveNoAnswer) {
  if (!std::filesystem::exists(kFrames)) GTEST_SKIP() << "corpus/out not built";
  const Built good = build(kFrames, rare_in_blocks());
  auto before = Cache::from_bytes(good.cache);
  ASSERT_TRUE(before);
  const Rows rows = rows_of(good.cache, *before);
  ASSERT_FALSE(rows.in_block.empty());
  // A block of at most 400 bytes: the most records that fit in it (V + ceil(7V / 8) + 6 <= 400)
  // stay below 256, so V takes one byte.
  const BlockAt block = largest_block(good.cache, *before, rows.in_block, 400);
  const std::uint32_t target = block.rid;
  const std::size_t target_at = block.at, size = block.size;
  ASSERT_GE(size, 9u);
  // The block's own profile: 8-bit IL entries, 7-bit lines, no other field; V in one byte, no
  // hidden records, bases 0. V records take V + ceil(7V / 8) bytes after the 6 of profile and V.
  const auto bytes_for = [](std::uint32_t v) { return 6 + v + (7 * v + 7) / 8; };
  std::uint32_t v = 1;
  while (bytes_for(v + 1) <= size) ++v;
  ASSERT_LE(bytes_for(v), size);
  ASSERT_GT(bytes_for(v + 1), size);
  // Only the bytes inside the block are written: IL offsets 0, 1, ... and lines 5 + k % 3.
  const auto rewrite = [&](std::uint32_t visible) {
    Bytes b = good.cache;
    std::uint8_t* p = b.data() + target_at;
    const std::uint32_t widths = 8u | 7u << 15;  // w_il 8, w_line 7
    std::memcpy(p, &widths, 4);
    p[4] = 0x01;  // visible: one byte; hidden, base_line, base_doc: absent (0)
    p[5] = static_cast<std::uint8_t>(visible);
    for (std::uint32_t k = 0; k < visible && 6 + k < size; ++k) p[6 + k] = static_cast<std::uint8_t>(k);
    for (std::uint32_t k = 0; k < visible; ++k)
      for (unsigned i = 0; i < 7; ++i) {
        const std::size_t bit = std::size_t(k) * 7 + i, byte = 6 + visible + bit / 8;
        if (byte >= size) break;
        const auto mask = static_cast<std::uint8_t>(1u << (bit % 8));
        if ((5 + k % 3) >> i & 1) p[byte] |= mask;
        else p[byte] &= static_cast<std::uint8_t>(~mask);
      }
    reseal(b);
    return b;
  };
  const Bytes fits = rewrite(v);
  auto cache = Cache::from_bytes(fits);
  ASSERT_TRUE(cache) << cache.error().message;
  const auto last = cache->lookup_row(target, 1000);
  ASSERT_TRUE(last) << "row " << target << ", " << v << " records in " << size << " bytes";
  EXPECT_EQ(last->il_offset, v - 1);
  EXPECT_EQ(last->line, 5 + (v - 1) % 3);
  const auto first = cache->lookup_row(target, 0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->line, 5u);
  const Bytes past = rewrite(v + 1);
  auto bad = Cache::from_bytes(past);
  ASSERT_TRUE(bad) << bad.error().message;
  for (std::uint32_t il : {0u, 1u, v, 1000u}) EXPECT_FALSE(bad->lookup_row(target, il)) << "IL " << il;
  // The other rows answer as before.
  for (std::uint32_t rid : rows.in_table)
    EXPECT_EQ(bad->lookup_row(rid, 0).has_value(), before->lookup_row(rid, 0).has_value()) << rid;
}

}  // namespace ilmap::test
