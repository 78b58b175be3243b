// SymbolsTest.cpp - symbols/: SSQP keys (against dotnet/symstore's own expectations), key
// validation, the cache key beside a PDB, and SymbolStore's layouts and put/find rules.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <unistd.h>

#include "decode/Guids.h"
#include "decode/SymstoreKeys.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/ModuleResolver.h"
#include "symbols/StoreIngest.h"
#include "symbols/SymbolPath.h"
#include "symbols/SymbolStore.h"

namespace ilmap::symbols {
namespace {

namespace fs = std::filesystem;

// Expected key strings from dotnet/symstore src/Microsoft.SymbolStore.UnitTests/KeyGeneratorTests.cs
// (PEFileKeyGenerator, PDBFileKeyGenerator, PortablePDBFileKeyGenerator, MinidumpKeyGenerator
// cases); the field values are those the keys encode. Their test files are not copied here.
TEST(SymbolsKeys, MatchSymstoreKeyGeneratorTests) {
  EXPECT_EQ(ssqp_pe_key("TestBinaries/HelloWorld.exe", 0x577F5919u, 0x8000u), "helloworld.exe/577F59198000/helloworld.exe");
  EXPECT_EQ(ssqp_pe_key("TestBinaries/System.Diagnostics.StackTrace.dll", 0x595CD91Bu, 0x35a00u),
            "system.diagnostics.stacktrace.dll/595CD91B35a00/system.diagnostics.stacktrace.dll");
  EXPECT_EQ(ssqp_pe_key("coreclr.dll", 0x595EBCD5u, 0x538000u), "coreclr.dll/595EBCD5538000/coreclr.dll");
  EXPECT_EQ(ssqp_pe_key("exception.exe", 0x57B39FFAu, 0x6000u), "exception.exe/57B39FFA6000/exception.exe");
  EXPECT_EQ(ssqp_windows_pdb_key("TestBinaries/HelloWorld.pdb", guid_from_text("99891b3e-d7ae-4c3b-abff-8a2b4a9b0c43"), 1),
            "helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/helloworld.pdb");
  EXPECT_EQ(ssqp_windows_pdb_key("coreclr.pdb", guid_from_text("3f3d5a32-58e6-4ae8-b86b-31ff77694935"), 1),
            "coreclr.pdb/3f3d5a3258e64ae8b86b31ff776949351/coreclr.pdb");
  EXPECT_EQ(ssqp_portable_pdb_key("TestBinaries/dir1/System.Threading.Thread.pdb",
                                  guid_from_text("a43b3872-6e6a-4b3c-b169-1f35f0d6cc48")),
            "system.threading.thread.pdb/a43b38726e6a4b3cb1691f35f0d6cc48FFFFFFFF/system.threading.thread.pdb");
  EXPECT_EQ(ssqp_portable_pdb_key("system.diagnostics.stacktrace.pdb", guid_from_text("8b2e8cf4-4314-4806-982a-b7d904876a50")),
            "system.diagnostics.stacktrace.pdb/8b2e8cf443144806982ab7d904876a50FFFFFFFF/system.diagnostics.stacktrace.pdb");
}

TEST(SymbolsKeys, PdbsWantedByPe) {
  PeInfo pe;
  CodeViewEntry portable;
  portable.minor = pe::kPortableCodeViewMinor;
  portable.guid = guid_from_text("a43b3872-6e6a-4b3c-b169-1f35f0d6cc48");
  portable.stamp = 0x11223344;
  portable.path = "C:\\build\\obj\\Foo.pdb";
  CodeViewEntry windows;
  windows.guid = guid_from_text("99891b3e-d7ae-4c3b-abff-8a2b4a9b0c43");
  windows.age = 0x1a;
  windows.path = "/x/Foo.ni.pdb";
  pe.codeview = {portable, windows, portable};  // the duplicate is listed once
  pe.checksums.push_back({"SHA256", std::vector<std::uint8_t>(32, 0xab)});
  const auto w = pdbs_wanted_by(pe);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].kind, ModuleKind::kPortablePdb);
  EXPECT_EQ(w[0].key, "foo.pdb/a43b38726e6a4b3cb1691f35f0d6cc48FFFFFFFF/foo.pdb");
  ASSERT_TRUE(w[0].pdb_id.has_value());
  EXPECT_EQ((*w[0].pdb_id)[16], 0x44);
  EXPECT_EQ((*w[0].pdb_id)[19], 0x11);
  std::string hex;
  for (int i = 0; i < 32; ++i) hex += "ab";
  EXPECT_EQ(w[0].symbol_checksum, "SHA256:" + hex);
  EXPECT_EQ(w[1].kind, ModuleKind::kWindowsPdb);
  EXPECT_EQ(w[1].key, "foo.ni.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431a/foo.ni.pdb");
  EXPECT_TRUE(w[1].symbol_checksum.empty());
}

