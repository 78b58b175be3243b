// PackedSectionsTest.cpp - format 2.0 stores the document strings, the details section and the
// line index as zstd frames (SPEC.md 3.7, 3.8) when that is smaller: paths, URLs, details and
// source-line bindings read back exactly as the PDB gives them, concurrent first queries unpack
// once and agree, and a frame that does not unpack gives no answer or an error naming it (never
// a crash or garbage) and fails verify. (Packed method names: NamesTest.)
#include <gtest/gtest.h>
#include <xxhash.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "compiler/CacheBuilder.h"
#include "CacheTestSupport.h"
#include "decode/PortablePdb.h"
#include "decode/SourceLink.h"
#include "ilmap/cache.h"
#include "reader/RawCache.h"
#include "ilmap/ilmap.h"
#include "format/ilmap_format.h"
#include "ilmap_generated.h"

namespace ilmap::test {
namespace {

namespace d = ilmap::disk;
using Bytes = std::vector<std::uint8_t>;

// The cs-sourcelink corpus PDB: documents with SourceLink URLs.
const std::string kPdb = std::string(ILMAP_TEST_CORPUS_DIR) + "/out/cs-sourcelink/Ilmap.Corpus.Shapes.pdb";

BuiltFromPdb build() { return build_from_pdb_file(kPdb); }

// Eight threads make their first query of a fresh Cache at once, in 20 rounds (the first query
// unpacks a section): every thread's answer, as text, is `want`.
template <class Query>
void expect_first_queries_agree(const Bytes& cache_bytes, const std::string& want, Query query) {
  for (int round = 0; round < 20; ++round) {
    auto cache = Cache::from_bytes(cache_bytes);
    ASSERT_TRUE(cache);
    std::vector<std::string> seen(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) threads.emplace_back([&, t] { seen[t] = query(*cache, t); });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(seen[t], want) << "round " << round << ", thread " << t;
  }
}

TEST(PackedSections, PathsUrlsAndDetailsReadBackExactly) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const BuiltFromPdb b = build();
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
  auto details = raw_details(*cache);
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
  const BuiltFromPdb b = build();
  expect_first_queries_agree(b.cache, "/_/Shapes/Polygon.cs|https://example.invalid/ilmap/corpus/Shapes/Polygon.cs",
                             [](const Cache& cache, int) {
                               auto r = cache.lookup(0x06000002u, 0);
                               return r ? std::string(r->file) + "|" + std::string(r->source_url) : std::string();
                             });
}

// The first byte of each frame's magic changed (checksum resealed): the cache opens, lookups
// give no answer, document views are empty, details() and verify fail with kMalformed.
TEST(PackedSections, BrokenFrameGivesNoAnswerAndFailsVerify) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const BuiltFromPdb good = build();
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
      auto details = raw_details(*cache);
      ASSERT_FALSE(details);
      EXPECT_EQ(details.error().code, Errc::kMalformed);
      EXPECT_FALSE(raw_details(*cache));  // and again, from the remembered failure
    }
  }
}

// Format 2.0 packs the line index (LineIndex.index_zstd) when smaller: the Shapes cache's is,
// and its answers are the PDB's own (the naive-scan comparison over every input is
// cache.lines.*; this checks a known line through both APIs).
TEST(PackedSections, LineIndexIsPackedAndAnswers) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const BuiltFromPdb b = build();
  const fb::LineIndex* li = fb::GetCache(b.cache.data() + d::kHeaderSize)->lines();
  ASSERT_NE(li, nullptr);
  ASSERT_NE(li->index_zstd(), nullptr);
  EXPECT_EQ(li->doc_blocks(), nullptr);
  EXPECT_EQ(li->blocks(), nullptr);
  EXPECT_EQ(li->data(), nullptr);
  auto cache = Cache::from_bytes(b.cache);
  ASSERT_TRUE(cache);
  std::vector<LineMatch> out;
  ASSERT_TRUE(cache->lines("Polygon.cs", 1, 0, out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].token, 0x06000001u);
  EXPECT_EQ(out[0].il_offset, 0u);
  EXPECT_EQ(out[0].line, 9u);
  EXPECT_EQ(out[0].column, 9u);
  EXPECT_EQ(out[0].end_column, 61u);
}

