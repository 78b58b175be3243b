// LineIndexFromBlocks.h - the reverse line index (SPEC.md section 3.7) built from the encoded
// point blocks, a range of documents at a time, in memory bounded by a budget rather than by
// the PDB's point count.
//
// The encoder keeps nothing per point for the index: this reads each visible record's document,
// line and column back from the blocks (the chunks of PointEncoder.h, in their own profiles),
// in (row, ordinal) order, for the documents of one range, and hands them to LineIndexBuilder.
// Ranges are cut so that the points of one range take at most `range_bytes` while they are
// sorted and encoded; a single document with more points is indexed alone, in bands of its
// lines (LineIndexBuilder::add_part), each within the budget unless one narrow bucket of lines
// holds more.
// docs/architecture.md ("Memory") gives the whole build's bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "compiler/LineIndexWriter.h"
#include "compiler/PointEncoder.h"

namespace ilmap {

// What one point of a range costs at most while the range is indexed: its LinePoint (20
// bytes), its place in the sort order (4), the counting sort's buckets (at most 4 per point
// and 4096 more, 4 bytes each: 16) and its encoded entry (at most 16) until it is appended.
inline constexpr std::size_t kLineIndexBytesPerPoint = 56;

// The default budget of one range: 32 MiB (about 600,000 points).
inline constexpr std::size_t kLineIndexRangeBytes = std::size_t(32) << 20;

// The line index of the visible points in `chunks` (encode_point_blocks' output); documents
// of the cache: `documents`. The bytes do not depend on `range_bytes`.
LineIndexSection build_line_index_from_blocks(const std::vector<BlockChunk>& chunks, std::uint32_t documents,
                                              std::size_t range_bytes = kLineIndexRangeBytes);

}  // namespace ilmap
