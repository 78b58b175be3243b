// LineIndexWriter.h - the reverse line index of a cache (SPEC.md section 3.7): per
// document, every visible sequence point ordered by (start line, start column, method row,
// visible ordinal), delta-coded in small blocks with a block index of first lines, so that
// `ilmap lines` finds the points of a source line in O(log n).
//
// The builder reports each visible point it encodes (in
// whatever order its threads produce them), build_line_index sorts and encodes them, and
// write_line_index puts the table into the FlatBuffer. The index names points by (method row,
// visible ordinal in the row's block), not by IL offset or document strings, so it depends on
// no other section's encoding.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <span>
#include <vector>

#include "compiler/ScratchBuffers.h"
#include "ilmap_generated.h"

namespace ilmap {

// One visible point as the index needs it: its document (0-based), start line and column, the
// method row (1-based) and its ordinal among the row's visible records (0-based, IL order).
struct LinePoint {
  std::uint32_t document, line, column, row, ordinal;
};

// The visible points of a build, gathered while its blocks are encoded (one per visible point:
// 20 bytes each, so their storage comes from the scratch pool).
using LinePoints = ScratchVector<LinePoint>;

struct LineIndexSection {
  std::vector<std::uint32_t> doc_blocks;  // len(documents) + 1
  std::vector<fb::LineBlockRef> blocks;
  ScratchVector<std::uint8_t> data;
  std::uint64_t entries = 0;
  std::size_t bytes() const { return doc_blocks.size() * 4 + blocks.size() * sizeof(fb::LineBlockRef) + data.size() + 64; }
};

// Sorts `points` and encodes them. `documents` = len(Cache.documents); every point's document
// must be below it.
LineIndexSection build_line_index(std::span<const LinePoint> points, std::uint32_t documents);

// The content of LineIndex.index_zstd (SPEC.md 3.7): doc_blocks, the blocks' first lines as
// differences within each document, data.
std::size_t line_index_content_size(const LineIndexSection& index);
void line_index_content(const LineIndexSection& index, std::uint8_t* out);

// Writes the LineIndex table: `index_zstd` when packing makes it smaller, else the three vectors.
flatbuffers::Offset<fb::LineIndex> write_line_index(flatbuffers::FlatBufferBuilder& fbb, const LineIndexSection& index);

}  // namespace ilmap
