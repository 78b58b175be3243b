// RegressionTest.cpp - replays every file under regressions/ through the in-process path
// (kind sniffed from the first bytes), checks the committed golden files against their
// generator, and checks the fuzz dictionaries' GUID bytes against decode/Guids.h.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "GoldenFiles.h"
#include "decode/Guids.h"
#include "HostileSupport.h"
#include "format/ilmap_format.h"
#include "ilmap_generated.h"

namespace ilmap::hostile {
namespace {

namespace fs = std::filesystem;
const fs::path kDir = ILMAP_HOSTILE_DIR;

TEST(Regression, EveryFileGivesSuccessOrACleanError) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(kDir / "regressions")) {
    if (!e.is_regular_file() || e.path().extension() == ".md") continue;
    const Bytes b = read_file(e.path());
    const std::string where = e.path().filename().string();
    switch (sniff_input(b)) {
      case InputKind::kPortablePdb: (void)exercise_pdb_bytes(b, where); break;
      case InputKind::kPe: (void)exercise_pe_bytes(b, nullptr, where); break;
      default: (void)exercise_cache(b, where); break;
    }
    ++n;
  }
  // The folder holds the files its README lists: a test that replayed none would prove nothing.
  EXPECT_GE(n, 2u) << "regression files found in " << (kDir / "regressions");
}

// A cache whose IL column is not sorted must never answer with a point after the queried
// offset (regressions/cache-unsorted-il-column.ilmap found it). Made in the current layout: the cache of corpus cs-frames
// with the first two IL column entries of its first block of 3+ visible points swapped (it still opens; only
// verify sees the damage). Every answer from that block must be at or before the queried
// offset, and some queries must still answer.
TEST(Regression, UnsortedIlColumnNeverAnswersAfterTheOffset) {
  const Bytes pdb_bytes = read_file(fs::path(ILMAP_HOSTILE_CORPUS) / "cs-frames" / "Ilmap.Corpus.Frames.pdb");
  if (pdb_bytes.empty()) GTEST_SKIP() << "corpus/out/cs-frames is missing";
  auto pdb = PortablePdb::parse(pdb_bytes);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  CacheSource cs;
  cs.pdb = &*pdb;
  cs.source_name = "Ilmap.Corpus.Frames.pdb";
  auto built = build_cache(cs, CacheBuildOptions{});
  ASSERT_TRUE(built.ok()) << built.error().message;
  Bytes b(built->begin(), built->end());
  const std::uint8_t* payload = b.data() + disk::kHeaderSize;
  const fb::Cache* root = fb::GetCache(payload);
  ASSERT_TRUE(root->method_groups() && root->block_ends() && root->point_blocks());
  // Block ranges from the format 2.0 directory (SPEC.md section 4): per row the end of its block
  // relative to its group's base (16 bits; the caches of this test have no wide group).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> range(root->method_rows() + 1);
  for (std::uint32_t i = 0; i < root->method_rows(); ++i) {
    const fb::MethodGroup* grp = root->method_groups()->Get(i / 64);
    ASSERT_EQ(grp->high(), disk::kGroupNarrow);
    range[i + 1] = {i % 64 ? grp->base() + root->block_ends()->Get(i - 1) : grp->base(), grp->base() + root->block_ends()->Get(i)};
  }
  const std::size_t blocks_at = static_cast<std::size_t>(root->point_blocks()->data() - b.data());
  std::uint32_t target = 0, max_il = 0;
  for (std::uint32_t rid = 1; rid <= root->method_rows() && target == 0; ++rid) {
    if (range[rid].first == range[rid].second) continue;
    const std::uint8_t* p = b.data() + blocks_at + range[rid].first;
    disk::BlockHeader h;
    disk::ProfileTable profiles;
    ASSERT_TRUE(root->block_profiles() && root->block_profile_index());
    profiles.data = reinterpret_cast<const std::uint8_t*>(root->block_profiles()->data());
    profiles.count = root->block_profiles()->size();
    profiles.index = root->block_profile_index()->data();
    std::uint64_t profile = 0;
    ASSERT_TRUE(profiles.profile_of(rid, p, profile));
    ASSERT_TRUE(disk::get_block_header(p, b.data() + blocks_at + range[rid].second, profile, h));
    if (h.visible < 3 || h.il_bytes() == 0) continue;
    target = rid;
    // Swap the first two entries (il_bytes() bytes each): a query between them counts one
    // entry and lands on record 0, whose offset is now the larger one.
    const unsigned s = h.il_bytes();
    std::uint8_t* col = b.data() + (p - b.data());
    for (unsigned k = 0; k < s; ++k) std::swap(col[k], col[s + k]);
    max_il = disk::get_visible_il(col, h.visible - 1, h);
  }
  ASSERT_NE(target, 0u) << "the cache has no block with 3 or more visible points";
  auto cache = Cache::from_bytes(b);
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  EXPECT_FALSE(cache->verify().ok());
  std::size_t answers = 0;
  for (std::uint32_t il = 0; il <= max_il + 16; ++il) {
    if (auto r = cache->lookup_row(target, il)) {
      EXPECT_LE(r->il_offset, il) << "row " << target;
      ++answers;
    }
  }
  EXPECT_GT(answers, 0u);
}