TEST(SymbolsKeys, Validation) {
  EXPECT_TRUE(validate_key("foo.pdb/abcFFFFFFFF/foo.pdb").ok());
  EXPECT_TRUE(validate_key("foo.pdb/abc/foo.ilmap").ok());
  for (const char* bad : {"", "foo.pdb", "foo.pdb/abc", "foo.pdb/abc/foo.pdb/x", "/abc/foo.pdb", "foo.pdb//foo.pdb",
                          "foo.pdb/abc/", "../abc/foo.pdb", "foo.pdb/../foo.pdb", "foo.pdb/./foo.pdb",
                          "foo.pdb/a\\b/foo.pdb", "foo.pdb/a\nb/foo.pdb"}) {
    const Status s = validate_key(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.code(), Errc::kUsage) << bad;
  }
  EXPECT_FALSE(validate_key(std::string(1025, 'a')).ok());
  EXPECT_FALSE(validate_key(std::string_view("a/b\0c/d", 7)).ok());
}

// A .pdz's key: four components, the third its container kind (dotnet/diagnostics' "msfz0").
TEST(SymbolsKeys, ContainerKindKeys) {
  EXPECT_TRUE(validate_key("helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/msfz0/helloworld.pdb").ok());
  EXPECT_TRUE(validate_key("foo.pdb/abc/MSFZ12/foo.pdb").ok());
  for (const char* bad : {"foo.pdb/abc/msfz/foo.pdb", "foo.pdb/abc/msfzx/foo.pdb", "foo.pdb/abc/pdb/foo.pdb",
                          "foo.pdb/abc/msfz00000/foo.pdb", "foo.pdb/msfz0/abc/foo.pdb", "a/b/msfz0/c/d",
                          "foo.pdb/abc/msfz0/", "foo.pdb/abc/msfz0/.."}) {
    const Status s = validate_key(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.code(), Errc::kUsage) << bad;
  }
  EXPECT_EQ(stored_kind("foo.pdb/abc/msfz0/foo.pdb"), StoredKind::kFile);
  EXPECT_EQ(stored_kind("foo.pdb/abc/msfz0/foo.ilmap"), StoredKind::kOther);  // no cache kept there
  EXPECT_EQ(stored_kind("foo.pdb/abc/other/foo.pdb"), StoredKind::kOther);
}

// The second key a Windows PDB is asked under (ModuleResolver.h): the .pdz's, as dotnet/diagnostics
// keys HelloWorld.pdz; none for a Portable PDB, a PE, or a key that already names a container.
TEST(SymbolsKeys, MsfzKeyOfAWantedWindowsPdb) {
  ModuleIdentity w;
  w.kind = ModuleKind::kWindowsPdb;
  w.file_name = "helloworld.pdb";
  w.key = "helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/helloworld.pdb";
  EXPECT_EQ(msfz_key_for(w), "helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/msfz0/helloworld.pdb");
  EXPECT_TRUE(validate_key(*msfz_key_for(w)).ok());
  ModuleIdentity z = w;
  z.key = *msfz_key_for(w);
  EXPECT_EQ(msfz_key_for(z), std::nullopt);
  ModuleIdentity p = w;
  p.kind = ModuleKind::kPortablePdb;
  p.key = "foo.pdb/abcFFFFFFFF/foo.pdb";
  EXPECT_EQ(msfz_key_for(p), std::nullopt);
  p.kind = ModuleKind::kPe;
  EXPECT_EQ(msfz_key_for(p), std::nullopt);
}

TEST(SymbolsKeys, CacheKeyAndCase) {
  EXPECT_EQ(cache_key_for("foo.pdb/abcFFFFFFFF/foo.pdb"), "foo.pdb/abcFFFFFFFF/foo.ilmap");
  EXPECT_EQ(cache_key_for("a.b.pdb/1/a.b.pdb"), "a.b.pdb/1/a.b.ilmap");
  EXPECT_TRUE(key_equal("Foo.PDB/ABCffffffff/foo.pdb", "foo.pdb/abcFFFFFFFF/FOO.pdb"));
  EXPECT_FALSE(key_equal("foo.pdb/abc/foo.pdb", "foo.pdb/abd/foo.pdb"));
}

class SymbolStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ilmap-store-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SymbolStoreTest, PutFindSameAndDifferent) {
  const fs::path root = dir_ / "store";
  SymbolStore store(root.string());
  const std::vector<std::uint8_t> a{1, 2, 3}, b{1, 2, 4};
  auto r = store.put("foo.pdb/abcFFFFFFFF/foo.pdb", a);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, PutOutcome::kAdded);
  EXPECT_TRUE(fs::is_regular_file(root / "foo.pdb/abcFFFFFFFF/foo.pdb"));
  r = store.put("foo.pdb/abcFFFFFFFF/foo.pdb", a);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, PutOutcome::kAlreadyPresent);
  r = store.put("FOO.pdb/ABCffffffff/foo.pdb", b);  // the same key in other case
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kMismatch);
  r = store.put("foo.pdb/abcFFFFFFFF/foo.pdb", b, [](const std::string&) { return true; });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, PutOutcome::kReplaced);
  auto f = store.find("FOO.PDB/abcffffffff/Foo.pdb");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(fs::path(*f), root / "foo.pdb/abcFFFFFFFF/foo.pdb");
  EXPECT_EQ(store.find("foo.pdb/abd/foo.pdb").error().code, Errc::kNotFound);
  EXPECT_EQ(store.find("../x/y").error().code, Errc::kUsage);
  EXPECT_EQ(store.put("foo.pdb/../../x", a).error().code, Errc::kUsage);
  EXPECT_FALSE(fs::exists(dir_ / "x"));
  // No temporaries left behind.
  for (const auto& e : fs::recursive_directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

TEST_F(SymbolStoreTest, TwoTierLayout) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "index2.txt").put('\n');
  SymbolStore store(dir_.string());
  EXPECT_TRUE(store.two_tier());
  EXPECT_EQ(store.relative_path("crash.pdb/1/crash.pdb"), "cr/crash.pdb/1/crash.pdb");
  EXPECT_EQ(store.relative_path("a.pdb/1/a.pdb"), "a/a.pdb/1/a.pdb");
  ASSERT_TRUE(store.put("crash.pdb/1/crash.pdb", std::vector<std::uint8_t>{7}).ok());
  EXPECT_TRUE(fs::is_regular_file(dir_ / "cr/crash.pdb/1/crash.pdb"));
  EXPECT_TRUE(store.find("crash.pdb/1/crash.pdb").ok());
  SymbolStore one(dir_.string() + "/cr");  // the same tree read as one tier
  EXPECT_FALSE(one.two_tier());
  EXPECT_TRUE(one.find("crash.pdb/1/crash.pdb").ok());
}

}  // namespace
}  // namespace ilmap::symbols

namespace ilmap::symbols {
namespace {

TEST(SymbolsPath, Parse) {
  auto p = parse_symbol_path("srv*C1*C2*https://a.example/s/;srv*http://b.example;cache*D;srv*https://c.example;dir1;;  dir2 ");
  // srv*http://b.example has no cache: it parses (ModuleResolver::create gives it the default).
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->size(), 5u);
  EXPECT_EQ((*p)[0].kind, SymbolPathEntry::Kind::kServer);
  EXPECT_EQ((*p)[0].location, "https://a.example/s");
  EXPECT_EQ((*p)[0].caches, (std::vector<std::string>{"C1", "C2"}));
  EXPECT_TRUE((*p)[1].caches.empty());
  EXPECT_EQ((*p)[2].location, "https://c.example");
  EXPECT_EQ((*p)[2].caches, std::vector<std::string>{"D"});
  EXPECT_EQ((*p)[3].kind, SymbolPathEntry::Kind::kDirectory);
  EXPECT_EQ((*p)[3].location, "dir1");
  EXPECT_EQ((*p)[4].location, "dir2");
  EXPECT_TRUE(parse_symbol_path("SRV*c*http://x").ok());  // the prefix is case-insensitive
  for (const char* bad : {"", ";;", "srv*", "cache*", "srv*c*ftp://x", "https://x"}) {
    auto r = parse_symbol_path(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, Errc::kUsage) << bad;
  }
  EXPECT_TRUE(ModuleResolver::create(*parse_symbol_path("srv*c*http://x"), {}).ok());
}

// A server without a download cache (srv*URL) downloads into the default cache directory's
// symbols/; with neither HOME nor XDG_CACHE_HOME there is none, and the path is refused.
TEST(SymbolsPath, ServerWithoutCacheUsesTheDefault) {
  struct SavedEnv {
    const char* name;
    std::optional<std::string> value;
    explicit SavedEnv(const char* n) : name(n) {
      if (const char* v = std::getenv(n)) value = v;
    }
    ~SavedEnv() { value ? setenv(name, value->c_str(), 1) : unsetenv(name); }
  } home("HOME"), xdg("XDG_CACHE_HOME");
  setenv("XDG_CACHE_HOME", "/nonexistent-xdg", 1);
  EXPECT_EQ(default_cache_dir(), "/nonexistent-xdg/ilmap");
  EXPECT_TRUE(ModuleResolver::create(*parse_symbol_path("srv*http://x"), {}).ok());
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/nonexistent-home", 1);
  EXPECT_EQ(default_cache_dir(), "/nonexistent-home/.cache/ilmap");
  unsetenv("HOME");
  EXPECT_EQ(default_cache_dir(), "");
  auto r = ModuleResolver::create(*parse_symbol_path("srv*http://x"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::kUsage);
  EXPECT_TRUE(ModuleResolver::create(*parse_symbol_path("cache*c;srv*http://x"), {}).ok());
}

TEST(SymbolsPath, UrlEscape) {
  EXPECT_EQ(url_escape_segment("foo.pdb"), "foo.pdb");
  EXPECT_EQ(url_escape_segment("a b#?%/"), "a%20b%23%3F%25%2F");
}

}  // namespace
}  // namespace ilmap::symbols
