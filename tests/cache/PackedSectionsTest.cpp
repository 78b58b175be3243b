// PackedSectionsTest.cpp - format 2.0 stores the document strings and the details section as
// zstd frames (SPEC.md 3.7) when that is smaller: paths, URLs and details read back exactly as
// the PDB gives them, concurrent first lookups unpack once and agree, and a frame that does not
// unpack gives no answer (never a crash or garbage) and fails verify.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "CacheBuilder.h"
#include "PortablePdb.h"
#include "SourceLink.h"
#include "ilmap/cache.h"
#include "ilmap_format.h"
#include "ilmap_generated.h"

namespace ilmap::test {
namespace {

namespace d = ilmap::disk;
using Bytes = std::vector<std::uint8_t>;

// The cs-sourcelink corpus PDB: documents with SourceLink URLs.
const std::string kPdb = std::string(ILMAP_TEST_CORPUS_DIR) + "/out/cs-sourcelink/Ilmap.Corpus.Shapes.pdb";

Bytes read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Built {
  Bytes pdb_bytes, cache;
};

Built build() {
  Built b;
  b.pdb_bytes = read_all(kPdb);
  auto pdb = PortablePdb::parse(b.pdb_bytes);
  EXPECT_TRUE(pdb) << pdb.error().message;
  CacheSource src;
  src.pdb = &*pdb;
  src.source_name = "Ilmap.Corpus.Shapes.pdb";
  auto bytes = build_cache(src, CacheBuildOptions{});
  EXPECT_TRUE(bytes) << bytes.error().message;
  b.cache.assign(bytes->begin(), bytes->end());
  return b;
}

TEST(PackedSections, PathsUrlsAndDetailsReadBackExactly) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const Built b = build();
  const fb::Cache* root = fb::GetCache(b.cache.data() + d::kHeaderSize);
  ASSERT_EQ(root->strings(), nullptr);
  ASSERT_NE(root->strings_zstd(), nullptr);
  ASSERT_EQ(root->details(), nullptr);
  ASSERT_NE(root->details_zstd(), nullptr);
  auto cache = Cache::from_bytes(b.cache);
  ASSERT_TRUE(cache) << cache.error().message;
  ASSERT_TRUE(cache->verify()) << cache->verify().message();
  auto pdb = PortablePdb::parse(b.pdb_bytes);
  ASSERT_TRUE(pdb);
  auto docs = pdb->documents();
  ASSERT_TRUE(docs);
  ASSERT_EQ(cache->document_count(), docs->size());
  auto json = pdb->source_link();
  ASSERT_TRUE(json && *json);
  auto map = SourceLinkMap::parse(**json);
  ASSERT_TRUE(map);
  std::size_t urls = 0;
  for (std::uint32_t i = 0; i < docs->size(); ++i) {
    EXPECT_EQ(cache->document_path(i), (*docs)[i].name) << i;
    const auto url = map->map((*docs)[i].name);
    EXPECT_EQ(cache->document_source_url(i), url ? *url : std::string()) << i;
    urls += url.has_value();
  }
  EXPECT_GT(urls, 0u);
  auto details = cache->details();
  ASSERT_TRUE(details) << details.error().message;
  const auto* dd = static_cast<const fb::Details*>(*details);
  ASSERT_NE(dd->documents(), nullptr);
  ASSERT_EQ(dd->documents()->size(), docs->size());
  for (std::uint32_t i = 0; i < docs->size(); ++i) {
    const auto* h = dd->documents()->Get(i)->hash();
    ASSERT_NE(h, nullptr);
    EXPECT_TRUE(std::equal(h->begin(), h->end(), (*docs)[i].hash.begin(), (*docs)[i].hash.end())) << i;
  }
  ASSERT_NE(dd->source_link(), nullptr);
  EXPECT_EQ(dd->source_link()->size(), map->entries().size());
}

// Eight threads make the first lookups of a fresh Cache at once: all see the same views.
TEST(PackedSections, ConcurrentFirstLookupsAgree) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const Built b = build();
  for (int round = 0; round < 20; ++round) {
    auto cache = Cache::from_bytes(b.cache);
    ASSERT_TRUE(cache);
    std::vector<std::string> seen(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        if (auto r = cache->lookup(0x06000002u, 0)) seen[t] = std::string(r->file) + "|" + std::string(r->source_url);
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(seen[0], "/_/Shapes/Polygon.cs|https://example.invalid/ilmap/corpus/Shapes/Polygon.cs");
    for (int t = 1; t < 8; ++t) EXPECT_EQ(seen[t], seen[0]) << "thread " << t;
  }
}

// The first byte of each frame's magic changed (checksum resealed): the cache opens, lookups
// give no answer, document views are empty, details() and verify fail with kMalformed.
TEST(PackedSections, BrokenFrameGivesNoAnswerAndFailsVerify) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const Built good = build();
  const fb::Cache* root = fb::GetCache(good.cache.data() + d::kHeaderSize);
  const std::size_t strings_at = static_cast<std::size_t>(root->strings_zstd()->data() - good.cache.data());
  const std::size_t details_at = static_cast<std::size_t>(root->details_zstd()->data() - good.cache.data());
  for (std::size_t at : {strings_at, details_at}) {
    Bytes b = good.cache;
    b[at] ^= 0xFF;
    const std::uint64_t sum = XXH3_64bits(b.data() + d::kHeaderSize, b.size() - d::kHeaderSize);
    std::memcpy(b.data() + 24, &sum, 8);
    auto cache = Cache::from_bytes(b);
    ASSERT_TRUE(cache) << cache.error().message;
    EXPECT_EQ(cache->verify().code(), Errc::kMalformed) << cache->verify().message();
    if (at == strings_at) {
      EXPECT_FALSE(cache->lookup(0x06000002u, 0));
      EXPECT_TRUE(cache->document_path(0).empty());
      EXPECT_NE(cache->verify().message().find("strings_zstd"), std::string::npos) << cache->verify().message();
    } else {
      EXPECT_TRUE(cache->lookup(0x06000002u, 0));
      auto details = cache->details();
      ASSERT_FALSE(details);
      EXPECT_EQ(details.error().code, Errc::kMalformed);
      EXPECT_FALSE(cache->details());  // and again, from the remembered failure
    }
  }
}

}  // namespace
}  // namespace ilmap::test