// Eight threads make the first source-line queries of a fresh Cache at once (the first one
// unpacks the index): all get the same bindings.
TEST(PackedSections, ConcurrentFirstLineQueriesAgree) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const BuiltFromPdb b = build();
  expect_first_queries_agree(b.cache, std::to_string(0x06000001u) + ":0:9;", [](const Cache& cache, int t) {
    std::vector<LineMatch> out;
    Status s = cache.lines("Polygon.cs", 1 + t % 2 * 8, 0, out);
    std::string seen = s ? "" : s.message();
    for (const LineMatch& m : out) seen += std::to_string(m.token) + ":" + std::to_string(m.il_offset) + ":" + std::to_string(m.line) + ";";
    return seen;
  });
}

// The packed line index's frame magic broken (checksum resealed): the cache opens and point
// lookups still answer, but source-line queries fail with kMalformed naming the field (Cache
// and C API, every time), and verify fails naming it too.
TEST(PackedSections, BrokenLineIndexFrameFailsQueriesAndVerify) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  BuiltFromPdb good = build();
  const fb::LineIndex* li = fb::GetCache(good.cache.data() + d::kHeaderSize)->lines();
  ASSERT_NE(li->index_zstd(), nullptr);
  Bytes bytes = good.cache;
  bytes[static_cast<std::size_t>(li->index_zstd()->data() - good.cache.data())] ^= 0xFF;
  const std::uint64_t sum = XXH3_64bits(bytes.data() + d::kHeaderSize, bytes.size() - d::kHeaderSize);
  std::memcpy(bytes.data() + 24, &sum, 8);
  auto cache = Cache::from_bytes(bytes);
  ASSERT_TRUE(cache) << cache.error().message;
  EXPECT_TRUE(cache->lookup(0x06000001u, 0));
  std::vector<LineMatch> out{LineMatch{}};
  for (int again = 0; again < 2; ++again) {
    Status s = cache->lines("Polygon.cs", 1, 0, out);
    ASSERT_FALSE(s);
    EXPECT_EQ(s.code(), Errc::kMalformed);
    EXPECT_EQ(s.structure(), CacheStructure::kLineIndex) << s.message();  // lines_in names it too
    EXPECT_NE(s.message().find("index_zstd"), std::string::npos) << s.message();
    EXPECT_TRUE(out.empty());
  }
  Status v = cache->verify();
  ASSERT_FALSE(v);
  EXPECT_EQ(v.code(), Errc::kMalformed);
  EXPECT_EQ(v.structure(), CacheStructure::kLineIndex) << v.message();
  EXPECT_NE(v.message().find("index_zstd"), std::string::npos) << v.message();
  int err = 0;
  char msg[256];
  ilmap_cache* c = ilmap_open_bytes(bytes.data(), bytes.size(), &err, msg, sizeof msg);
  ASSERT_NE(c, nullptr) << msg;
  ilmap_line_match m[4];
  std::size_t count = 9;
  EXPECT_EQ(ilmap_lines(c, "Polygon.cs", 10, 1, 0, m, 4, &count, msg, sizeof msg), ILMAP_E_MALFORMED);
  EXPECT_EQ(count, 0u);
  EXPECT_NE(std::string(msg).find("index_zstd"), std::string::npos) << msg;
  ilmap_close(c);
}

// Replaces a packed field's frame in place with one of `content` (a FlatBuffers vector may get
// shorter: its length prefix shrinks, the bytes after it become unused), then reseals.
Bytes with_frame(const Bytes& cache, const flatbuffers::Vector<std::uint8_t>* field, const Bytes& content) {
  Bytes z(ZSTD_compressBound(content.size()));
  z.resize(ZSTD_compress(z.data(), z.size(), content.data(), content.size(), 19));  // small enough to fit
  EXPECT_LE(z.size(), field->size());
  Bytes b = cache;
  const std::size_t at = static_cast<std::size_t>(field->data() - cache.data());
  const std::uint32_t n = static_cast<std::uint32_t>(z.size());
  std::memcpy(b.data() + at - 4, &n, 4);
  std::memcpy(b.data() + at, z.data(), z.size());
  const std::uint64_t sum = XXH3_64bits(b.data() + d::kHeaderSize, b.size() - d::kHeaderSize);
  std::memcpy(b.data() + 24, &sum, 8);
  return b;
}

