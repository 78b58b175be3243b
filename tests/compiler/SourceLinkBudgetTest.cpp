// SourceLinkBudgetTest.cpp - SourceLink parsing, mapping and its size budget in build_cache.
//
// A SourceLink entry's URL prefix is repeated in every document's resolved URL, so a long
// prefix and many documents could make a tiny PDB expand into gigabytes of URLs. build_cache
// charges resolved URLs to the document-name budget (max(64 MiB, 16 x PDB size)) and stops
// with kTooLarge. The PDBs here are built byte by byte (TestEncoders.h), with a
// CustomDebugInformation row holding the SourceLink JSON.
#include <gtest/gtest.h>

#include <string>

#include "compiler/CacheBuilder.h"
#include "decode/Guids.h"
#include "decode/PortablePdb.h"
#include "decode/SourceLink.h"
#include "tests/common/TestEncoders.h"
#include "ilmap/cache.h"

namespace ilmap::test {
namespace {

// A PDB with `docs` documents (all named "/src/a.cs"), no methods, and a SourceLink CDI row
// holding `json`.
Bytes pdb_with_json(std::uint32_t docs, const std::string& json) {
  BlobHeap blobs;
  GuidHeap guids;
  Bytes name{'/'};
  put_compressed(name, 0);  // leading empty part -> "/src/a.cs"
  put_compressed(name, blobs.add("src"));
  put_compressed(name, blobs.add("a.cs"));
  const std::uint32_t name_blob = blobs.add(name);
  const std::uint32_t json_blob = blobs.add(json);
  guids.b.insert(guids.b.end(), guids::kCdiSourceLink.begin(), guids::kCdiSourceLink.end());
  const std::uint32_t kind = std::uint32_t(guids.b.size() / 16);

  TableStream t;
  t.heap_sizes = 0x04;  // 4-byte #Blob indices: the JSON may be large
  t.sorted = std::uint64_t(1) << 0x37;
  t.rows = {{0x30, docs}, {0x37, 1}};
  for (std::uint32_t i = 0; i < docs; ++i) {
    put_u32(t.data, name_blob);  // Name (blob, 4 bytes)
    put_u16(t.data, 0);          // HashAlgorithm (guid)
    put_u32(t.data, 0);          // Hash (blob)
    put_u16(t.data, 0);          // Language (guid)
  }
  put_u16(t.data, std::uint16_t((1u << 5) | 7));  // Parent: Module row 1 (tag 7)
  put_u16(t.data, std::uint16_t(kind));            // Kind
  put_u32(t.data, json_blob);                      // Value
  PdbStream p;
  p.external = {{0x00, 1}, {0x06, 0}};
  MetadataImage img;
  img.add("#Pdb", p.build()).add("#~", t.build()).add("#Strings", Bytes{0, 0, 0, 0});
  img.add("#GUID", guids.b).add("#Blob", blobs.b);
  return img.build();
}

Bytes pdb_with_sourcelink(std::uint32_t docs, const std::string& url_prefix) {
  return pdb_with_json(docs, "{\"documents\":{\"/src/*\":\"" + url_prefix + "*\"}}");
}

TEST(SourceLinkBudget, UrlsAreResolvedAndStored) {
  const Bytes b = pdb_with_sourcelink(3, "https://example.invalid/r/");
  auto pdb = PortablePdb::parse(b);
  ASSERT_TRUE(pdb) << pdb.error().message;
  CacheSource src;
  src.pdb = &*pdb;
  auto bytes = build_cache(src, CacheBuildOptions{});
  ASSERT_TRUE(bytes) << bytes.error().message;
  auto cache = Cache::from_bytes(*bytes);
  ASSERT_TRUE(cache) << cache.error().message;
  ASSERT_EQ(cache->document_count(), 3u);
  EXPECT_EQ(cache->document_path(2), "/src/a.cs");
  EXPECT_EQ(cache->document_source_url(2), "https://example.invalid/r/a.cs");
}

TEST(SourceLinkBudget, ExpandingUrlsStopAtTheBudget) {
  // 1,200 documents x a 60,000-byte URL prefix = 72 MB of URLs from a PDB of about 80 KB:
  // over the 64 MiB floor of the budget.
  const Bytes b = pdb_with_sourcelink(1200, "https://example.invalid/" + std::string(60000, 'x') + "/");
  auto pdb = PortablePdb::parse(b);
  ASSERT_TRUE(pdb) << pdb.error().message;
  ASSERT_LT(b.size(), 200000u);
  CacheSource src;
  src.pdb = &*pdb;
  auto bytes = build_cache(src, CacheBuildOptions{});
  ASSERT_FALSE(bytes) << "a 72 MB expansion of URLs must be refused";
  EXPECT_EQ(bytes.error().code, Errc::kTooLarge);
  EXPECT_NE(bytes.error().message.find("SourceLink"), std::string::npos) << bytes.error().message;
}

TEST(SourceLinkBudget, JustUnderTheBudgetStillCompiles) {
  // 1,000 documents x ~60 KB = 60 MB: below the 64 MiB floor, so it compiles.
  const Bytes b = pdb_with_sourcelink(1000, "https://example.invalid/" + std::string(60000, 'x') + "/");
  auto pdb = PortablePdb::parse(b);
  ASSERT_TRUE(pdb) << pdb.error().message;
  CacheSource src;
  src.pdb = &*pdb;
  auto bytes = build_cache(src, CacheBuildOptions{});
  ASSERT_TRUE(bytes) << bytes.error().message;
}

// The SourceLink tooling reads its JSON with trailing commas allowed; comments are skipped
// too. Commas and comment markers inside strings are data.
TEST(SourceLinkParse, TrailingCommasAndCommentsAreAccepted) {
  auto m = SourceLinkMap::parse(
      "{ // generated\n \"documents\": { \"/src/*\": \"https://h.invalid/a,]/*\", /* x, } */ },\n"
      " \"other\": [1, 2,], }");
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ(m->entries().size(), 1u);
  EXPECT_EQ(m->entries()[0].url, "https://h.invalid/a,]/");
  EXPECT_EQ(m->map("/src/x/y.cs"), "https://h.invalid/a,]/x/y.cs");
  auto slashes = SourceLinkMap::parse("{\"documents\":{\"C:\\\\src\\\\*\":\"https://h.invalid/// not a comment/*\",}}");
  ASSERT_TRUE(slashes) << slashes.error().message;
  EXPECT_EQ(slashes->map("C:\\src\\p.cs"), "https://h.invalid/// not a comment/p.cs");
}

TEST(SourceLinkParse, WhatIsStillNotJsonIsRefused) {
  for (const char* bad : {"{\"documents\":{,}}", "{\"documents\":{\"/a/*\":\"u/*\",,}}", "[1,]", "{\"documents\":{\"/a/*\" \"u/*\"}}"})
    EXPECT_FALSE(SourceLinkMap::parse(bad)) << bad;
}

TEST(SourceLinkBudget, UnreadableSourceLinkCostsOnlyTheUrls) {
  for (const char* json : {"{\"documents\":{\"/src/*\":\"u/*\"}]", "{\"documents\":{\"/src/a*b\":\"u\"}}"}) {
    const Bytes b = pdb_with_json(3, json);
    auto pdb = PortablePdb::parse(b);
    ASSERT_TRUE(pdb) << pdb.error().message;
    CacheSource src;
    src.pdb = &*pdb;
    CacheStats stats;
    auto bytes = build_cache(src, CacheBuildOptions{}, &stats);
    ASSERT_TRUE(bytes) << json << ": " << bytes.error().message;
    auto cache = Cache::from_bytes(*bytes);
    ASSERT_TRUE(cache) << cache.error().message;
    EXPECT_EQ(cache->document_count(), 3u);
    EXPECT_EQ(cache->document_source_url(0), "");
    ASSERT_EQ(stats.warnings.size(), 1u) << json;
    EXPECT_NE(stats.warnings[0].find("SourceLink"), std::string::npos) << stats.warnings[0];
  }
}

}  // namespace
}  // namespace ilmap::test