// A header that declares an empty (or under 8-byte) payload must be refused before the
// FlatBuffers identifier, which sits at payload bytes 4..8, is read.
TEST(Regression, TinyPayloadIsTruncatedNotRead) {
  const Bytes b = read_file(kDir / "regressions" / "cache-tiny-payload.ilmap");
  ASSERT_EQ(b.size(), 32u);
  auto cache = Cache::from_bytes(b);
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.error().code, Errc::kTruncated) << cache.error().message;
}

// Resource bombs (golden files, GoldenFiles.cpp) are refused with kTooLarge before their
// allocation: name -> Errc.
TEST(Regression, ResourceBombsAreRejectedBeforeAllocation) {
  struct Case { const char* file; Errc code; };
  const std::vector<GoldenFile> golden = golden_files();
  for (const Case& c : {Case{"document-name-bomb.pdb", Errc::kTooLarge}}) {
    const auto g = std::find_if(golden.begin(), golden.end(), [&](const GoldenFile& f) { return f.name == c.file; });
    ASSERT_NE(g, golden.end()) << c.file;
    auto pdb = PortablePdb::parse(g->bytes);
    ASSERT_TRUE(pdb.ok()) << pdb.error().message;
    auto docs = pdb->documents();
    ASSERT_FALSE(docs.ok()) << c.file << " decoded";
    EXPECT_EQ(docs.error().code, c.code) << docs.error().message;
  }
}

// In-process outcome of each golden input matches its expected exit code's class.
TEST(Golden, InProcessOutcomes) {
  for (const GoldenFile& g : golden_files()) {
    // Outcomes that depend on command-line options (caps) are checked by golden-cli.sh only.
    if (g.command.find(' ') != std::string::npos) continue;
    const auto kind = sniff_input(g.bytes);
    bool ok = false;
    if (kind == InputKind::kPortablePdb) ok = exercise_pdb_bytes(g.bytes, g.name);
    else if (kind == InputKind::kPe) ok = exercise_pe_bytes(g.bytes, nullptr, g.name);
    else if (kind == InputKind::kCache) ok = exercise_cache(g.bytes, g.name);
    EXPECT_EQ(ok, g.exit_code == 0) << g.name;
  }
}

// Each golden bad cache names the structure that failed (SPEC.md section 7): first open, then
// verify, the first failure's structure is the one GoldenFiles.cpp gives it.
TEST(Golden, BadCachesNameTheirStructure) {
  int caches = 0;
  for (const GoldenFile& g : golden_files()) {
    if (g.structure == CacheStructure::kNone) continue;
    ++caches;
    Error e;
    if (auto c = Cache::from_bytes(g.bytes); !c) e = c.error();
    else if (Status s = c->verify(); !s) e = s.error();
    EXPECT_NE(e.code, Errc::kOk) << g.name << " opens and verifies";
    EXPECT_EQ(e.structure, g.structure) << g.name << ": " << cache_structure_name(e.structure) << ": " << e.message;
    EXPECT_NE(e.message.find(g.fragment), std::string::npos) << g.name << ": " << e.message;
  }
  EXPECT_GE(caches, 11);
}

Guid dict_guid(const fs::path& dict, const std::string& key) {
  std::ifstream f(dict);
  std::string line;
  Guid g{};
  while (std::getline(f, line)) {
    if (line.rfind(key + "=\"", 0) != 0) continue;
    std::size_t p = key.size() + 2;
    for (std::size_t i = 0; i < 16; ++i, p += 4) g[i] = static_cast<std::uint8_t>(std::stoul(line.substr(p + 2, 2), nullptr, 16));
    return g;
  }
  ADD_FAILURE() << key << " not in " << dict;
  return g;
}

TEST(FuzzDictionaries, GuidBytesMatchGuidsH) {
  const fs::path fuzz = fs::path(ILMAP_SOURCE_DIR) / "fuzz";
  for (const char* d : {"pdb.dict", "pe.dict"}) {
    EXPECT_EQ(dict_guid(fuzz / d, "kw_guid_sourcelink"), guids::kCdiSourceLink) << d;
    EXPECT_EQ(dict_guid(fuzz / d, "kw_guid_embedded_source"), guids::kCdiEmbeddedSource) << d;
    EXPECT_EQ(dict_guid(fuzz / d, "kw_guid_lang_csharp"), guids::kLanguageCSharp) << d;
    EXPECT_EQ(dict_guid(fuzz / d, "kw_guid_hash_sha256"), guids::kHashSha256) << d;
  }
}

}  // namespace
}  // namespace ilmap::hostile
