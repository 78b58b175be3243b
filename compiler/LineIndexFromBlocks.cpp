// LineIndexFromBlocks.cpp - the line index read back from the point blocks, range by range
// (see LineIndexFromBlocks.h).
//
// A block's visible records (SPEC.md 5.2) are the IL column, then one bit string of records
// (line - base_line, column, line delta, end column, document - base_doc), in the block's own
// profile. Only line, column and document are read here. A block whose documents (the lowest
// and highest, which the encoder notes) miss the range is skipped unread.
#include "compiler/LineIndexFromBlocks.h"

#include <algorithm>

#include "format/ilmap_format.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

// Calls each(row, ordinal, document, line, column) for every visible record of every block in
// `chunks` whose document is in [d0, d1), in (row, ordinal) order.
template <class Each>
void for_each_visible(const std::vector<BlockChunk>& chunks, std::uint32_t d0, std::uint32_t d1, Each&& each) {
  for (const BlockChunk& c : chunks) {
    const std::uint8_t* const data = c.blocks.data();
    std::uint32_t prev = 0;
    std::size_t k = 0;  // the chunk's blocks, as the profiles number them
    for (std::uint32_t i = 0; i < c.ends.size(); ++i) {
      const std::uint32_t end = c.ends[i];
      if (end == prev) continue;
      const std::uint8_t* p = data + prev;
      prev = end;
      const std::uint64_t docs = c.docs[k], profile = c.profiles[k++];
      if (static_cast<std::uint32_t>(docs) >= d1 || docs >> 32 < d0) continue;  // documents of hidden points too
      const f::BlockLayout l = f::block_layout(profile);
      f::BlockHeader h;
      if (!f::get_block_header(p, data + end, l, h) || h.visible == 0) continue;  // the encoder wrote it
      const std::uint32_t row = c.first + i;
      // The bit string follows the IL column; a record is read by one load when it fits 56
      // bits (the 8 bytes of store slack after a block make the load safe), else by field.
      const std::uint8_t* const bits = p + std::size_t(h.visible) * l.il_bytes;
      std::uint64_t at = 0;
      for (std::uint32_t ordinal = 0; ordinal < h.visible; ++ordinal, at += l.rest_bits) {
        std::uint32_t line, column, doc;
        if (l.rest_bits <= 56) {
          const std::uint64_t r = f::load_le64(bits + (at >> 3)) >> (at & 7);
          line = static_cast<std::uint32_t>(r) & l.m_line;
          column = static_cast<std::uint32_t>(r >> l.at_col) & l.m_col;
          doc = static_cast<std::uint32_t>(r >> l.at_doc) & l.m_doc;
        } else {
          line = f::get_bits(bits, at, l.w_line);
          column = f::get_bits(bits, at + l.at_col, l.w_col);
          doc = f::get_bits(bits, at + l.at_doc, l.w_doc);
        }
        doc += h.base_doc;
        if (doc >= d0 && doc < d1) each(row, ordinal, doc, line + h.base_line, column);
      }
    }
  }
}

// Indexes document `d`, of `total` visible points, more than `range_points`, in parts
// (LineIndexBuilder::add_part): its lines are cut into kBands buckets of equal width between its
// lowest and highest line, and consecutive buckets into bands of at most `range_points` points
// (a bucket with more is a band of its own). Each band reads the blocks again.
void add_in_bands(const std::vector<BlockChunk>& chunks, std::uint32_t d, std::uint64_t total,
                  std::uint64_t range_points, LinePoints& points, LineIndexBuilder& builder) {
  constexpr std::uint64_t kBands = 65536;
  std::uint32_t lo = UINT32_MAX, hi = 0;
  for_each_visible(chunks, d, d + 1, [&](std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t line, std::uint32_t) {
    lo = std::min(lo, line);
    hi = std::max(hi, line);
  });
  if (lo > hi) return;
  const std::uint64_t span = std::uint64_t(hi) - lo + 1;
  auto bucket = [&](std::uint32_t line) { return static_cast<std::size_t>((std::uint64_t(line - lo) * kBands) / span); };
  std::vector<std::uint64_t> count(kBands, 0);
  for_each_visible(chunks, d, d + 1, [&](std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t line, std::uint32_t) {
    ++count[bucket(line)];
  });
  for (std::size_t b = 0; b < kBands;) {
    std::size_t e = b;
    std::uint64_t m = 0;
    while (e < kBands && (m == 0 || m + count[e] <= range_points)) m += count[e++];
    if (m) {
      points.clear();
      points.reserve(static_cast<std::size_t>(m));
      for_each_visible(chunks, d, d + 1, [&](std::uint32_t row, std::uint32_t ordinal, std::uint32_t doc,
                                             std::uint32_t line, std::uint32_t column) {
        const std::size_t k = bucket(line);
        if (k >= b && k < e) points.push_back({doc, line, column, row, ordinal});
      });
      builder.add_part(points, total);
    }
    b = e;
  }
}

}  // namespace

LineIndexSection build_line_index_from_blocks(const std::vector<BlockChunk>& chunks, std::uint32_t documents,
                                              std::size_t range_bytes) {
  std::uint64_t visible = 0;
  for (const BlockChunk& c : chunks) visible += c.total - c.hidden;
  const std::uint64_t range_points = std::max<std::uint64_t>(range_bytes / kLineIndexBytesPerPoint, 1);
  LineIndexBuilder builder(documents, visible);
  LinePoints points;
  auto add_range = [&](std::uint32_t d1, std::uint64_t n) {
    points.clear();
    points.reserve(static_cast<std::size_t>(n));
    for_each_visible(chunks, builder.next(), d1, [&](std::uint32_t row, std::uint32_t ordinal, std::uint32_t doc,
                                                     std::uint32_t line, std::uint32_t column) {
      points.push_back({doc, line, column, row, ordinal});
    });
    builder.add(points, d1);
  };
  if (visible <= range_points) {
    // Most PDBs: one range, and no pass to count each document's points.
    add_range(documents, visible);
    return builder.finish();
  }
  // Each document's visible points, then ranges of whole documents within the budget.
  std::vector<std::uint32_t> per_doc(documents, 0);
  for_each_visible(chunks, 0, documents,
                   [&](std::uint32_t, std::uint32_t, std::uint32_t doc, std::uint32_t, std::uint32_t) { ++per_doc[doc]; });
  std::uint64_t n = 0;
  for (std::uint32_t d = 0; d < documents; ++d) {
    if (per_doc[d] > range_points) {
      // A document with more points than a range: the documents before it, then it alone, in
      // bands of lines.
      if (builder.next() < d) add_range(d, n);
      n = 0;
      add_in_bands(chunks, d, per_doc[d], range_points, points, builder);
      continue;
    }
    if (n && n + per_doc[d] > range_points) {
      add_range(d, n);
      n = 0;
    }
    n += per_doc[d];
  }
  add_range(documents, n);
  LineIndexSection index = builder.finish();
  // The ranges' buffers (the points, their order and buckets, and the data's smaller copies as
  // it grew) would stay as the pool's spares, resident beside the packing of the index and the
  // cache's buffer, which they are too small to serve: they go now.
  LinePoints().swap(points);
  scratch_pool().trim();
  return index;
}

}  // namespace ilmap
