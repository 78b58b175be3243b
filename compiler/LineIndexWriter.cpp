// LineIndexWriter.cpp - encodes the reverse line index (SPEC.md section 3.7, layout in
// format/ilmap_lines_format.h): sort, cut into blocks of kLineBlockEntries, delta-code.
#include "compiler/LineIndexWriter.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "support/ZstdPack.h"
#include "format/ilmap_lines_format.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

bool before(const LinePoint& a, const LinePoint& b) {
  if (a.document != b.document) return a.document < b.document;
  if (a.line != b.line) return a.line < b.line;
  if (a.column != b.column) return a.column < b.column;
  if (a.row != b.row) return a.row < b.row;
  return a.ordinal < b.ordinal;
}

// The order of the points in the index (document, line, column, row, ordinal), as positions
// into `points`, and where each document's points end in it. The builder hands the points over
// in (row, ordinal) order, so a stable sort by (document, line, column) is enough: a counting
// sort by (document, line), each document's lines from its lowest to its highest, then each run
// of one line by column. That is a few linear passes where a comparison sort took most of a
// compile (100k points: 4 ms of 5), and positions (4 bytes each) instead of a sorted copy of the
// points (20 bytes each): in a short-lived process every fresh page is a fault. The documents'
// ends come from the buckets' bounds, without reading the points again. Inputs
// in another order, or whose line ranges are much wider than their point counts, take a
// comparison sort. Only documents [d0, d1) are indexed (their arrays are d1 - d0 long, so a
// range costs what its own documents do); points of other documents are left out of doc_end.
struct Order {
  ScratchVector<std::uint32_t> order;
  std::vector<std::uint32_t> doc_end;  // doc_end[d - d0]: end of document d's points in `order`
  std::size_t first = 0;               // where document d0's points begin in `order`
};

Order sorted_order(std::span<const LinePoint> points, std::uint32_t d0, std::uint32_t d1) {
  const std::size_t n = points.size();
  const std::uint32_t documents = d1 - d0;
  Order o;
  ScratchVector<std::uint32_t>& order = o.order;
  order.resize(n);
  o.doc_end.assign(documents, 0);
  std::vector<std::uint32_t> lo(documents, UINT32_MAX), hi(documents, 0);
  bool in_row_order = n <= UINT32_MAX;
  for (std::size_t i = 0; i < n && in_row_order; ++i) {
    const LinePoint& p = points[i];
    if (p.document < d0 || p.document >= d1) {
      in_row_order = false;
      break;
    }
    const std::uint32_t d = p.document - d0;
    lo[d] = std::min(lo[d], p.line);
    hi[d] = std::max(hi[d], p.line);
    if (i && (p.row < points[i - 1].row || (p.row == points[i - 1].row && p.ordinal <= points[i - 1].ordinal)))
      in_row_order = false;
  }
  // off[d]: the bucket of line L of document d0 + d is off[d] + L (modulo 2^64: L >= lo[d]).
  std::vector<std::uint64_t> off(documents, 0);
  std::uint64_t buckets = 0;
  for (std::uint32_t d = 0; d < documents; ++d) {
    off[d] = buckets - lo[d];
    if (lo[d] <= hi[d]) buckets += std::uint64_t(hi[d]) - lo[d] + 1;
  }
  if (!in_row_order || buckets > 4 * std::uint64_t(n) + 4096) {
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return before(points[a], points[b]); });
    // Points outside the range sort before or after it: skip those before.
    std::size_t skip = 0;
    for (const LinePoint& p : points) {
      if (p.document < d0) ++skip;
      else if (p.document < d1) ++o.doc_end[p.document - d0];
    }
    o.first = skip;
    if (documents) o.doc_end[0] += static_cast<std::uint32_t>(skip);
    for (std::uint32_t d = 1; d < documents; ++d) o.doc_end[d] += o.doc_end[d - 1];
    return o;
  }
  ScratchVector<std::uint32_t> start(static_cast<std::size_t>(buckets) + 1, 0);
  auto bucket = [&](const LinePoint& p) { return static_cast<std::size_t>(off[p.document - d0] + p.line); };
  for (const LinePoint& p : points) ++start[bucket(p) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  for (std::size_t i = 0; i < n; ++i) order[start[bucket(points[i])]++] = static_cast<std::uint32_t>(i);  // stable
  // Now start[b] is where bucket b ends (and b + 1 begins).
  for (std::uint32_t d = 0; d < documents; ++d)
    o.doc_end[d] = lo[d] <= hi[d] ? start[static_cast<std::size_t>(off[d] + hi[d])] : d ? o.doc_end[d - 1] : 0;
  // Runs of one (document, line): by column, stably (row order kept for equal columns).
  auto column_less = [&](std::uint32_t a, std::uint32_t b) { return points[a].column < points[b].column; };
  for (std::size_t i = 0; i < n;) {
    const LinePoint& first = points[order[i]];
    std::size_t j = i + 1;
    while (j < n && points[order[j]].line == first.line && points[order[j]].document == first.document) ++j;
    if (j - i > 16) {
      std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(i), order.begin() + static_cast<std::ptrdiff_t>(j), column_less);
    } else {
      for (std::size_t k = i + 1; k < j; ++k) {
        const std::uint32_t v = order[k];
        std::size_t m = k;
        for (; m > i && column_less(v, order[m - 1]); --m) order[m] = order[m - 1];
        order[m] = v;
      }
    }
    i = j;
  }
  return o;
}

}  // namespace

