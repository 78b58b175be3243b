// BlockLayout.h - the point blocks as the cache stores them: each row's place, the method
// directory over those places, and the bytes of Cache.point_blocks.
//
// Implements SPEC.md section 4 (the method directory: per 64 rows a base, per row a 16-bit end,
// the high halves apart for a group spanning 64 KiB or more), the placement of 5.1 (a block in
// its own profile carries it in front; one the plan puts in a wider profile is written again)
// and 5.4 (16 zero bytes after the last block). Blocks are stored in row order, back to back.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/PointEncoder.h"
#include "compiler/ProfilePlanner.h"
#include "ilmap/status.h"
#include "ilmap_generated.h"

namespace ilmap {

// Where each row's block ends in Cache.point_blocks, and what the blocks hold.
struct BlockLayout {
  std::vector<std::uint32_t> offsets;  // offsets[r]: end of row r's block; offsets[0] = 0
  std::uint64_t blocks_size = 0;       // bytes of all blocks, tail padding not included
  std::uint64_t points = 0, hidden = 0;
};

// Each block's size in the cache: as encoded, 5 bytes more when it keeps its profile in front,
// or, when the plan writes it in a wider table profile, the size that profile gives. Fails when
// the blocks would not fit the format's 4 GiB.
Result<BlockLayout> lay_out_blocks(const std::vector<BlockChunk>& chunks, const ProfilePlan& plan, std::uint32_t methods);

// Writes the blocks of `chunks` as `plan` and `layout` place them, then the tail padding, at
// `out` (layout.blocks_size + disk::kBlockTailPadding bytes). Each chunk's blocks, ends,
// profiles and counts are freed once copied (the chunks keep their hidden points and counts).
Status write_point_blocks(std::vector<BlockChunk>& chunks, const ProfilePlan& plan, const BlockLayout& layout,
                          std::uint8_t* out);

// The method directory (SPEC.md section 4) over block ends `offsets` (BlockLayout::offsets).
struct MethodDirectory {
  std::vector<fb::MethodGroup> groups;
  std::vector<std::uint16_t> ends, high;
};
MethodDirectory build_directory(const std::vector<std::uint32_t>& offsets);

// Every chunk's entries of Cache.hidden_points (SPEC.md 5.5), by (row, hidden).
std::vector<fb::HiddenPoint> hidden_points_of(const std::vector<BlockChunk>& chunks);

}  // namespace ilmap
