// SequencePointsTest.cpp - decode_sequence_points on blobs built field by field
// (PortablePdb-Metadata.md "Sequence Points Blob"; reference notes 1.8).
#include <gtest/gtest.h>

#include "decode/SequencePoints.h"
#include "tests/common/TestEncoders.h"

namespace ilmap {

// gtest finds this by ADL to print points in failure messages.
inline void PrintTo(const SequencePoint& p, std::ostream* os) {
  *os << "{il " << p.il_offset << " doc " << p.document << " " << p.start_line << ":"
      << p.start_column << "-" << p.end_line << ":" << p.end_column << "}";
}

namespace {

using test::SpBlob;

SequencePoint pt(std::uint32_t il, std::uint32_t doc, std::uint32_t sl, std::uint16_t sc,
                 std::uint32_t el, std::uint16_t ec) {
  SequencePoint p;
  p.il_offset = il;
  p.document = doc;
  p.start_line = sl;
  p.start_column = sc;
  p.end_line = el;
  p.end_column = ec;
  return p;
}
SequencePoint hidden(std::uint32_t il, std::uint32_t doc) {
  return pt(il, doc, kHiddenLine, 0, kHiddenLine, 0);
}

std::vector<SequencePoint> decode_ok(const SpBlob& b, std::uint32_t mdi_doc,
                                     std::uint32_t doc_count) {
  std::vector<SequencePoint> out;
  SpDecodeError err;
  EXPECT_TRUE(decode_sequence_points(b.b, mdi_doc, doc_count, out, err))
      << sp_error_text(err.reason) << " at " << err.blob_pos;
  return out;
}

struct Failure {
  SpDecodeError err;
  std::vector<SequencePoint> points;
};
Failure decode_fail(const SpBlob& b, std::uint32_t mdi_doc, std::uint32_t doc_count) {
  Failure f;
  EXPECT_FALSE(decode_sequence_points(b.b, mdi_doc, doc_count, f.points, f.err));
  return f;
}

// ---- well-formed blobs -------------------------------------------------------------------

TEST(SequencePoints, EmptyBlobHasNoPoints) {
  EXPECT_TRUE(decode_ok(SpBlob{}, 0, 1).empty());
}

TEST(SequencePoints, InitialDocumentFromHeaderWhenMdiDocumentIsZero) {
  SpBlob b;
  b.u(0x11).u(2);                  // LocalSignature, InitialDocument = 2
  b.u(0).u(0).u(5).u(10).u(3);     // il 0, dLines 0, dCols 5, line 10, col 3
  EXPECT_EQ(decode_ok(b, 0, 2), (std::vector{pt(0, 2, 10, 3, 10, 8)}));
}

TEST(SequencePoints, DocumentFromMdiWhenNonzeroHeaderHasNoInitialDocument) {
  SpBlob b;
  b.u(0);                          // LocalSignature only
  b.u(2).u(0).u(1).u(7).u(9);      // il 2 ...
  EXPECT_EQ(decode_ok(b, 3, 3), (std::vector{pt(2, 3, 7, 9, 7, 10)}));
}

TEST(SequencePoints, FirstRecordWithIlOffsetZeroIsAPointNotADocumentRecord) {
  SpBlob b;
  b.u(0);
  b.u(0).u(0).u(4).u(1).u(1);  // first record: il 0 is a real offset
  b.u(0).u(2);                 // later record: delta 0 = document record -> doc 2
  b.u(3).u(0).u(2).s(1).s(0);  // il 3, line 2, col 1 (signed deltas from 1:1)
  EXPECT_EQ(decode_ok(b, 1, 2),
            (std::vector{pt(0, 1, 1, 1, 1, 5), pt(3, 2, 2, 1, 2, 3)}));
}

TEST(SequencePoints, HiddenPointsDoNotUpdatePreviousNonHiddenLineAndColumn) {
  SpBlob b;
  b.u(0);
  b.u(1).u(0).u(4).u(10).u(5);  // 10:5-10:9
  b.u(2).u(0).u(0);             // hidden at 3
  b.u(4).u(0).u(1).s(2).s(-1);  // 12:4-12:5 relative to 10:5, not to 0xfeefee:0
  const auto pts = decode_ok(b, 1, 1);
  ASSERT_EQ(pts.size(), 3u);
  EXPECT_EQ(pts[0], pt(1, 1, 10, 5, 10, 9));
  EXPECT_EQ(pts[1], hidden(3, 1));
  EXPECT_TRUE(pts[1].hidden());
  EXPECT_EQ(pts[2], pt(7, 1, 12, 4, 12, 5));
}

TEST(SequencePoints, HiddenFirstPointLeavesTheNextNonHiddenUnsigned) {
  SpBlob b;
  b.u(0);
  b.u(0).u(0).u(0);             // hidden at 0: no line/column fields follow
  b.u(5).u(0).u(2).u(30).u(7);  // first non-hidden: unsigned absolute line and column
  b.u(1).u(0).u(0);             // hidden
  b.u(1).u(0).u(3).s(-5).s(2);  // 25:9 relative to 30:7
  EXPECT_EQ(decode_ok(b, 1, 1), (std::vector{hidden(0, 1), pt(5, 1, 30, 7, 30, 9), hidden(6, 1),
                                             pt(7, 1, 25, 9, 25, 12)}));
}

TEST(SequencePoints, DocumentRecordsSwitchDocumentIncludingConsecutiveOnes) {
  SpBlob b;
  b.u(0).u(1);                   // initial document 1
  b.u(0).u(0).u(1).u(1).u(1);
  b.u(0).u(2).u(0).u(3);         // two document records in a row: 2 then 3
  b.u(2).u(0).u(1).s(1).s(0);
  b.u(0).u(1);                   // back to 1
  b.u(2).u(0).u(0);              // hidden in doc 1
  EXPECT_EQ(decode_ok(b, 0, 3),
            (std::vector{pt(0, 1, 1, 1, 1, 2), pt(2, 3, 2, 1, 2, 2), hidden(4, 1)}));
}

TEST(SequencePoints, SignedDeltasAtEveryWidth) {
  SpBlob b;
  b.u(0);
  b.u(0).u(0).u(1).u(100000).u(500);
  b.u(1).u(0).u(1).s(-64).s(-65);      // 1-byte and 2-byte negative
  b.u(1).u(0).u(1).s(8191).s(63);      // 2-byte / 1-byte positive
  b.u(1).u(0).u(1).s(-8192).s(-498);
  b.u(1).u(0).u(1).s(200000).s(0);     // 4-byte positive line delta
  b.u(1).u(0).u(1).s(-200000).s(0);    // 4-byte negative
  EXPECT_EQ(decode_ok(b, 1, 1), (std::vector{
                                    pt(0, 1, 100000, 500, 100000, 501),
                                    pt(1, 1, 99936, 435, 99936, 436),
                                    pt(2, 1, 108127, 498, 108127, 499),
                                    pt(3, 1, 99935, 0, 99935, 1),
                                    pt(4, 1, 299935, 0, 299935, 1),
                                    pt(5, 1, 99935, 0, 99935, 1),
                                }));
}

TEST(SequencePoints, MultiLineSpansHaveSignedColumnDelta) {
  SpBlob b;
  b.u(0);
  b.u(0).u(3).s(-4).u(20).u(10);   // 20:10-23:6
  b.u(6).u(2).s(15).s(1).s(-9);    // 21:1-23:16
  b.u(1).u(1).s(0).s(0).s(0);      // 21:1-22:1 (dLines != 0 with dCols 0 is not hidden)
  EXPECT_EQ(decode_ok(b, 1, 1), (std::vector{pt(0, 1, 20, 10, 23, 6), pt(6, 1, 21, 1, 23, 16),
                                             pt(7, 1, 21, 1, 22, 1)}));
}

TEST(SequencePoints, LargeValuesIn4ByteForms) {
  SpBlob b;
  b.u(0x1FFFFFFF);                      // LocalSignature at the maximum
  b.u(0x4000).u(0x4000).s(-1).u(0x100000).u(0xFFFF);  // start col 0xFFFF is allowed
  const auto pts = decode_ok(b, 1, 1);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0], pt(0x4000, 1, 0x100000, 0xFFFF, 0x104000, 0xFFFE));
}

