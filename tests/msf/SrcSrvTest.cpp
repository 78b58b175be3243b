// SrcSrvTest.cpp - srcsrv stream parsing and target expansion (decode/msf/SrcSrv.h) on
// hand-written streams, and the URLs they give documents in a cache.
#include <gtest/gtest.h>

#include "compiler/CacheBuilder.h"
#include "MsfWriter.h"
#include "ilmap/cache.h"
#include "decode/msf/MsfPdb.h"
#include "decode/msf/SrcSrv.h"

using namespace ilmap;
using namespace ilmap::msf;
using namespace ilmap::msf::test;

namespace {

Bytes text(std::string_view s) { return Bytes(s.begin(), s.end()); }

// An HTTP index as GitHub-style indexers write it (VERSION 2, HTTP_EXTRACT_TARGET).
constexpr std::string_view kHttp =
    "SRCSRV: ini ------------------------------------------------\r\n"
    "VERSION=2\r\n"
    "INDEXVERSION=2\r\n"
    "VERCTRL=http\r\n"
    "SRCSRV: variables ------------------------------------------\r\n"
    "SRCSRVVERCTRL=http\r\n"
    "HTTP_ALIAS=https://raw.example.com/org/repo/0123abcd\r\n"
    "HTTP_EXTRACT_TARGET=%HTTP_ALIAS%/%var2%\r\n"
    "SRCSRVTRG=%http_extract_target%\r\n"
    "SRCSRV: source files ---------------------------------------\r\n"
    "C:\\build\\src\\Lib\\A.cs*src/Lib/A.cs\r\n"
    "C:\\build\\src\\Lib\\B.cs*src/Lib/B.cs\r\n"
    "SRCSRV: end ------------------------------------------------\r\n";

}  // namespace

TEST(SrcSrv, HttpExtractTarget) {
  auto s = SrcSrv::parse(text(kHttp));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->version(), 2u);
  EXPECT_EQ(s->file_count(), 2u);
  EXPECT_EQ(s->url("C:\\build\\src\\Lib\\A.cs"), "https://raw.example.com/org/repo/0123abcd/src/Lib/A.cs");
  // Paths match ignoring ASCII case, as Windows paths.
  EXPECT_EQ(s->url("c:\\BUILD\\src\\lib\\b.cs"), "https://raw.example.com/org/repo/0123abcd/src/Lib/B.cs");
  EXPECT_EQ(s->url("C:\\build\\src\\Lib\\C.cs"), std::nullopt);
}

TEST(SrcSrv, Version1FunctionsAndFields) {
  constexpr std::string_view v1 =
      "SRCSRV: ini ------------------------------------------------\n"
      "VERSION=1\n"
      "SRCSRV: variables ------------------------------------------\n"
      "SERVER=http://src.example.com\n"
      "PICK=SERVER\n"
      "SRCSRVTRG=%fnvar%(%pick%)/%var3%/%fnfile%(%var1%)?p=%fnbksl%(%var2%)\n"
      "SRCSRV: source files ---------------------------------------\n"
      "D:\\a\\b\\File.vb*x/y*rev42\n"
      "SRCSRV: end ------------------------------------------------\n";
  auto s = SrcSrv::parse(text(v1));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->version(), 1u);
  EXPECT_EQ(s->url("D:\\a\\b\\File.vb"), "http://src.example.com/rev42/File.vb?p=x\\y");
}

TEST(SrcSrv, CommandTargetsAreNotUrls) {
  // A TFS index: the target is a local cache path that a tf.exe command fills.
  constexpr std::string_view tfs =
      "SRCSRV: ini ------------------------------------------------\n"
      "VERSION=1\n"
      "SRCSRV: variables ------------------------------------------\n"
      "TFS_EXTRACT_CMD=tf.exe view /version:%var4% /noprompt \"$%var3%\" /output:%SRCSRVTRG%\n"
      "SRCSRVTRG=%targ%\\%var2%\\%fnbksl%(%var3%)\n"
      "SRCSRVCMD=%TFS_EXTRACT_CMD%\n"
      "SRCSRV: source files ---------------------------------------\n"
      "C:\\s\\A.cs*TFS*/Proj/A.cs*12\n"
      "SRCSRV: end ------------------------------------------------\n";
  auto s = SrcSrv::parse(text(tfs));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->url("C:\\s\\A.cs"), std::nullopt);
}

