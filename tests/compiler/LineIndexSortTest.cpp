// LineIndexSortTest.cpp - build_line_index orders the points two ways: a counting sort by
// (document, line) when they arrive in (row, ordinal) order with line ranges not much wider
// than their count (what the builder hands over), a comparison sort otherwise. Both must give
// the same index, byte for byte: the same points given in row order and shuffled are encoded
// and compared, for inputs that take each path, with ties on (line, column) across rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "compiler/LineIndexWriter.h"

namespace ilmap::test {
namespace {

// Points of `rows` methods in (row, ordinal) order, lines drawn from [1, max_line] (a few
// repeated on purpose), columns from a small range so that (line, column) ties occur.
std::vector<LinePoint> points_in_row_order(std::uint32_t documents, std::uint32_t rows, std::uint32_t max_line,
                                           std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<LinePoint> out;
  for (std::uint32_t row = 1; row <= rows; ++row) {
    const std::uint32_t n = rng() % 40;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t doc = rng() % documents;
      const std::uint32_t line = 1 + rng() % max_line;
      const std::uint32_t column = 1 + rng() % 4;
      out.push_back({doc, line, column, row, k});
    }
  }
  return out;
}

void expect_same(const LineIndexSection& a, const LineIndexSection& b) {
  EXPECT_EQ(a.entries, b.entries);
  EXPECT_EQ(a.doc_blocks, b.doc_blocks);
  ASSERT_EQ(a.blocks.size(), b.blocks.size());
  for (std::size_t i = 0; i < a.blocks.size(); ++i) {
    EXPECT_EQ(a.blocks[i].line(), b.blocks[i].line()) << i;
    EXPECT_EQ(a.blocks[i].offset(), b.blocks[i].offset()) << i;
  }
  EXPECT_TRUE(std::ranges::equal(a.data(), b.data()));
}

LineIndexSection shuffled_index(std::vector<LinePoint> points, std::uint32_t documents, std::uint32_t seed) {
  std::shuffle(points.begin(), points.end(), std::mt19937(seed));
  return build_line_index(points, documents);
}

// Narrow line ranges: the counting sort; the shuffled copy takes the comparison sort.
TEST(LineIndexSort, CountingSortEqualsComparisonSort) {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    std::vector<LinePoint> points = points_in_row_order(3, 300, 200, seed);
    ASSERT_GT(points.size(), 1000u);
    const LineIndexSection want = shuffled_index(points, 3, seed);
    const LineIndexSection got = build_line_index(points, 3);
    EXPECT_EQ(got.entries, points.size());
    expect_same(got, want);
  }
}

// Line ranges far wider than the points (lines up to 0xFEEFED): the comparison sort on both.
TEST(LineIndexSort, WideLineRangesEqualComparisonSort) {
  std::vector<LinePoint> points = points_in_row_order(2, 50, 0xFEEFED, 7);
  ASSERT_GT(points.size(), 100u);
  const LineIndexSection want = shuffled_index(points, 2, 7);
  const LineIndexSection got = build_line_index(points, 2);
  expect_same(got, want);
}

// The index order itself: within a document, (line, column, row, ordinal) ascending, checked on
// the decoded first entry of each block against the sorted points.
TEST(LineIndexSort, BlocksStartAtTheSortedPoints) {
  std::vector<LinePoint> points = points_in_row_order(2, 120, 100, 11);  // rows < 128: one LEB128 byte
  std::vector<LinePoint> sorted = points;
  std::sort(sorted.begin(), sorted.end(), [](const LinePoint& a, const LinePoint& b) {
    return std::tie(a.document, a.line, a.column, a.row, a.ordinal) < std::tie(b.document, b.line, b.column, b.row, b.ordinal);
  });
  const LineIndexSection got = build_line_index(points, 2);
  std::size_t at = 0;
  for (std::uint32_t d = 0; d < 2; ++d) {
    for (std::uint32_t b = got.doc_blocks[d]; b < got.doc_blocks[d + 1]; ++b) {
      ASSERT_LT(at, sorted.size());
      EXPECT_EQ(sorted[at].document, d);
      EXPECT_EQ(got.blocks[b].line(), sorted[at].line) << "block " << b;
      // The block's first entry: count byte, then row and ordinal as LEB128 (both < 128 here).
      const std::uint8_t* p = got.data().data() + got.blocks[b].offset();
      EXPECT_EQ(p[1], sorted[at].row) << "block " << b;
      EXPECT_EQ(p[2], sorted[at].ordinal) << "block " << b;
      at += p[0];
    }
  }
  EXPECT_EQ(at, sorted.size());
}

}  // namespace
}  // namespace ilmap::test