LineIndexBuilder::LineIndexBuilder(std::uint32_t documents, std::uint64_t points) : documents_(documents) {
  s_.doc_blocks.reserve(std::size_t(documents) + 1);
  // The tables in front of the data: doc_blocks, 4 bytes per document and one more, and a
  // block's first line, 4 bytes per block; a document's points take ceil(n / 64) blocks, so
  // there are at most points / 64 + documents of them.
  s_.data_at = static_cast<std::size_t>(4 * (std::uint64_t(documents) + 1) + 4 * (points / f::kLineBlockEntries + documents));
  // Room for the data too, so that it is not copied to a larger buffer as it grows (a copy
  // held the data twice): 4 bytes per point, over twice what real and synthetic PDBs take
  // (1.5-2), though a point can take up to 16 (see add(); then the buffer grows as before). A
  // mapped block's untouched pages cost address space only; 16 bytes per point of address space
  // could be refused where memory is tight (Windows commits it; Linux with strict overcommit).
  s_.content.room(s_.data_at + static_cast<std::size_t>(points) * 4 + 4096);
  s_.content.set_size(s_.data_at);
}

namespace {

void put_leb(std::uint8_t*& out, std::uint32_t v) {
  while (v >= 0x80) {
    *out++ = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<std::uint8_t>(v);
}

}  // namespace

void LineIndexBuilder::start_document(std::uint64_t total) {
  s_.doc_blocks.push_back(static_cast<std::uint32_t>(s_.blocks.size()));
  doc_total_ = total;
  doc_done_ = 0;
  block_left_ = 0;
}

std::uint8_t* LineIndexBuilder::put_entry(const LinePoint& b, std::uint8_t* out, const std::uint8_t* begin,
                                          std::size_t base) {
  if (block_left_ == 0) {
    // A block: its entry count, then its first entry's row and ordinal; its first line and
    // offset go to the block table.
    const std::uint64_t left = doc_total_ > doc_done_ ? doc_total_ - doc_done_ : 1;
    const auto n = static_cast<unsigned>(std::min<std::uint64_t>(left, f::kLineBlockEntries));
    s_.blocks.emplace_back(b.line, static_cast<std::uint32_t>(base + static_cast<std::size_t>(out - begin)));
    *out++ = static_cast<std::uint8_t>(n);
    put_leb(out, b.row);
    put_leb(out, b.ordinal);
    block_left_ = n - 1;
  } else {
    const LinePoint& a = prev_;
    const std::uint32_t dl = b.line - a.line;
    unsigned kind;
    if (b.row == a.row) {
      kind = b.ordinal == a.ordinal + 1 ? f::kLineNext : f::kLineOrdinal;
    } else {
      kind = b.ordinal == 0 ? f::kLineRowFirst : f::kLineRow;
    }
    *out++ = static_cast<std::uint8_t>(kind | std::min<std::uint32_t>(dl, f::kLineDeltaEscape) << 2);
    if (dl >= f::kLineDeltaEscape) put_leb(out, dl - f::kLineDeltaEscape);
    if (kind == f::kLineOrdinal) put_leb(out, b.ordinal);
    if (kind == f::kLineRow || kind == f::kLineRowFirst)
      put_leb(out, static_cast<std::uint32_t>(f::zigzag(std::int64_t(b.row) - std::int64_t(a.row))));
    if (kind == f::kLineRow) put_leb(out, b.ordinal);
    --block_left_;
  }
  prev_ = b;
  ++doc_done_;
  ++s_.entries;
  return out;
}

void LineIndexBuilder::add(std::span<const LinePoint> points, std::uint32_t d1) {
  in_parts_ = false;
  const std::uint32_t d0 = static_cast<std::uint32_t>(s_.doc_blocks.size());
  d1 = std::min(d1, documents_);
  if (d1 <= d0) return;
  const Order sorted = sorted_order(points, d0, d1);
  // This range's blocks go into a buffer of the largest size they can take (a count byte and
  // two LEB128 values per block, a tag and three LEB128 values per entry: 16 bytes per point),
  // written through a pointer; it is left uninitialised, so only the pages written are touched.
  const std::size_t bound = points.size() * 16 + 16;
  std::uint8_t* const begin = s_.content.room(bound);
  std::uint8_t* out = begin;
  const std::size_t base = s_.content.size() - s_.data_at;  // where this range's bytes go in data
  std::size_t i = sorted.first;
  for (std::uint32_t d = d0; d < d1; ++d) {
    const std::size_t end = sorted.doc_end[d - d0];
    start_document(end - i);
    for (; i < end; ++i) out = put_entry(points[sorted.order[i]], out, begin, base);
  }
  s_.content.set_size(s_.content.size() + static_cast<std::size_t>(out - begin));
}

void LineIndexBuilder::add_part(std::span<const LinePoint> points, std::uint64_t total) {
  if (!in_parts_) {
    if (s_.doc_blocks.size() >= documents_) return;
    start_document(total);
    in_parts_ = true;
  }
  const std::uint32_t d = static_cast<std::uint32_t>(s_.doc_blocks.size() - 1);
  const Order sorted = sorted_order(points, d, d + 1);
  const std::size_t bound = points.size() * 16 + 16;
  std::uint8_t* const begin = s_.content.room(bound);
  std::uint8_t* out = begin;
  const std::size_t base = s_.content.size() - s_.data_at;
  for (std::size_t i = sorted.first; i < sorted.doc_end[0]; ++i) out = put_entry(points[sorted.order[i]], out, begin, base);
  s_.content.set_size(s_.content.size() + static_cast<std::size_t>(out - begin));
  if (doc_done_ >= doc_total_) in_parts_ = false;
}

LineIndexSection LineIndexBuilder::finish() {
  add({}, documents_);  // documents no range named: no points
  s_.doc_blocks.push_back(static_cast<std::uint32_t>(s_.blocks.size()));
  return std::move(s_);
}

LineIndexSection build_line_index(std::span<const LinePoint> points, std::uint32_t documents) {
  LineIndexBuilder b(documents, points.size());
  b.add(points, documents);
  return b.finish();
}

std::size_t line_index_content_size(const LineIndexSection& index) {
  return index.doc_blocks.size() * 4 + index.blocks.size() * 4 + index.data().size();
}

namespace {

// The two tables in front of the data (line_index_content without the data).
void put_tables(const LineIndexSection& index, std::uint8_t* out) {
  // doc_blocks, each block's first line as the difference from the block before's in the same
  // document (offsets are not stored: a reader finds them by walking the blocks), then data.
  // Differences instead of lines and no offsets make the frame about half as large.
  auto put = [&](std::uint32_t v) {
    for (int k = 0; k < 4; ++k) *out++ = static_cast<std::uint8_t>(v >> (8 * k));
  };
  for (std::uint32_t v : index.doc_blocks) put(v);
  for (std::size_t doc = 0; doc + 1 < index.doc_blocks.size(); ++doc) {
    std::uint32_t line = 0;
    for (std::uint32_t j = index.doc_blocks[doc]; j < index.doc_blocks[doc + 1]; ++j) {
      put(index.blocks[j].line() - line);
      line = index.blocks[j].line();
    }
  }
}

}  // namespace

void line_index_content(const LineIndexSection& index, std::uint8_t* out) {
  const std::size_t tables = (index.doc_blocks.size() + index.blocks.size()) * 4;
  put_tables(index, out);
  if (!index.data().empty()) std::memcpy(out + tables, index.data().data(), index.data().size());
}

void pack_line_index(LineIndexSection& index) {
  if (index.pack_tried) return;
  index.pack_tried = true;
  // SPEC.md 3.7, 3.8: the three vectors as one zstd frame when that is smaller. The tables go
  // into the room in front of the data, so the content is packed where it lies; an index
  // whose tables outgrew that room (not reached: the builder sizes it) is copied first. The
  // frame is written once, into the buffer the section keeps (only its pages are touched).
  const std::size_t tables = (index.doc_blocks.size() + index.blocks.size()) * 4;
  const std::size_t n = tables + index.data().size();
  if (n == 0) return;
  const std::uint8_t* content = nullptr;
  if (tables <= index.data_at) {
    std::uint8_t* const at = index.content.data() + (index.data_at - tables);
    put_tables(index, at);
    content = at;
  } else if (std::uint8_t* copy = pack_scratch().get(0, n)) {
    line_index_content(index, copy);
    content = copy;
  }
  if (content) {
    ByteBuffer frame;
    const std::size_t size = zstd_pack_into({content, n}, frame.room(zstd_pack_bound(n)));
    if (size) {
      frame.set_size(size);
      index.frame = std::move(frame);
      index.content.release();
      index.data_at = 0;
    }
  }
  pack_scratch().trim();
}

flatbuffers::Offset<fb::LineIndex> write_line_index(flatbuffers::FlatBufferBuilder& fbb, LineIndexSection& index) {
  pack_line_index(index);
  // The lookups by line unpack the frame once; a frame of a few KB unpacks in microseconds.
  if (index.packed()) {
    auto frame_vec = fbb.CreateVector(index.frame.data(), index.frame.size());
    fb::LineIndexBuilder b(fbb);
    b.add_entry_count(index.entries);
    b.add_index_zstd(frame_vec);
    return b.Finish();
  }
  auto doc_blocks = fbb.CreateVector(index.doc_blocks);
  auto blocks = fbb.CreateVectorOfStructs(index.blocks);
  auto data = fbb.CreateVector(index.data().data(), index.data().size());
  return fb::CreateLineIndex(fbb, doc_blocks, blocks, data, index.entries);
}

}  // namespace ilmap