// A frame that unpacks but whose content does not rebuild (SPEC.md 3.7): too short for the
// document entries, a block that does not decode, bytes after the last block. Each fails the
// first query and verify with kMalformed naming the field; an intact rewrite of the same content
// (the control) still answers, so the test can tell the two apart.
TEST(PackedSections, LineIndexContentThatDoesNotRebuild) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const BuiltFromPdb good = build();
  const fb::LineIndex* li = fb::GetCache(good.cache.data() + d::kHeaderSize)->lines();
  ASSERT_NE(li->index_zstd(), nullptr);
  const auto* z = li->index_zstd();
  Bytes content(ZSTD_getFrameContentSize(z->data(), z->size()));
  ASSERT_EQ(ZSTD_decompress(content.data(), content.size(), z->data(), z->size()), content.size());
  auto cache0 = Cache::from_bytes(good.cache);
  ASSERT_TRUE(cache0);
  const std::size_t head = (std::size_t(cache0->document_count()) + 1) * 4;
  std::uint32_t blocks = 0;
  std::memcpy(&blocks, content.data() + head - 4, 4);
  ASSERT_GT(blocks, 0u);
  Bytes bad_count = content;
  bad_count[head + 4 * std::size_t(blocks)] = 0;  // block 0's entry count
  Bytes trailing = content;
  trailing.push_back(0x01);
  const std::vector<std::pair<const char*, Bytes>> cases = {
      {"control", content}, {"short", Bytes(content.begin(), content.begin() + 4)}, {"count", bad_count}, {"trailing", trailing}};
  for (const auto& [name, c] : cases) {
    SCOPED_TRACE(name);
    auto cache = Cache::from_bytes(with_frame(good.cache, z, c));
    ASSERT_TRUE(cache) << cache.error().message;
    std::vector<LineMatch> out;
    Status s = cache->lines("Polygon.cs", 1, 0, out);
    Status v = cache->verify();
    if (std::string(name) == "control") {
      EXPECT_TRUE(s) << s.message();
      EXPECT_EQ(out.size(), 1u);
      EXPECT_TRUE(v) << v.message();
      continue;
    }
    ASSERT_FALSE(s);
    EXPECT_EQ(s.code(), Errc::kMalformed);
    EXPECT_NE(s.message().find("index_zstd"), std::string::npos) << s.message();
    ASSERT_FALSE(v);
    EXPECT_EQ(v.code(), Errc::kMalformed);
    EXPECT_NE(v.message().find("index_zstd"), std::string::npos) << v.message();
  }
}

// `cache` with field `slot` of the table at `table` (a pointer into `cache`) naming a new
// vector of `bytes`, appended at the end of the payload (the old vector stays, unused); the
// header's payload size and checksum updated. Room for any size, unlike a rewrite in place.
Bytes with_vector_appended(const Bytes& cache, const void* table, flatbuffers::voffset_t slot, const Bytes& bytes) {
  const std::size_t t = static_cast<std::size_t>(static_cast<const std::uint8_t*>(table) - cache.data());
  std::int32_t back = 0;
  std::memcpy(&back, cache.data() + t, 4);
  std::uint16_t entry = 0;
  std::memcpy(&entry, cache.data() + (t - static_cast<std::size_t>(static_cast<std::int64_t>(back))) + slot, 2);
  EXPECT_NE(entry, 0);
  Bytes b = cache;
  while ((b.size() - d::kHeaderSize) % 4) b.push_back(0);
  const std::size_t at = b.size(), field = t + entry;
  const std::uint32_t length = static_cast<std::uint32_t>(bytes.size()), to = static_cast<std::uint32_t>(at - field);
  b.resize(at + 4);
  std::memcpy(b.data() + at, &length, 4);
  b.insert(b.end(), bytes.begin(), bytes.end());
  std::memcpy(b.data() + field, &to, 4);
  const std::uint64_t payload = b.size() - d::kHeaderSize, sum = XXH3_64bits(b.data() + d::kHeaderSize, payload);
  std::memcpy(b.data() + 16, &payload, 8);
  std::memcpy(b.data() + 24, &sum, 8);
  return b;
}