TEST(SequencePoints, AppendsToExistingOutput) {
  SpBlob b;
  b.u(0).u(0).u(0).u(1).u(1).u(1);
  std::vector<SequencePoint> out{hidden(99, 9)};
  SpDecodeError err;
  ASSERT_TRUE(decode_sequence_points(b.b, 1, 1, out, err));
  EXPECT_EQ(out, (std::vector{hidden(99, 9), pt(0, 1, 1, 1, 1, 2)}));
}

// ---- error paths: each asserts its SpError and the blob position of the bad value ---------

void expect_error(const Failure& f, SpError reason, std::size_t pos) {
  EXPECT_EQ(f.err.reason, reason) << "got " << sp_error_text(f.err.reason);
  EXPECT_EQ(f.err.blob_pos, pos);
}

TEST(SequencePointsErrors, TruncatedAtEachField) {
  struct Case {
    const char* what;
    SpBlob blob;
    std::uint32_t mdi_doc;
    std::size_t pos;
  };
  std::vector<Case> cases;
  auto add = [&](const char* what, std::uint32_t mdi_doc, auto&& build) {
    SpBlob b;
    build(b);
    const std::size_t at = b.pos();
    b.raw(0xC0);  // a 4-byte form with only its lead byte: truncated here
    cases.push_back({what, b, mdi_doc, at});
  };
  add("LocalSignature", 1, [](SpBlob&) {});
  add("InitialDocument", 0, [](SpBlob& b) { b.u(0); });
  add("first dIL", 1, [](SpBlob& b) { b.u(0); });
  add("dLines", 1, [](SpBlob& b) { b.u(0).u(0); });
  add("dColumns unsigned", 1, [](SpBlob& b) { b.u(0).u(0).u(0); });
  add("dColumns signed", 1, [](SpBlob& b) { b.u(0).u(0).u(1); });
  add("first start line", 1, [](SpBlob& b) { b.u(0).u(0).u(0).u(1); });
  add("first start column", 1, [](SpBlob& b) { b.u(0).u(0).u(0).u(1).u(5); });
  add("later dIL", 1, [](SpBlob& b) { b.u(0).u(0).u(0).u(1).u(5).u(1); });
  add("document record rid", 1, [](SpBlob& b) { b.u(0).u(0).u(0).u(1).u(5).u(1).u(0); });
  add("dIL after document record", 1,
      [](SpBlob& b) { b.u(0).u(0).u(0).u(1).u(5).u(1).u(0).u(1); });
  add("later dLines", 1, [](SpBlob& b) { b.u(0).u(0).u(0).u(1).u(5).u(1).u(2); });
  add("later dColumns", 1, [](SpBlob& b) { b.u(0).u(0).u(0).u(1).u(5).u(1).u(2).u(0); });
  add("signed start line delta", 1,
      [](SpBlob& b) { b.u(0).u(0).u(0).u(1).u(5).u(1).u(2).u(0).u(1); });
  add("signed start column delta", 1,
      [](SpBlob& b) { b.u(0).u(0).u(0).u(1).u(5).u(1).u(2).u(0).u(1).s(1); });
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    expect_error(decode_fail(c.blob, c.mdi_doc, 2), SpError::kTruncated, c.pos);
  }
}

