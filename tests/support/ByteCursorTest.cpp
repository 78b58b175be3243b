// ByteCursorTest.cpp - ECMA-335 II.23.2 compressed integers, C strings and sub-cursors.
#include <gtest/gtest.h>

#include "support/ByteCursor.h"
#include "tests/common/TestEncoders.h"

namespace ilmap {
namespace {

using test::Bytes;

struct UCase {
  std::uint32_t value;
  Bytes bytes;  // encoding written out by hand from the II.23.2 bit patterns
};

TEST(ByteCursorCompressed, UnsignedAtEveryWidthBoundary) {
  const UCase cases[] = {
      {0x0, {0x00}},
      {0x7F, {0x7F}},
      {0x80, {0x80, 0x80}},
      {0x3FFF, {0xBF, 0xFF}},
      {0x4000, {0xC0, 0x00, 0x40, 0x00}},
      {0x1FFFFFFF, {0xDF, 0xFF, 0xFF, 0xFF}},
  };
  for (const UCase& c : cases) {
    SCOPED_TRACE(testing::Message() << "value 0x" << std::hex << c.value);
    Bytes enc;
    test::put_compressed(enc, c.value);
    EXPECT_EQ(enc, c.bytes) << "test encoder disagrees with the hand-written bytes";
    Bytes buf = c.bytes;
    buf.push_back(0x55);  // a trailing byte must not be consumed
    ByteCursor cur(buf);
    std::uint32_t v = 0xDEADBEEF;
    unsigned width = 0;
    ASSERT_TRUE(cur.read_compressed(v, width));
    EXPECT_EQ(v, c.value);
    EXPECT_EQ(width, c.bytes.size());
    EXPECT_EQ(cur.pos(), c.bytes.size());
  }
}

TEST(ByteCursorCompressed, NonCanonicalLongFormsAreAccepted) {
  // II.23.2 does not forbid over-long forms; SRM reads them. 0x7F in two bytes:
  Bytes b{0x80, 0x7F};
  ByteCursor c(b);
  std::uint32_t v = 0;
  unsigned w = 0;
  ASSERT_TRUE(c.read_compressed(v, w));
  EXPECT_EQ(v, 0x7Fu);
  EXPECT_EQ(w, 2u);
}

TEST(ByteCursorCompressed, InvalidLeadByte111xxxxxIsRejected) {
  for (std::uint8_t lead : {0xE0, 0xE5, 0xFF}) {
    Bytes b{lead, 0, 0, 0, 0};
    ByteCursor c(b);
    std::uint32_t v = 0;
    EXPECT_FALSE(c.read_compressed(v)) << "lead 0x" << std::hex << int(lead);
    EXPECT_EQ(c.pos(), 0u) << "a failed read must not advance";
  }
}

TEST(ByteCursorCompressed, TruncationAtEachWidth) {
  const Bytes cases[] = {
      {},                  // nothing at all
      {0x80},              // 2-byte form, 1 byte present
      {0xC0},              // 4-byte form, 1 byte present
      {0xC0, 0x00},        // 2 of 4
      {0xDF, 0xFF, 0xFF},  // 3 of 4
  };
  for (const Bytes& b : cases) {
    SCOPED_TRACE(testing::Message() << "size " << b.size());
    ByteCursor c(b);
    std::uint32_t v = 0;
    EXPECT_FALSE(c.read_compressed(v));
    EXPECT_EQ(c.pos(), 0u);
    std::int32_t s = 0;
    EXPECT_FALSE(c.read_compressed_signed(s));
    EXPECT_EQ(c.pos(), 0u);
  }
}

// II.23.2 signed rule, straight from the text: the unsigned value u of width n holds the
// 6/13/28-bit two's complement value rotated left by one; undo the rotation and sign-extend
// from that bit width.
std::int32_t ecma_signed(std::uint32_t u, unsigned width) {
  const unsigned bits = width == 1 ? 6 : width == 2 ? 13 : 28;
  std::int64_t v = u >> 1;
  if (u & 1) v -= std::int64_t(1) << bits;
  return static_cast<std::int32_t>(v);
}
// The formula one public third-party reader uses; wrong for negative values.
std::int32_t wrong_signed(std::uint32_t u) {
  return (u & 1) ? -std::int32_t(u >> 1) - 1 : std::int32_t(u >> 1);
}

struct SCase {
  std::int32_t value;
  Bytes bytes;  // the II.23.2 examples and the extremes of each width
};

TEST(ByteCursorCompressed, SignedWidthBasedSignExtension) {
  const SCase cases[] = {
      {3, {0x06}},
      {-3, {0x7B}},
      {-1, {0x7F}},
      {63, {0x7E}},
      {-64, {0x01}},
      {64, {0x80, 0x80}},
      {-65, {0xBF, 0x7F}},
      {8191, {0xBF, 0xFE}},
      {-8192, {0x80, 0x01}},
      {8192, {0xC0, 0x00, 0x40, 0x00}},
      {(1 << 28) - 1, {0xDF, 0xFF, 0xFF, 0xFE}},
      {-(1 << 28), {0xC0, 0x00, 0x00, 0x01}},
  };
  int differs_from_wrong = 0;
  for (const SCase& c : cases) {
    SCOPED_TRACE(testing::Message() << "value " << c.value);
    Bytes enc;
    test::put_compressed_signed(enc, c.value);
    EXPECT_EQ(enc, c.bytes) << "test encoder disagrees with the hand-written bytes";
    // The expected value is recomputed from the raw unsigned form with the II.23.2 rule.
    ByteCursor cu(c.bytes);
    std::uint32_t u = 0;
    unsigned w = 0;
    ASSERT_TRUE(cu.read_compressed(u, w));
    ASSERT_EQ(ecma_signed(u, w), c.value);

    ByteCursor cs(c.bytes);
    std::int32_t v = 0;
    ASSERT_TRUE(cs.read_compressed_signed(v));
    EXPECT_EQ(v, c.value);
    EXPECT_EQ(cs.pos(), c.bytes.size());
    if (wrong_signed(u) != c.value) ++differs_from_wrong;
  }
  // -(u>>1)-1 gets every negative case above wrong (e.g. 0x7B -> -62 instead of -3).
  EXPECT_EQ(differs_from_wrong, 6);
  EXPECT_EQ(wrong_signed(0x7B), -62);
}

TEST(ByteCursorCompressed, SignedExhaustiveOverOneAndTwoByteForms) {
  for (std::uint32_t u = 0; u <= 0x3FFF; ++u) {
    Bytes b;
    test::put_compressed(b, u);
    ByteCursor c(b);
    std::int32_t v = 0;
    ASSERT_TRUE(c.read_compressed_signed(v));
    ASSERT_EQ(v, ecma_signed(u, unsigned(b.size()))) << "u=" << u;
  }
}

TEST(ByteCursor, ReadCString) {
  Bytes b{'a', 'b', 0, 0, 'c', 'd'};
  ByteCursor c(b, 100);
  std::string_view s;
  ASSERT_TRUE(c.read_cstring(s));
  EXPECT_EQ(s, "ab");
  EXPECT_EQ(c.pos(), 3u);
  ASSERT_TRUE(c.read_cstring(s));
  EXPECT_EQ(s, "");
  EXPECT_EQ(c.pos(), 4u);
  EXPECT_FALSE(c.read_cstring(s)) << "no terminator before the end";
  EXPECT_EQ(c.pos(), 4u);
  ByteCursor empty;
  EXPECT_FALSE(empty.read_cstring(s));
}

TEST(ByteCursor, SubCursorKeepsAbsoluteOffsets) {
  Bytes b(32);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::uint8_t(i);
  ByteCursor c(b, 0x1000);
  ASSERT_TRUE(c.skip(4));
  ByteCursor sub;
  ASSERT_TRUE(c.sub(8, sub));
  EXPECT_EQ(c.pos(), 12u);
  EXPECT_EQ(c.abs(), 0x100Cu);
  EXPECT_EQ(sub.size(), 8u);
  EXPECT_EQ(sub.pos(), 0u);
  EXPECT_EQ(sub.abs(), 0x1004u);
  std::uint16_t v = 0;
  ASSERT_TRUE(sub.read(v));
  EXPECT_EQ(v, 0x0504);
  EXPECT_EQ(sub.abs(), 0x1006u);
  ByteCursor subsub;
  ASSERT_TRUE(sub.sub(2, subsub));
  EXPECT_EQ(subsub.abs(), 0x1006u);
  // The sub-cursor is bounded by its own size, not the parent's.
  std::uint64_t big = 0;
  EXPECT_FALSE(sub.read(big));
  ASSERT_TRUE(sub.skip(4));
  EXPECT_TRUE(sub.empty());
  EXPECT_FALSE(c.sub(21, sub)) << "20 bytes remain";
  EXPECT_EQ(c.pos(), 12u);
}

TEST(ByteCursor, FixedReadsAndIndexWidths) {
  Bytes b{0x01, 0x02, 0x03, 0x04, 0x05, 0x06};
  ByteCursor c(b);
  std::uint32_t v = 0;
  ASSERT_TRUE(c.read_index(2, v));
  EXPECT_EQ(v, 0x0201u);
  ASSERT_TRUE(c.read_index(4, v));
  EXPECT_EQ(v, 0x06050403u);
  EXPECT_FALSE(c.read_index(2, v));
  EXPECT_FALSE(c.seek(7));
  EXPECT_TRUE(c.seek(6));
  EXPECT_FALSE(c.skip(1));
}

}  // namespace
}  // namespace ilmap
