// SourceProviderTest.cpp - what symbolicate/SourceProvider.h promises without a cache: source
// lines split as the compilers count them (so a frame's line number picks the right text), and
// --source-root specs read strictly.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "symbolicate/SourceProvider.h"

namespace ilmap {
namespace {

std::vector<std::string> lines_of(std::string text) {
  const SourceLines s = SourceLines::split(std::move(text));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.count(); ++i) out.emplace_back(s.line(i));
  return out;
}

TEST(SourceLines, LfCrLfAndCrEachEndOneLine) {
  EXPECT_EQ(lines_of("a\r\nb\rc\nd"), (std::vector<std::string>{"a", "b", "c", "d"}));
  // CR then LF is one line end; LF then CR are two.
  EXPECT_EQ(lines_of("a\n\rb"), (std::vector<std::string>{"a", "", "b"}));
}

TEST(SourceLines, FinalLineEndAddsNoLineAndEmptyLinesCount) {
  EXPECT_EQ(lines_of("a\n"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(lines_of("a\n\n"), (std::vector<std::string>{"a", ""}));
  EXPECT_EQ(lines_of("\n"), (std::vector<std::string>{""}));
  EXPECT_TRUE(lines_of("").empty());
}

TEST(SourceLines, Utf8ByteOrderMarkIsNotText) {
  EXPECT_EQ(lines_of("\xEF\xBB\xBFusing System;\nx"), (std::vector<std::string>{"using System;", "x"}));
  // Only at the start.
  EXPECT_EQ(lines_of("a\n\xEF\xBB\xBF"), (std::vector<std::string>{"a", "\xEF\xBB\xBF"}));
}

class SourceRootSpec : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ilmap-source-root-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "real=dir");
    std::filesystem::create_directory_symlink(dir_ / "real=dir", dir_ / "link");
    std::ofstream(dir_ / "file.txt") << "x";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(SourceRootSpec, PrefixUpToTheFirstEqualsAndTheDirectoryResolved) {
  auto r = parse_source_root("/_/=" + (dir_ / "link").string());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->prefix, "/_/");
  EXPECT_EQ(r->dir, std::filesystem::canonical(dir_ / "real=dir").string());
  auto eq = parse_source_root("C:\\src=" + (dir_ / "real=dir").string());
  ASSERT_TRUE(eq) << eq.error().message;
  EXPECT_EQ(eq->prefix, "C:\\src");
}

TEST_F(SourceRootSpec, WhatIsNotPrefixEqualsDirectoryIsAUsageError) {
  for (const std::string& spec : {std::string("nodir"), std::string("=") + dir_.string(), std::string("/_/="),
                                  "/_/=" + (dir_ / "missing").string(), "/_/=" + (dir_ / "file.txt").string()}) {
    auto r = parse_source_root(spec);
    ASSERT_FALSE(r) << spec;
    EXPECT_EQ(r.error().code, Errc::kUsage) << spec;
    EXPECT_NE(r.error().message.find(spec), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace ilmap