TEST(SrcSrv, BoundedExpansion) {
  // Self-reference and doubling variables end without a URL instead of looping or growing
  // (20 levels of doubling over an undefined variable: 2^20 expansions, past the 65536 cap).
  std::string doubling =
      "SRCSRV: ini ---\nVERSION=2\nSRCSRV: variables ---\nSRCSRVTRG=http://x/%v0%\n";
  for (int i = 0; i < 20; ++i) doubling += "V" + std::to_string(i) + "=%V" + std::to_string(i + 1) + "%%V" + std::to_string(i + 1) + "%\n";
  doubling += "SRCSRV: source files ---\nA.cs*a\nSRCSRV: end ---\n";
  auto s = SrcSrv::parse(text(doubling));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->url("A.cs"), std::nullopt);
  auto loop = SrcSrv::parse(text("SRCSRV: ini ---\nSRCSRV: variables ---\nSRCSRVTRG=http://%A%\nA=%A%x\n"
                                 "SRCSRV: source files ---\nA.cs*a\n"));
  ASSERT_TRUE(loop.ok());
  EXPECT_EQ(loop->url("A.cs"), std::nullopt);
}

TEST(SrcSrv, NotSrcSrvText) {
  EXPECT_EQ(SrcSrv::parse(text("hello\n")).error().code, Errc::kMalformed);
  EXPECT_EQ(SrcSrv::parse(text("")).error().code, Errc::kMalformed);
  EXPECT_EQ(SrcSrv::parse(Bytes{'S', 'R', 'C', 'S', 'R', 'V', ':', ' ', 'i', 'n', 'i', '\n', 0}).error().code,
            Errc::kMalformed);
}

// In a cache: the srcsrv URL of each document, and SourceLink first where both give one.
TEST(SrcSrv, UrlsInCache) {
  Pdb p;
  Module m;
  m.files = {"C:\\build\\src\\Lib\\A.cs", "C:\\build\\src\\Lib\\B.cs", "C:\\other\\C.cs"};
  m.procs = {{0x06000001, 0, 10}};
  Lines l{0, 1, false, 10, {}};
  l.blocks.push_back({0, {{0, 1, 1}}});
  l.blocks.push_back({1, {{2, 2, 2}}});
  l.blocks.push_back({2, {{4, 3, 3}}});
  m.lines = {l};
  p.modules.push_back(m);
  const std::string sl = R"({"documents": {"C:\\build\\src\\Lib\\B*": "https://sourcelink.example/B*"}})";
  p.named = {{"srcsrv", text(kHttp)}, {"sourcelink", Bytes(sl.begin(), sl.end())}};
  const Bytes b = write_pdb(p);
  auto pdb = MsfPdb::parse(b);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  CacheSource src;
  src.msf = &*pdb;
  src.source_name = "Lib.pdb";
  auto bytes = build_cache(src, CacheBuildOptions{});
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  auto cache = Cache::from_bytes(bytes->span());
  ASSERT_TRUE(cache.ok()) << cache.error().message;
  ASSERT_EQ(cache->document_count(), 3u);
  EXPECT_EQ(cache->document_source_url(0), "https://raw.example.com/org/repo/0123abcd/src/Lib/A.cs");
  EXPECT_EQ(cache->document_source_url(1), "https://sourcelink.example/B.cs");
  EXPECT_EQ(cache->document_source_url(2), "");
  auto hit = cache->lookup(0x06000001, 0);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->source_url, "https://raw.example.com/org/repo/0123abcd/src/Lib/A.cs");
}
