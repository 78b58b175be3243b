// ParallelTest.cpp - encoding the point blocks with worker threads must give the same bytes as
// encoding them on one thread, for every corpus and shared input (the thresholds that keep small
// PDBs on one thread are lowered to zero here, so every input with 2+ methods is split).
#include <gtest/gtest.h>

#include "CacheTestSupport.h"
#include "TestCases.h"

namespace ilmap::test {
namespace {

class ParallelEncode : public ::testing::TestWithParam<Case> {};

TEST_P(ParallelEncode, SameBytesAsOneThread) {
  const TestInput& t = GetParam().input;
  SCOPED_TRACE("input: " + t.path);
  if (t.path.empty()) GTEST_SKIP() << "no inputs";
  auto in = open_debug_input(t.path);
  ASSERT_TRUE(in.ok()) << in.error().message;
  CacheSource src;
  src.pdb = &*(*in)->pdb;
  src.source_name = std::filesystem::path(t.path).filename().string();
  CacheBuildOptions one;
  CacheStats serial_stats;
  auto serial = build_cache(src, one, &serial_stats);
  ASSERT_TRUE(serial.ok()) << serial.error().message;
  for (unsigned threads : {2u, 3u, 8u}) {
    CacheBuildOptions many;
    many.threads = threads;
    many.parallel_min_methods = 0;
    many.parallel_min_blob_bytes = 0;
    CacheStats stats;
    auto parallel = build_cache(src, many, &stats);
    ASSERT_TRUE(parallel.ok()) << parallel.error().message;
    EXPECT_TRUE(*parallel == *serial) << threads << " threads: " << parallel->size() << " vs " << serial->size() << " bytes";
    EXPECT_EQ(stats.points, serial_stats.points);
    EXPECT_EQ(stats.hidden, serial_stats.hidden);
    EXPECT_EQ(stats.point_bytes, serial_stats.point_bytes);
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, ParallelEncode, ::testing::ValuesIn(cases()), case_name);

}  // namespace
}  // namespace ilmap::test