TEST(SequencePointsErrors, InvalidLeadByteIsTruncatedError) {
  SpBlob b;
  b.u(0).u(0).raw(0xE0);  // 111xxxxx in dLines
  expect_error(decode_fail(b, 1, 1), SpError::kTruncated, 2);
}

TEST(SequencePointsErrors, KeepsPointsDecodedBeforeTheError) {
  SpBlob b;
  b.u(0).u(0).u(0).u(1).u(5).u(1).u(1).u(0).u(0).raw(0x80);
  const Failure f = decode_fail(b, 1, 1);
  expect_error(f, SpError::kTruncated, 9);
  EXPECT_EQ(f.points, (std::vector{pt(0, 1, 5, 1, 5, 2), hidden(1, 1)}));
}

TEST(SequencePointsErrors, DocumentRidZeroInHeader) {
  SpBlob b;
  b.u(0).u(0).u(0).u(0).u(1).u(1).u(1);
  expect_error(decode_fail(b, 0, 3), SpError::kBadDocument, 1);
}

TEST(SequencePointsErrors, DocumentBeyondTableInHeader) {
  SpBlob b;
  b.u(0).u(4).u(0).u(0).u(1).u(1).u(1);
  expect_error(decode_fail(b, 0, 3), SpError::kBadDocument, 1);
  SpBlob ok;
  ok.u(0).u(3).u(0).u(0).u(1).u(1).u(1);
  EXPECT_EQ(decode_ok(ok, 0, 3).size(), 1u) << "rid == row count is in range";
}

TEST(SequencePointsErrors, DocumentRecordRidZeroOrBeyondTable) {
  SpBlob zero;
  zero.u(0).u(0).u(0).u(1).u(1).u(1);
  const std::size_t at = zero.pos() + 1;
  zero.u(0).u(0).u(1).u(0).u(1).s(0).s(0);
  expect_error(decode_fail(zero, 1, 2), SpError::kBadDocument, at);

  SpBlob beyond;
  beyond.u(0).u(0).u(0).u(1).u(1).u(1);
  beyond.u(0).u(2);  // fine
  const std::size_t at2 = beyond.pos() + 1;
  beyond.u(0).u(3).u(1).u(0).u(1).s(0).s(0);
  expect_error(decode_fail(beyond, 1, 2), SpError::kBadDocument, at2);
}

