// ReleaseWindowTest.cpp - when the point encoder gives back the input's pages (ReleaseWindow.h):
// reads in row order give back each step once, in order; hostile orders give back at most
// (input size / step) ranges, never one per read.
#include "compiler/ReleaseWindow.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace ilmap::test {
namespace {

constexpr std::size_t kStep = 4096;

// The ranges a window hands out for reads [offset, offset + size) of one buffer, as offsets.
struct Released {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // [begin, end)
  std::size_t bytes = 0;
};

Released run(const std::vector<std::uint8_t>& input, const std::vector<std::pair<std::size_t, std::size_t>>& reads) {
  ReleaseWindow w(kStep);
  Released r;
  for (const auto& [at, size] : reads) {
    const auto got = w.read(input.data() + at, input.data() + at + size);
    if (got.empty()) continue;
    const std::size_t b = static_cast<std::size_t>(got.data() - input.data());
    r.ranges.emplace_back(b, b + got.size());
    r.bytes += got.size();
  }
  return r;
}

TEST(ReleaseWindow, ReadsInOrderGiveBackEachStepOnceInOrder) {
  std::vector<std::uint8_t> input(64 * kStep);
  std::vector<std::pair<std::size_t, std::size_t>> reads;
  for (std::size_t at = 0; at + 100 <= input.size(); at += 100) reads.emplace_back(at, 100);
  const Released r = run(input, reads);
  ASSERT_GE(r.ranges.size(), 60u);  // one per step of progress
  for (std::size_t i = 0; i < r.ranges.size(); ++i) {
    EXPECT_GE(r.ranges[i].second - r.ranges[i].first, kStep);
    EXPECT_LT(r.ranges[i].second - r.ranges[i].first, kStep + 100);
    if (i) {
      EXPECT_EQ(r.ranges[i].first, r.ranges[i - 1].second);  // contiguous, never twice
    }
  }
  EXPECT_EQ(r.ranges.front().first, 0u);
  EXPECT_GT(r.ranges.back().second, input.size() - kStep - 100);
}

TEST(ReleaseWindow, NothingIsGivenBackBeforeAStepIsRead) {
  std::vector<std::uint8_t> input(4 * kStep);
  EXPECT_TRUE(run(input, {{0, 100}, {100, 1000}, {1100, kStep - 1200}}).ranges.empty());
  EXPECT_EQ(run(input, {{0, 100}, {100, 1000}, {1100, kStep - 1100}}).ranges.size(), 1u);
}

// Rows that alternate between two blobs a step apart (a hostile PDB may point any number of rows
// at the same blobs): the first pair gives back one range, and later pairs nothing, since what
// was given back only moves forward.
TEST(ReleaseWindow, AlternatingReadsGiveBackOnceNotPerRead) {
  std::vector<std::uint8_t> input(8 * kStep);
  std::vector<std::pair<std::size_t, std::size_t>> reads;
  for (int i = 0; i < 100000; ++i) {
    reads.emplace_back(0, 16);
    reads.emplace_back(kStep + 8, 16);
  }
  const Released r = run(input, reads);
  EXPECT_EQ(r.ranges.size(), 1u);
  EXPECT_LE(r.bytes, input.size());
}

// Reads in descending order, or jumping back and forth over the whole input: each range handed
// out starts at or after the end of the one before, so at most size / step of them.
TEST(ReleaseWindow, AnyOrderGivesBackAtMostTheInputOnce) {
  std::vector<std::uint8_t> input(256 * kStep);
  std::vector<std::pair<std::size_t, std::size_t>> down, zigzag;
  for (std::size_t at = input.size() - 64; at >= 64; at -= 64) down.emplace_back(at, 64);
  std::uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 1103515245u + 12345u;
    zigzag.emplace_back((x >> 8) % (input.size() - 64), 64);
  }
  for (const auto* reads : {&down, &zigzag}) {
    const Released r = run(input, *reads);
    EXPECT_LE(r.ranges.size(), input.size() / kStep);
    EXPECT_LE(r.bytes, input.size());
    for (std::size_t i = 1; i < r.ranges.size(); ++i) EXPECT_GE(r.ranges[i].first, r.ranges[i - 1].second);
  }
}

}  // namespace
}  // namespace ilmap::test
