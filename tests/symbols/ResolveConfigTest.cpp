// ResolveConfigTest.cpp - the one configuration every front end builds its module index and
// compile options from (symbols/ResolveConfig.h): its defaults are the ones the front ends had
// when each filled ModuleIndexOptions and CompileFileOptions by hand, and what it is given
// reaches both.
#include <stdlib.h>

#include <gtest/gtest.h>
#include <string>

#include "symbols/ResolveConfig.h"
#include "symbols/SymbolPath.h"

namespace ilmap::symbols {
namespace {

TEST(ResolveConfigTest, DefaultsSearchTheCurrentDirectoryIntoTheDefaultCacheDirectory) {
  const ResolveConfig config;
  auto o = config.module_index_options();
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->search, std::vector<std::string>{"."});
  EXPECT_EQ(o->cache_dir, default_cache_dir());
  EXPECT_TRUE(o->symbol_path.empty());
  EXPECT_EQ(o->http.total_timeout_s, HttpOptions{}.total_timeout_s);
  EXPECT_EQ(o->http.counter, nullptr);
  EXPECT_EQ(o->miss_ttl_s, -1);
  EXPECT_FALSE(o->embed_sources);
  EXPECT_FALSE(o->touch_reused);
  EXPECT_EQ(o->single_flight, nullptr);
  EXPECT_EQ(o->compiled_epoch, nullptr);
  EXPECT_FALSE(o->note);
}

TEST(ResolveConfigTest, AnEmptyCacheDirectoryIsNoneNotTheDefault) {
  // The C API's cache_dir "" (caches in memory only) differs from NULL (the default).
  ResolveConfig config;
  config.cache_dir = std::string();
  EXPECT_EQ(config.cache_directory(), "");
  auto o = config.module_index_options();
  ASSERT_TRUE(o);
  EXPECT_EQ(o->cache_dir, "");
  config.cache_dir = "/x/caches";
  EXPECT_EQ(config.module_index_options()->cache_dir, "/x/caches");
}

TEST(ResolveConfigTest, WhatItIsGivenReachesTheModuleIndex) {
  TransferCounter downloads;
  ResolveConfig config;
  config.search = {"a", "b"};
  config.symbol_path = "srv*/tmp/sym*https://example.invalid/symbols;/tmp/store";
  config.download_timeout_s = 7;
  config.downloads = &downloads;
  config.miss_ttl_s = 60;
  config.touch_reused = true;
  config.compile.embed_sources = true;
  int notes = 0;
  config.note = [&notes](const std::string&) { ++notes; };
  auto o = config.module_index_options();
  ASSERT_TRUE(o) << o.error().message;
  EXPECT_EQ(o->search, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(o->symbol_path.size(), 2u);
  EXPECT_EQ(o->symbol_path[0].location, "https://example.invalid/symbols");
  EXPECT_EQ(o->symbol_path[1].location, "/tmp/store");
  EXPECT_EQ(o->http.total_timeout_s, 7);
  EXPECT_EQ(o->http.counter, &downloads);
  EXPECT_EQ(o->miss_ttl_s, 60);
  EXPECT_TRUE(o->touch_reused);
  EXPECT_TRUE(o->embed_sources);
  o->note("x");
  EXPECT_EQ(notes, 1);
}

TEST(ResolveConfigTest, WorkersShareOneSingleFlightAndOneEpoch) {
  ResolveConfig config;
  config.shared_by_workers = true;
  auto o = config.module_index_options();
  ASSERT_TRUE(o);
  ASSERT_NE(o->single_flight, nullptr);
  ASSERT_NE(o->compiled_epoch, nullptr);
  // serve copies these options into every worker's index: the copies share them.
  const ModuleIndexOptions copy = *o;
  EXPECT_EQ(copy.single_flight, o->single_flight);
  EXPECT_EQ(copy.compiled_epoch, o->compiled_epoch);
}

TEST(ResolveConfigTest, ABadSymbolPathIsTheParsersErrorForTheFrontEndToPrefix) {
  ResolveConfig config;
  config.symbol_path = "srv*";
  auto o = config.module_index_options();
  ASSERT_FALSE(o);
  auto parsed = parse_symbol_path("srv*");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(o.error().code, parsed.error().code);
  EXPECT_EQ(o.error().message, parsed.error().message);
}

TEST(ResolveConfigTest, CompileFileOptionsCarryTheCompileSettingsAndTheSymbolPath) {
  ResolveConfig config;
  config.symbol_path = "/tmp/store";
  config.download_timeout_s = 9;
  config.compile.embed_sources = true;
  config.compile.force = true;
  config.compile.fsync = true;
  config.compile.max_decompressed = 4096;
  const CompileFileOptions o = config.compile_file_options();
  EXPECT_TRUE(o.compile.embed_sources);
  EXPECT_TRUE(o.compile.force);
  EXPECT_TRUE(o.compile.fsync);
  EXPECT_EQ(o.compile.max_decompressed, 4096u);
  EXPECT_EQ(o.symbol_path, "/tmp/store");
  EXPECT_EQ(o.download_timeout_s, 9);
  // The input's own fields are the caller's.
  EXPECT_TRUE(o.pdb.empty());
  EXPECT_TRUE(o.pe.empty());
  EXPECT_EQ(o.threads, 1u);
  EXPECT_FALSE(o.from_directory);
  const CompileFileOptions plain = ResolveConfig{}.compile_file_options();
  EXPECT_EQ(plain.compile.max_decompressed, CompileOptions{}.max_decompressed);
  EXPECT_EQ(plain.download_timeout_s, HttpOptions{}.total_timeout_s);
  EXPECT_TRUE(plain.symbol_path.empty());
}

}  // namespace
}  // namespace ilmap::symbols
