// ModuleIndexTest.cpp - the ModuleIndex (symbols/) below the CLI: the search set is walked once
// per kind of query (by name: never, the listing is indexed; by id or MVID: once, building an
// index), not once per distinct module a trace names; debug ids are parsed strictly; indexes
// sharing a compiled-cache count (a service's workers) look again for what another compiled.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

#include "decode/PortablePdb.h"
#include "decode/SymstoreKeys.h"
#include "support/FileBytes.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/ModuleIndex.h"

namespace ilmap::symbols {
namespace {

namespace fs = std::filesystem;

class ModuleIndexTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ilmap-module-index.XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // `n` files of each kind, not real PEs, PDBs or caches (unreadable when loaded).
  void make_files(int n) {
    fs::create_directories(dir_ + "/set/sub");
    for (int i = 0; i < n; ++i)
      for (const char* ext : {".dll", ".pdb", ".ilmap"}) std::ofstream(dir_ + "/set/sub/m" + std::to_string(i) + ext) << "x";
  }
  std::unique_ptr<ModuleIndex> open_index() {
    ModuleIndexOptions o;
    o.search = {dir_ + "/set"};
    o.cache_dir = dir_ + "/cache";
    auto index = ModuleIndex::create(std::move(o));
    EXPECT_TRUE(index) << index.error().message;
    return index ? std::move(*index) : nullptr;
  }
  std::string dir_;
};

TEST_F(ModuleIndexTest, DistinctModuleNamesAreLookupsNotWalks) {
  make_files(200);
  auto index = open_index();
  ASSERT_TRUE(index);
  EXPECT_EQ(index->stats().files, 600u);
  for (int i = 0; i < 1000; ++i) {
    const ModuleAnswer& a = index->by_file_name("Unknown" + std::to_string(i) + ".dll");
    EXPECT_EQ(a.miss, Miss::kModuleNotFound);
  }
  // A file of the set, by name: found (unreadable), still no walk.
  EXPECT_EQ(index->by_file_name("M7.DLL").miss, Miss::kBadFile);
  EXPECT_EQ(index->stats().scans, 0u);
}

TEST_F(ModuleIndexTest, DistinctIdsAndMvidsWalkTheSetOnce) {
  make_files(200);
  auto index = open_index();
  ASSERT_TRUE(index);
  for (int i = 0; i < 300; ++i) {
    Guid g{};
    g[0] = std::uint8_t(i), g[1] = std::uint8_t(i >> 8), g[15] = 0x5a;
    EXPECT_EQ(index->by_mvid(g).miss, Miss::kModuleNotFound);
    std::string hint = "m";
    hint += std::to_string(i);
    EXPECT_EQ(index->by_codeview(g, 1, hint).miss, Miss::kModuleNotFound);
    std::array<std::uint8_t, 20> id{};
    std::copy(g.begin(), g.end(), id.begin());
    EXPECT_EQ(index->by_pdb_id(id).miss, Miss::kModuleNotFound);
  }
  // One walk builds the id index, one the MVID index.
  EXPECT_EQ(index->stats().scans, 2u);
}

// Two indexes over one cache directory, as a service's workers: B's "not found" for a PDB
// stands for ever (miss_ttl_s -1) until A compiles that PDB's cache; with the shared count B
// then looks again at once and finds it, without it B keeps its answer.
// The id of the PDB at `pdb` (a fatal failure when it does not open or parse).
void pdb_id_of(const std::string& pdb, PdbId& id) {
  auto bytes = FileBytes::open(pdb);
  ASSERT_TRUE(bytes) << bytes.error().message;
  auto parsed = PortablePdb::parse(bytes->bytes());
  ASSERT_TRUE(parsed) << parsed.error().message;
  id = parsed->id();
}

TEST_F(ModuleIndexTest, AnotherIndexCompilingAModuleEndsAMiss) {
  const std::string pdb = std::string(ILMAP_TEST_CORPUS_DIR) + "/out/cs-frames/Ilmap.Corpus.Frames.pdb";
  if (!fs::exists(pdb)) GTEST_SKIP() << "corpus/out not built";
  PdbId id;
  ASSERT_NO_FATAL_FAILURE(pdb_id_of(pdb, id));
  const std::string key = ssqp_portable_pdb_key("Ilmap.Corpus.Frames.pdb", id.guid());  // name/<GUID>FFFFFFFF/name
  for (const bool shared : {false, true}) {
    SCOPED_TRACE(shared ? "shared count" : "no shared count");
    const std::string root = dir_ + (shared ? "/shared" : "/alone");
    const std::string store = root + "/store";
    fs::create_directories(store);
    auto epoch = shared ? std::make_shared<std::atomic<std::uint64_t>>(0) : nullptr;
    auto locks = std::make_shared<KeyedLocks>();
    auto make = [&] {
      ModuleIndexOptions o;
      o.cache_dir = root + "/cache";
      o.symbol_path = *parse_symbol_path(store);
      o.single_flight = locks;
      o.compiled_epoch = epoch;
      auto index = ModuleIndex::create(std::move(o));
      EXPECT_TRUE(index) << index.error().message;
      return index ? std::move(*index) : nullptr;
    };
    auto a = make(), b = make();
    ASSERT_TRUE(a && b);
    EXPECT_EQ(b->by_pdb_id(id.bytes, "Ilmap.Corpus.Frames.pdb").miss, Miss::kModuleNotFound);
    // The PDB arrives in the store, under its SSQP key.
    fs::create_directories(fs::path(store + "/" + key).parent_path());
    fs::copy_file(pdb, store + "/" + key);
    const ModuleAnswer& found = a->by_pdb_id(id.bytes, "Ilmap.Corpus.Frames.pdb");
    EXPECT_EQ(found.miss, Miss::kNone) << miss_name(found.miss);
    EXPECT_EQ(a->stats().compiled, 1u);
    const ModuleAnswer& again = b->by_pdb_id(id.bytes, "Ilmap.Corpus.Frames.pdb");
    if (shared) {
      EXPECT_EQ(again.miss, Miss::kNone) << miss_name(again.miss);
      EXPECT_EQ(b->stats().compiled, 0u);  // the cache A compiled, reused
    } else {
      EXPECT_EQ(again.miss, Miss::kModuleNotFound);
    }
  }
}

// The same when A takes the module's cache from the symbol path (a store that holds the cache
// alone) instead of compiling it: B's miss ends too (serve.scaleout's restart under load, where
// a worker's download left the others answering "not found" for up to --miss-ttl).
TEST_F(ModuleIndexTest, AnotherIndexDownloadingACacheEndsAMiss) {
  const std::string pdb = std::string(ILMAP_TEST_CORPUS_DIR) + "/out/cs-frames/Ilmap.Corpus.Frames.pdb";
  if (!fs::exists(pdb)) GTEST_SKIP() << "corpus/out not built";
  PdbId id;
  ASSERT_NO_FATAL_FAILURE(pdb_id_of(pdb, id));
  const std::string key = ssqp_portable_pdb_key("Ilmap.Corpus.Frames.pdb", id.guid());  // name/<GUID>FFFFFFFF/name
  // The module's cache, compiled by an index over a folder holding the PDB.
  fs::create_directories(dir_ + "/src");
  fs::copy_file(pdb, dir_ + "/src/Ilmap.Corpus.Frames.pdb");
  std::string compiled;
  {
    ModuleIndexOptions o;
    o.search = {dir_ + "/src"};
    o.cache_dir = dir_ + "/made";
    auto maker = ModuleIndex::create(std::move(o));
    ASSERT_TRUE(maker) << maker.error().message;
    const ModuleAnswer& made = (*maker)->by_pdb_id(id.bytes, "Ilmap.Corpus.Frames.pdb");
    ASSERT_EQ(made.miss, Miss::kNone) << made.detail;
    compiled = dir_ + "/made/" + cache_key_for(key);
    ASSERT_TRUE(fs::is_regular_file(compiled)) << compiled;
  }
  for (const bool shared : {false, true}) {
    SCOPED_TRACE(shared ? "shared count" : "no shared count");
    const std::string root = dir_ + (shared ? "/shared" : "/alone");
    const std::string store = root + "/store";
    fs::create_directories(store);
    auto epoch = shared ? std::make_shared<std::atomic<std::uint64_t>>(0) : nullptr;
    auto locks = std::make_shared<KeyedLocks>();
    auto make = [&](const char* cache) {
      ModuleIndexOptions o;
      o.cache_dir = root + "/" + cache;
      o.symbol_path = *parse_symbol_path(store);
      o.single_flight = locks;
      o.compiled_epoch = epoch;
      auto index = ModuleIndex::create(std::move(o));
      EXPECT_TRUE(index) << index.error().message;
      return index ? std::move(*index) : nullptr;
    };
    auto a = make("cache-a"), b = make("cache-b");
    ASSERT_TRUE(a && b);
    EXPECT_EQ(b->by_pdb_id(id.bytes, "Ilmap.Corpus.Frames.pdb").miss, Miss::kModuleNotFound);
    // The cache arrives in the store, under its key, without the PDB.
    const std::string stored = store + "/" + cache_key_for(key);
    fs::create_directories(fs::path(stored).parent_path());
    fs::copy_file(compiled, stored);
    const ModuleAnswer& found = a->by_pdb_id(id.bytes, "Ilmap.Corpus.Frames.pdb");
    EXPECT_EQ(found.miss, Miss::kNone) << miss_name(found.miss) << ": " << found.detail;
    EXPECT_EQ(a->stats().compiled, 0u);  // taken from the symbol path, not compiled
    const ModuleAnswer& again = b->by_pdb_id(id.bytes, "Ilmap.Corpus.Frames.pdb");
    if (shared) EXPECT_EQ(again.miss, Miss::kNone) << miss_name(again.miss) << ": " << again.detail;
    else EXPECT_EQ(again.miss, Miss::kModuleNotFound);
  }
}

TEST(DebugId, Strict) {
  const std::string g = "6c544a86-3ccb-4fa9-810a-691444a2b613";
  auto p = parse_debug_id(g + "-0000002a");
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->portable);
  EXPECT_EQ(p->tail, 0x2au);
  EXPECT_EQ(p->guid[0], 0x86);  // Data1 little endian on disk
  EXPECT_EQ(p->guid[15], 0x13);
  auto upper = parse_debug_id("6C544A86-3CCB-4FA9-810A-691444A2B613-0000002A");
  ASSERT_TRUE(upper);
  EXPECT_EQ(upper->guid, p->guid);
  auto age = parse_debug_id(g + "-1f");
  ASSERT_TRUE(age);
  EXPECT_FALSE(age->portable);
  EXPECT_EQ(age->tail, 0x1fu);
  // Without dashes, as Sentry and symbolicator accept it: 32 + 8 digits a stamp, 32 + 1-7 an age.
  auto nodash = parse_debug_id("6c544a863ccb4fa9810a691444a2b6130000002A");
  ASSERT_TRUE(nodash);
  EXPECT_TRUE(nodash->portable);
  EXPECT_EQ(nodash->guid, p->guid);
  EXPECT_EQ(nodash->tail, 0x2au);
  auto nodash_age = parse_debug_id("6C544A863CCB4FA9810A691444A2B6131f");
  ASSERT_TRUE(nodash_age);
  EXPECT_FALSE(nodash_age->portable);
  EXPECT_EQ(nodash_age->guid, p->guid);
  EXPECT_EQ(nodash_age->tail, 0x1fu);
  for (const std::string& bad : std::vector<std::string>{"6c544a863ccb4fa9810a691444a2b613", "6c544a863ccb4fa9810a691444a2b613000000001",
                                "6c544a863ccb4fa9810a691444a2b6130000002a-", "6c544a863ccb4fa9810a691444a2b613-0000002a",
                                "6c544a863ccb4fa9810a691444a2b61g0000002a", "6c544a863ccb4fa9810a691444a2b613+000002a",
                                "{6c544a863ccb4fa9810a691444a2b613}0002a"})
    EXPECT_FALSE(parse_debug_id(bad)) << bad;
  for (const std::string& bad : std::vector<std::string>{g + "--000001", g + "-+0000001", g + "- 0000001", g + "-0x000001", g + "-",
                                g + "-0000002a-", g + "-0000000001", "{" + g + "}-0000002a",
                                "6c544a863-ccb-4fa9-810a-691444a2b613-0000002a", "6c544a86-3ccb-4fa9-810a-691444a2b61g-0000002a",
                                "6c544a86+3ccb-4fa9-810a-691444a2b613-0000002a", std::string()})
    EXPECT_FALSE(parse_debug_id(bad)) << bad;
}

TEST_F(ModuleIndexTest, MalformedDebugIdIsNotAModule) {
  make_files(1);
  auto index = open_index();
  ASSERT_TRUE(index);
  const ModuleAnswer& a = index->by_debug_id("6c544a86-3ccb-4fa9-810a-691444a2b613--000001");
  EXPECT_EQ(a.miss, Miss::kModuleNotFound);
  EXPECT_EQ(a.detail, "not a debug id");
}

}  // namespace
}  // namespace ilmap::symbols