TEST(SequencePointsErrors, IlOffsetOverflow) {
  // 4 x 0x1FFFFFFF = 0x7FFFFFFC is still a valid offset; + 4 passes 0x7FFFFFFF.
  SpBlob b;
  b.u(0);
  b.u(0x1FFFFFFF).u(0).u(0);
  for (int i = 0; i < 3; ++i) b.u(0x1FFFFFFF).u(0).u(0);
  SpBlob ok = b;
  ok.u(3).u(0).u(0);
  const auto pts = decode_ok(ok, 1, 1);
  ASSERT_EQ(pts.size(), 5u);
  EXPECT_EQ(pts.back().il_offset, 0x7FFFFFFFu);
  const std::size_t at = b.pos();
  b.u(4).u(0).u(0);
  const Failure f = decode_fail(b, 1, 1);
  expect_error(f, SpError::kOffsetOverflow, at);
  EXPECT_EQ(f.points.size(), 4u);
}

TEST(SequencePointsErrors, LineReachingHiddenLineByDelta) {
  SpBlob b;
  b.u(0).u(0).u(0).u(1).u(kHiddenLine - 1).u(1);  // 0xfeefed is a valid line
  const std::size_t at = b.pos() + 3;              // dIL, dLines, dCols: 1 byte each
  b.u(1).u(0).u(1).s(1).s(0);
  expect_error(decode_fail(b, 1, 1), SpError::kLineOutOfRange, at);
}

TEST(SequencePointsErrors, NegativeLineByDelta) {
  SpBlob b;
  b.u(0).u(0).u(0).u(1).u(5).u(1);
  const std::size_t at = b.pos() + 3;
  b.u(1).u(0).u(1).s(-6).s(0);
  expect_error(decode_fail(b, 1, 1), SpError::kLineOutOfRange, at);
  SpBlob zero;
  zero.u(0).u(0).u(0).u(1).u(5).u(1).u(1).u(0).u(1).s(-5).s(0);
  EXPECT_EQ(decode_ok(zero, 1, 1).back().start_line, 0u) << "line 0 is in range";
}

TEST(SequencePointsErrors, EndLineReachingHiddenLine) {
  SpBlob b;
  b.u(0).u(0).u(2).s(1);  // il 0, dLines 2, dCols +1 (signed)
  b.u(kHiddenLine - 2);   // end line = 0xfeefee
  const std::size_t at = b.pos();
  b.u(1);
  // The end line is computed, not read: the decoder reports the last field of the record.
  expect_error(decode_fail(b, 1, 1), SpError::kLineOutOfRange, at);
}

TEST(SequencePointsErrors, ColumnOutOfRange) {
  {  // first start column above 0xFFFF
    SpBlob b;
    b.u(0).u(0).u(0).u(1).u(1);
    const std::size_t at = b.pos();
    b.u(0x10000);
    expect_error(decode_fail(b, 1, 1), SpError::kColumnOutOfRange, at);
  }
  {  // signed start column delta to 0xFFFF (computed columns must be < 0xFFFF)
    SpBlob b;
    b.u(0).u(0).u(0).u(1).u(1).u(0xFFF0);
    const std::size_t at = b.pos() + 4;
    b.u(1).u(0).u(1).s(0).s(0x0F);
    expect_error(decode_fail(b, 1, 1), SpError::kColumnOutOfRange, at);
  }
  {  // negative start column by delta
    SpBlob b;
    b.u(0).u(0).u(0).u(1).u(1).u(3);
    const std::size_t at = b.pos() + 4;
    b.u(1).u(0).u(1).s(0).s(-4);
    expect_error(decode_fail(b, 1, 1), SpError::kColumnOutOfRange, at);
  }
  {  // end column = start + unsigned dCols reaching 0xFFFF
    SpBlob b;
    b.u(0).u(0).u(0).u(0x10).u(1).u(0xFFEF);
    expect_error(decode_fail(b, 1, 1), SpError::kColumnOutOfRange, 5);  // the start column
  }
  {  // negative end column on a multi-line span
    SpBlob b;
    b.u(0).u(0).u(1).s(-6).u(1).u(5);
    expect_error(decode_fail(b, 1, 1), SpError::kColumnOutOfRange, 5);
  }
}

}  // namespace
}  // namespace ilmap
