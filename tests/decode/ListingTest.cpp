// ListingTest.cpp - canonical listing lines (docs/text-output.md, "Canonical listing") and
// the stable per-method sort.
#include <gtest/gtest.h>

#include "decode/Listing.h"

namespace ilmap {
namespace {

SequencePoint pt(std::uint32_t il, std::uint32_t sl, std::uint16_t sc, std::uint32_t el,
                 std::uint16_t ec, std::uint32_t doc = 1) {
  SequencePoint p;
  p.il_offset = il;
  p.start_line = sl;
  p.start_column = sc;
  p.end_line = el;
  p.end_column = ec;
  p.document = doc;
  return p;
}

TEST(Listing, NormalPointLine) {
  std::string out;
  append_listing_line(out, 0x06000002, pt(8, 22, 13, 22, 20), "C:\\sources\\PdbTarget\\Program.cs");
  EXPECT_EQ(out, "0x06000002 8 C:\\sources\\PdbTarget\\Program.cs 22:13-22:20\n");
}

TEST(Listing, HiddenPointLineKeepsRawValues) {
  std::string out = "prefix\n";
  append_listing_line(out, 0x06000002, pt(6, kHiddenLine, 0, kHiddenLine, 0),
                      "C:\\sources\\PdbTarget\\Program.cs");
  EXPECT_EQ(out,
            "prefix\n"
            "0x06000002 6 C:\\sources\\PdbTarget\\Program.cs 16707566:0-16707566:0 hidden\n");
}

TEST(Listing, TokenIsLowercaseEightDigitHexAndNumbersAreDecimal) {
  std::string out;
  append_listing_line(out, 0x06ABCDEF, pt(0x7FFFFFFF, 0xFEEFED, 0xFFFF, 0xFEEFED, 0xFFFE),
                      "/a b/ü.cs");
  EXPECT_EQ(out, "0x06abcdef 2147483647 /a b/ü.cs 16707565:65535-16707565:65534\n");
  out.clear();
  append_listing_line(out, 0x06000000, pt(0, 0, 0, 0, 0), "");
  EXPECT_EQ(out, "0x06000000 0  0:0-0:0\n");
}

TEST(Listing, SortIsStableForEqualOffsets) {
  // Equal offsets keep PDB order; the documents tell the original order apart.
  std::vector<SequencePoint> v = {pt(10, 1, 1, 1, 2, 1), pt(4, 2, 1, 2, 2, 2),
                                  pt(10, kHiddenLine, 0, kHiddenLine, 0, 3),
                                  pt(4, 3, 1, 3, 2, 4), pt(0, 4, 1, 4, 2, 5),
                                  pt(10, 5, 1, 5, 2, 6)};
  sort_points_by_offset(v);
  std::vector<std::uint32_t> docs;
  for (auto& p : v) docs.push_back(p.document);
  EXPECT_EQ(docs, (std::vector<std::uint32_t>{5, 2, 4, 1, 3, 6}));
}

TEST(Listing, SortStableOnLargeInput) {
  // Enough elements that std::stable_sort and std::sort take different paths.
  std::vector<SequencePoint> v;
  for (std::uint32_t i = 0; i < 5000; ++i) v.push_back(pt((i * 7919) % 13, 1, 1, 1, 2, i));
  sort_points_by_offset(v);
  for (std::size_t i = 1; i < v.size(); ++i) {
    ASSERT_LE(v[i - 1].il_offset, v[i].il_offset);
    if (v[i - 1].il_offset == v[i].il_offset) {
      ASSERT_LT(v[i - 1].document, v[i].document) << i;
    }
  }
}

TEST(Listing, AlreadySortedInputIsUnchanged) {
  std::vector<SequencePoint> v = {pt(0, 1, 1, 1, 2, 3), pt(0, 2, 1, 2, 2, 1),
                                  pt(5, 3, 1, 3, 2, 2)};
  const auto before = v;
  sort_points_by_offset(v);
  EXPECT_EQ(v, before);
}

// A path from the file holding a newline, ESC, NUL and an invalid UTF-8 byte stays on one line
// (issue 9 item 10); an ordinary Windows path is unchanged (checked above).
TEST(Listing, ControlCharactersInPathsAreEscaped) {
  std::string out;
  append_listing_line(out, 0x06000001, pt(0, 1, 1, 1, 2),
                      std::string_view("a\nb\x1b[31m\0c\xff\\d.cs", 16));
  EXPECT_EQ(out, "0x06000001 0 a\\nb\\x1b[31m\\x00c\\xff\\d.cs 1:1-1:2\n");
}

}  // namespace
}  // namespace ilmap