// Bytes after the one zstd frame of a packed section (SPEC.md 3.8): a skippable frame (which
// zstd's decoder skips) or a second, empty frame (which it decodes too). Both are refused: the
// document strings give no answer and fail verify naming the field, the line index fails its
// queries. The writer's frame alone, moved the same way (the control), answers.
TEST(PackedSections, BytesAfterTheFrameAreRefused) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const BuiltFromPdb good = build();
  const fb::Cache* root = fb::GetCache(good.cache.data() + d::kHeaderSize);
  const Bytes skippable = {0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0};  // magic 0x184D2A50, no content
  Bytes empty(ZSTD_compressBound(0));
  empty.resize(ZSTD_compress(empty.data(), empty.size(), nullptr, 0, 1));
  for (const bool strings : {true, false}) {
    const auto* field = strings ? root->strings_zstd() : root->lines()->index_zstd();
    ASSERT_NE(field, nullptr);
    const void* table = strings ? static_cast<const void*>(root) : root->lines();
    const flatbuffers::voffset_t slot = strings ? flatbuffers::voffset_t(fb::Cache::VT_STRINGS_ZSTD)
                                                : flatbuffers::voffset_t(fb::LineIndex::VT_INDEX_ZSTD);
    const Bytes frame(field->data(), field->data() + field->size());  // the writer's own
    for (const Bytes* after : {static_cast<const Bytes*>(nullptr), &skippable, static_cast<const Bytes*>(&empty)}) {
      SCOPED_TRACE(std::string(strings ? "strings_zstd" : "index_zstd") + (after ? after == &empty ? " + empty frame" : " + skippable frame" : " alone"));
      Bytes z = frame;
      if (after) z.insert(z.end(), after->begin(), after->end());
      auto cache = Cache::from_bytes(with_vector_appended(good.cache, table, slot, z));
      ASSERT_TRUE(cache) << cache.error().message;
      std::vector<LineMatch> out;
      const Status lines = cache->lines("Polygon.cs", 1, 0, out);
      const Status v = cache->verify();
      const bool answered = strings ? cache->lookup(0x06000002u, 0).has_value() : lines.ok();
      if (!after) {
        EXPECT_TRUE(answered);
        EXPECT_TRUE(v) << v.message();
        continue;
      }
      EXPECT_FALSE(answered);
      ASSERT_FALSE(v);
      EXPECT_EQ(v.code(), Errc::kMalformed);
      EXPECT_EQ(v.structure(), strings ? CacheStructure::kStrings : CacheStructure::kLineIndex) << v.message();
      EXPECT_NE(v.message().find(strings ? "strings_zstd" : "index_zstd"), std::string::npos) << v.message();
      EXPECT_NE(v.message().find("after its zstd frame"), std::string::npos) << v.message();
      if (strings) {
        EXPECT_EQ(cache->document_strings_status().code(), Errc::kMalformed);
        EXPECT_TRUE(cache->document_path(0).empty());
      }
    }
  }
}

// A section stored both as is and packed (SPEC.md 3.8, open step 15), made by pointing the
// plain field at the packed field's bytes: open refuses the cache with kMalformed naming the
// two fields (the reader used to take the plain one and ignore the other). Names: NamesTest.
TEST(PackedSections, BothFormsAreRefusedAtOpen) {
  if (!std::filesystem::exists(kPdb)) GTEST_SKIP() << "corpus/out not built";
  const BuiltFromPdb good = build();
  ASSERT_TRUE(Cache::from_bytes(good.cache));
  const fb::Cache* root = fb::GetCache(good.cache.data() + d::kHeaderSize);
  struct Case {
    const char* fields;
    const void* table;
    flatbuffers::voffset_t plain, packed;
  };
  const Case cases[] = {
      {"strings and strings_zstd", root, fb::Cache::VT_STRINGS, fb::Cache::VT_STRINGS_ZSTD},
      {"details and details_zstd", root, fb::Cache::VT_DETAILS, fb::Cache::VT_DETAILS_ZSTD},
      {"lines: index_zstd and doc_blocks, blocks or data", root->lines(), fb::LineIndex::VT_DATA, fb::LineIndex::VT_INDEX_ZSTD},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fields);
    const Bytes b = with_field_alias(good.cache, c.table, c.plain, c.packed);
    ASSERT_FALSE(b.empty());
    auto cache = Cache::from_bytes(b);
    if (cache) {
      ADD_FAILURE() << "the cache opens";
      continue;
    }
    EXPECT_EQ(cache.error().code, Errc::kMalformed);
    EXPECT_NE(cache.error().message.find(c.fields), std::string::npos) << cache.error().message;
  }
}

}  // namespace
}  // namespace ilmap::test
