// EmbeddedSourceBudgetTest.cpp - embedded sources are inflated once per distinct blob and under
// one budget per PDB (issue 9 item 9): 100 documents sharing a blob cost one inflation, and
// the sum of distinct sources beyond --max-decompressed is a too-large error before inflating.
#include <gtest/gtest.h>
#include <zstd.h>

#include <set>

#include "compiler/CacheBuilder.h"
#include "decode/EmbeddedSources.h"
#include "GoldenFiles.h"
#include "ilmap/cache.h"
#include "reader/RawCache.h"
#include "ilmap_generated.h"

namespace ilmap::hostile {
namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20;

TEST(EmbeddedSourceBudget, SharedBlobIsInflatedOnce) {
  const auto bytes = embedded_sources_pdb(100, 1, kMiB);
  auto pdb = PortablePdb::parse(bytes);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EmbeddedSourceReader reader(*pdb, 2 * kMiB, 2 * kMiB);
  for (std::uint32_t rid = 1; rid <= 100; ++rid) {
    auto src = reader.read(rid);
    ASSERT_TRUE(src.ok()) << src.error().message;
    ASSERT_TRUE(src->has_value());
    EXPECT_EQ((*src)->size, kMiB);
    EXPECT_EQ((*src)->shared, rid > 1);
    EXPECT_EQ((*src)->bytes.size(), rid == 1 ? kMiB : 0u);
  }
  EXPECT_EQ(reader.inflations(), 1u);
  EXPECT_EQ(reader.inflated_bytes(), kMiB);
}

TEST(EmbeddedSourceBudget, DistinctBlobsOverTheTotalAreRefused) {
  const auto bytes = embedded_sources_pdb(3, 3, kMiB);
  auto pdb = PortablePdb::parse(bytes);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EmbeddedSourceReader reader(*pdb, 2 * kMiB, 2 * kMiB);
  ASSERT_TRUE(reader.read(1).ok());
  ASSERT_TRUE(reader.read(2).ok());
  auto third = reader.read(3);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().code, Errc::kTooLarge);
  EXPECT_NE(third.error().message.find("Document row 3"), std::string::npos) << third.error().message;
  EXPECT_NE(third.error().message.find("over the total limit of 2097152"), std::string::npos) << third.error().message;
  EXPECT_EQ(reader.inflations(), 2u);  // refused before the third inflation
  // A larger total budget (per-source cap unchanged) lets all three through.
  EmbeddedSourceReader roomy(*pdb, 2 * kMiB, 4 * kMiB);
  for (std::uint32_t rid = 1; rid <= 3; ++rid) EXPECT_TRUE(roomy.read(rid).ok());
  EXPECT_EQ(roomy.inflations(), 3u);
}

TEST(EmbeddedSourceBudget, CompileStoresASharedSourceOnce) {
  const auto bytes = embedded_sources_pdb(100, 1, kMiB);
  auto pdb = PortablePdb::parse(bytes);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  CacheSource cs;
  cs.pdb = &*pdb;
  cs.source_name = "shared.pdb";
  CacheBuildOptions opt;
  opt.embed_sources = true;
  opt.max_embedded_source = 2 * kMiB;  // the total shares this cap (max_embedded_total = 0)
  CacheStats stats;
  auto built = build_cache(cs, opt, &stats);
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_EQ(stats.embedded_source_inflations, 1u);
  EXPECT_EQ(stats.embedded_source_bytes, kMiB);

  auto cache = Cache::from_bytes(built->span());
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  ASSERT_TRUE(cache->verify().ok());
  auto details = raw_details(*cache);
  ASSERT_TRUE(details.ok());
  const auto* es = static_cast<const fb::Details*>(*details)->embedded_sources();
  ASSERT_NE(es, nullptr);
  ASSERT_EQ(es->size(), 100u);
  std::set<const std::uint8_t*> frames;
  for (const fb::EmbeddedSource* e : *es) {
    EXPECT_EQ(e->uncompressed_size(), kMiB);
    frames.insert(e->zstd()->data());
  }
  EXPECT_EQ(frames.size(), 1u);  // one zstd frame, referenced by all 100 entries
  const fb::EmbeddedSource* last = es->Get(99);
  std::string text(kMiB, '\0');
  EXPECT_EQ(ZSTD_decompress(text.data(), text.size(), last->zstd()->data(), last->zstd()->size()), kMiB);
  EXPECT_EQ(text.substr(0, 12), "// source 0\n");
}

TEST(EmbeddedSourceBudget, CompileRefusesDistinctSourcesOverTheTotal) {
  const auto bytes = embedded_sources_pdb(3, 3, kMiB);
  auto pdb = PortablePdb::parse(bytes);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  CacheSource cs;
  cs.pdb = &*pdb;
  cs.source_name = "three.pdb";
  CacheBuildOptions opt;
  opt.embed_sources = true;
  opt.max_embedded_source = 2 * kMiB;
  auto built = build_cache(cs, opt);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.error().code, Errc::kTooLarge);
  EXPECT_NE(built.error().message.find("over the total limit"), std::string::npos) << built.error().message;
  opt.max_embedded_total = 3 * kMiB;
  EXPECT_TRUE(build_cache(cs, opt).ok());
}

}  // namespace
}  // namespace ilmap::hostile
