// LineIndex.cpp - encodes the reverse line index (SPEC.md section 3.7, layout in
// schema/ilmap_lines_format.h): sort, cut into blocks of kLineBlockEntries, delta-code.
#include "LineIndex.h"

#include <algorithm>
#include <cstring>

#include "ZstdPack.h"
#include "ilmap_lines_format.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

void put_leb(std::vector<std::uint8_t>& out, std::uint32_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(v));
}

}  // namespace

LineIndexSection build_line_index(std::vector<LinePoint>& points, std::uint32_t documents) {
  std::sort(points.begin(), points.end(), [](const LinePoint& a, const LinePoint& b) {
    if (a.document != b.document) return a.document < b.document;
    if (a.line != b.line) return a.line < b.line;
    if (a.column != b.column) return a.column < b.column;
    if (a.row != b.row) return a.row < b.row;
    return a.ordinal < b.ordinal;
  });
  LineIndexSection s;
  s.doc_blocks.reserve(std::size_t(documents) + 1);
  s.data.reserve(points.size() * 2);
  std::size_t i = 0;
  for (std::uint32_t d = 0; d < documents; ++d) {
    s.doc_blocks.push_back(static_cast<std::uint32_t>(s.blocks.size()));
    while (i < points.size() && points[i].document == d) {
      std::size_t n = 0;
      while (i + n < points.size() && points[i + n].document == d && n < f::kLineBlockEntries) ++n;
      const LinePoint* p = &points[i];
      s.blocks.emplace_back(p[0].line, static_cast<std::uint32_t>(s.data.size()));
      s.data.push_back(static_cast<std::uint8_t>(n));
      put_leb(s.data, p[0].row);
      put_leb(s.data, p[0].ordinal);
      for (std::size_t k = 1; k < n; ++k) {
        const LinePoint& a = p[k - 1];
        const LinePoint& b = p[k];
        const std::uint32_t dl = b.line - a.line;
        unsigned kind;
        if (b.row == a.row) {
          kind = b.ordinal == a.ordinal + 1 ? f::kLineNext : f::kLineOrdinal;
        } else {
          kind = b.ordinal == 0 ? f::kLineRowFirst : f::kLineRow;
        }
        s.data.push_back(static_cast<std::uint8_t>(kind | std::min<std::uint32_t>(dl, f::kLineDeltaEscape) << 2));
        if (dl >= f::kLineDeltaEscape) put_leb(s.data, dl - f::kLineDeltaEscape);
        if (kind == f::kLineOrdinal) put_leb(s.data, b.ordinal);
        if (kind == f::kLineRow || kind == f::kLineRowFirst)
          put_leb(s.data, f::zigzag(std::int64_t(b.row) - std::int64_t(a.row)));
        if (kind == f::kLineRow) put_leb(s.data, b.ordinal);
      }
      i += n;
    }
  }
  s.doc_blocks.push_back(static_cast<std::uint32_t>(s.blocks.size()));
  s.entries = i;
  return s;
}

std::size_t line_index_content_size(const LineIndexSection& index) {
  return index.doc_blocks.size() * 4 + index.blocks.size() * 4 + index.data.size();
}

void line_index_content(const LineIndexSection& index, std::uint8_t* out) {
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
  if (!index.data.empty()) std::memcpy(out, index.data.data(), index.data.size());
}

flatbuffers::Offset<fb::LineIndex> write_line_index(flatbuffers::FlatBufferBuilder& fbb, const LineIndexSection& index) {
  // Format 2.0 (SPEC.md 3.7): the three vectors as one zstd frame when that is smaller. The
  // lookups by line unpack it once; a frame of a few KB unpacks in microseconds.
  PackScratch& scratch = pack_scratch();
  const std::size_t n = line_index_content_size(index);
  std::span<const std::uint8_t> frame;
  if (std::uint8_t* content = scratch.get(0, n)) {
    line_index_content(index, content);
    frame = zstd_pack({content, n});
  }
  const bool packed = !frame.empty();
  flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> frame_vec;
  if (packed) frame_vec = fbb.CreateVector(frame.data(), frame.size());
  scratch.trim();
  if (packed) {
    fb::LineIndexBuilder b(fbb);
    b.add_entry_count(index.entries);
    b.add_index_zstd(frame_vec);
    return b.Finish();
  }
  auto doc_blocks = fbb.CreateVector(index.doc_blocks);
  auto blocks = fbb.CreateVectorOfStructs(index.blocks);
  auto data = fbb.CreateVector(index.data);
  return fb::CreateLineIndex(fbb, doc_blocks, blocks, data, index.entries);
}

}  // namespace ilmap
