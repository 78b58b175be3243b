// SymbolPathTest.cpp - _NT_SYMBOL_PATH as Windows debuggers write it (drive letters, backslashes,
// UNC shares, SRV* in any case, symsrv*DLL*, cache* and its reset) and the default cache folder
// of both conventions (XDG on Linux, %LOCALAPPDATA% on Windows), checked here on Linux.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "symbols/SymbolPath.h"

namespace ilmap::symbols {
namespace {

using Caches = std::vector<std::string>;

TEST(SymbolPathWindows, DriveLettersBackslashesAndUncKeptAsWritten) {
  auto p = parse_symbol_path(
      R"(srv*C:\symbols*https://msdl.microsoft.com/download/symbols;SRV*Z:\tmp\a b\cache*\\server\symbols;)"
      R"(D:\local\store;\\build01\drops\symbols)");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->size(), 4u);
  EXPECT_EQ((*p)[0].kind, SymbolPathEntry::Kind::kServer);
  EXPECT_EQ((*p)[0].location, "https://msdl.microsoft.com/download/symbols");
  EXPECT_EQ((*p)[0].caches, Caches{R"(C:\symbols)"});
  // A UNC share as the server: a directory store, its cache a path with a space.
  EXPECT_EQ((*p)[1].kind, SymbolPathEntry::Kind::kServer);
  EXPECT_EQ((*p)[1].location, R"(\\server\symbols)");
  EXPECT_FALSE((*p)[1].remote());
  EXPECT_EQ((*p)[1].caches, Caches{R"(Z:\tmp\a b\cache)"});
  EXPECT_EQ((*p)[2].kind, SymbolPathEntry::Kind::kDirectory);
  EXPECT_EQ((*p)[2].location, R"(D:\local\store)");
  EXPECT_EQ((*p)[3].location, R"(\\build01\drops\symbols)");
}

TEST(SymbolPathWindows, PrefixesInAnyCase) {
  for (const char* spec : {"srv*C:\\c*http://h/s", "SRV*C:\\c*http://h/s", "Srv*C:\\c*http://h/s",
                           "sRv*C:\\c*http://h/s/", "SYMSRV*symsrv.dll*C:\\c*http://h/s",
                           "CACHE*C:\\c;srv*http://h/s", "Cache*C:\\c;SRV*http://h/s"}) {
    auto p = parse_symbol_path(spec);
    ASSERT_TRUE(p.ok()) << spec << ": " << p.error().message;
    ASSERT_EQ(p->size(), 1u) << spec;
    EXPECT_EQ((*p)[0].location, "http://h/s") << spec;
    EXPECT_EQ((*p)[0].caches, Caches{"C:\\c"}) << spec;
  }
}

TEST(SymbolPathWindows, SymsrvDllFormIsSrv) {
  auto p = parse_symbol_path(R"(symsrv*symsrv.dll*C:\a*D:\b*https://h/s)");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ((*p)[0].location, "https://h/s");
  EXPECT_EQ((*p)[0].caches, (Caches{R"(C:\a)", R"(D:\b)"}));
  auto bad = parse_symbol_path("symsrv*symsrv.dll");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::kUsage);
  EXPECT_NE(bad.error().message.find("symsrv*symsrv.dll"), std::string::npos) << bad.error().message;
}

TEST(SymbolPathWindows, CacheEntryAppliesOnwardAndCacheAloneResets) {
  // srv**URL: an empty cache element, the default cache (ModuleResolver's) as debuggers read it.
  auto p = parse_symbol_path(R"(srv**http://a;cache*C:\c;srv*http://b;srv*E:\own*http://c;cache*;srv*http://d)");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->size(), 4u);
  EXPECT_TRUE((*p)[0].caches.empty());
  EXPECT_EQ((*p)[1].caches, Caches{R"(C:\c)"});
  EXPECT_EQ((*p)[2].caches, Caches{R"(E:\own)"});
  EXPECT_TRUE((*p)[3].caches.empty());
  // Still refused: a cache that is a URL, a scheme other than http(s)/s3, a server without srv*.
  for (const char* bad : {R"(srv*http://x*http://h)", R"(srv*C:\c*ftp://h)", "https://h/s", "cache*"}) {
    auto r = parse_symbol_path(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, Errc::kUsage) << bad;
  }
}

TEST(SymbolPathWindows, DefaultCacheDirectoryOfEachConvention) {
  std::map<std::string, std::string> env;
  auto get = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  env = {{"LOCALAPPDATA", R"(C:\Users\Zoë\AppData\Local)"}, {"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}};
  EXPECT_EQ(default_cache_dir(CacheConvention::kWindows, get), R"(C:\Users\Zoë\AppData\Local\ilmap)");
  EXPECT_EQ(default_cache_dir(CacheConvention::kXdg, get), "/x/ilmap");
  env = {{"HOME", "/h"}, {"USERPROFILE", R"(C:\Users\a)"}};
  EXPECT_EQ(default_cache_dir(CacheConvention::kWindows, get), "");  // HOME and USERPROFILE do not count
  EXPECT_EQ(default_cache_dir(CacheConvention::kXdg, get), "/h/.cache/ilmap");
  env = {{"LOCALAPPDATA", ""}, {"XDG_CACHE_HOME", ""}};
  EXPECT_EQ(default_cache_dir(CacheConvention::kWindows, get), "");
  EXPECT_EQ(default_cache_dir(CacheConvention::kXdg, get), "");
  EXPECT_EQ(kHostCacheConvention, CacheConvention::kXdg);  // these tests run on Linux
}

}  // namespace
}  // namespace ilmap::symbols
