// LineIndexRangesTest.cpp - the reverse line index read back from the encoded point blocks a
// range of documents at a time (compiler/LineIndexFromBlocks.h) equals the index of the points
// as the PDB decoder gives them, all at once, byte for byte, whatever the budget of a range
// (every document alone, a few together, all in one) and however the blocks were cut into
// chunks (one thread, several). Methods span several documents, hold hidden points and share
// (line, column) pairs across rows; one document's lines are far apart (its range takes the
// comparison sort).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "compiler/BuildInput.h"
#include "compiler/LineIndexFromBlocks.h"
#include "compiler/PointEncoder.h"
#include "decode/PortablePdb.h"
#include "support/ZstdPack.h"
#include "tests/common/TestEncoders.h"

namespace ilmap::test {
namespace {

constexpr std::uint32_t kDocuments = 7;
constexpr std::uint32_t kMethods = 300;
constexpr std::uint32_t kWideDocument = 3;  // lines up to 0xFEEFED

Bytes ranges_pdb() {
  MiniPdb p;
  for (char d = '1'; d < char('1' + kDocuments); ++d) p.add_document(p.add_name('/', {"", "src", {d, '.', 'c', 's'}}));
  std::mt19937 rng(47);
  std::vector<std::uint32_t> blob(kMethods + 1, 0);
  for (std::uint32_t rid = 1; rid <= kMethods; ++rid) {
    const std::uint32_t n = rng() % 20;  // some methods have none
    if (n == 0) continue;
    SpBlob sp;
    sp.u(0);  // local signature
    std::uint32_t doc = 1 + rid % kDocuments;
    std::int64_t line = 0, col = 0;
    bool first = true, seen_visible = false;
    for (std::uint32_t k = 0; k < n; ++k) {
      if (!first && rng() % 8 == 0) {  // a document record: the method goes on in another file
        doc = 1 + rng() % kDocuments;
        sp.u(0).u(doc);
      }
      sp.u(first ? 0 : 1 + rng() % 5);
      if (!first && rng() % 7 == 0) {  // hidden
        sp.u(0).u(0);
        continue;
      }
      const std::int64_t l = doc == kWideDocument ? 1 + rng() % 0xFEEFE0 : 1 + rng() % 60;
      const std::int64_t c = 1 + rng() % 4;
      sp.u(0).u(3);  // one line, 3 columns wide
      if (!seen_visible) {
        sp.u(std::uint32_t(l)).u(std::uint32_t(c));
      } else {
        sp.s(std::int32_t(l - line)).s(std::int32_t(c - col));
      }
      line = l;
      col = c;
      first = false;
      seen_visible = true;
    }
    blob[rid] = p.blobs.add(sp.b);
  }
  for (std::uint32_t rid = 1; rid <= kMethods; ++rid) p.add_method(1 + rid % kDocuments, blob[rid]);
  return p.image().build();
}

// Every visible point of the PDB, as its decoder gives them, in (row, ordinal) order.
std::vector<LinePoint> decoded_points(const PortablePdb& pdb, std::uint32_t methods) {
  std::vector<LinePoint> out;
  for (std::uint32_t rid = 1; rid <= methods; ++rid) {
    std::uint32_t ordinal = 0;
    const Status s = pdb.for_each_sequence_point(rid, [&](const SequencePoint& p) {
      if (!p.hidden()) out.push_back({p.document - 1, p.start_line, p.start_column, rid, ordinal++});
    });
    EXPECT_TRUE(s) << s.error().message;
  }
  return out;
}

void expect_same(const LineIndexSection& a, const LineIndexSection& b) {
  EXPECT_EQ(a.entries, b.entries);
  EXPECT_EQ(a.doc_blocks, b.doc_blocks);
  ASSERT_EQ(a.blocks.size(), b.blocks.size());
  for (std::size_t i = 0; i < a.blocks.size(); ++i) {
    EXPECT_EQ(a.blocks[i].line(), b.blocks[i].line()) << "block " << i;
    EXPECT_EQ(a.blocks[i].offset(), b.blocks[i].offset()) << "block " << i;
  }
  EXPECT_TRUE(std::ranges::equal(a.data(), b.data()));
}

TEST(LineIndexRanges, FromBlocksEqualsDecodedPointsForEveryRangeBudget) {
  const Bytes bytes = ranges_pdb();
  auto pdb = PortablePdb::parse(bytes);
  ASSERT_TRUE(pdb) << pdb.error().message;
  CacheSource src;
  src.pdb = &*pdb;
  auto in = read_build_input(src);
  ASSERT_TRUE(in) << in.error().message;
  ASSERT_EQ(in->docs.size(), kDocuments);
  const std::vector<LinePoint> truth = decoded_points(*pdb, in->methods);
  ASSERT_GT(truth.size(), 1000u);
  const LineIndexSection want = build_line_index(truth, kDocuments);
  ASSERT_EQ(want.entries, truth.size());

  for (unsigned threads : {1u, 2u}) {
    CacheBuildOptions opt;
    opt.threads = threads;
    opt.parallel_min_methods = 1;
    opt.parallel_min_blob_bytes = 0;
    auto chunks = encode_point_blocks(*in, opt);
    ASSERT_TRUE(chunks) << chunks.error().message;
    if (threads > 1) {
      ASSERT_GT(chunks->size(), 1u);
    }
    // 1 byte: every document a range of its own, in bands of lines of one point or one line;
    // 50 points: documents in bands of lines; 200 points: a few documents per range; the
    // default: one range, and no counting pass.
    for (std::size_t budget : {std::size_t(1), 50 * kLineIndexBytesPerPoint, 200 * kLineIndexBytesPerPoint,
                               kLineIndexRangeBytes}) {
      SCOPED_TRACE(testing::Message() << "threads " << threads << ", budget " << budget);
      expect_same(build_line_index_from_blocks(*chunks, kDocuments, budget), want);
    }
  }
}

// pack_line_index packs the tables and data where they lie (the builder leaves room for the
// tables in front of the data): the same frame as packing a copy of the whole content, after
// which the section holds its frame alone.
TEST(LineIndexRanges, PackedInPlaceAsACopyWouldBeAndThenFreed) {
  std::vector<LinePoint> points;
  for (std::uint32_t row = 1; row <= 400; ++row)
    for (std::uint32_t k = 0; k < 30; ++k) points.push_back({row % 5, 1 + (row * 7 + k) % 300, 1 + k % 3, row, k});
  LineIndexSection index = build_line_index(points, 5);
  std::vector<std::uint8_t> content(line_index_content_size(index));
  line_index_content(index, content.data());
  const std::span<const std::uint8_t> copy_frame = zstd_pack(content);
  ASSERT_FALSE(copy_frame.empty());
  const std::vector<std::uint8_t> want(copy_frame.begin(), copy_frame.end());
  pack_line_index(index);
  ASSERT_TRUE(index.packed());
  EXPECT_EQ(std::vector<std::uint8_t>(index.frame_bytes().begin(), index.frame_bytes().end()), want);
  EXPECT_EQ(index.content.size(), 0u);  // the unpacked bytes are gone
  EXPECT_EQ(index.bytes(), want.size() + 64);
}

}  // namespace
}  // namespace ilmap::test
