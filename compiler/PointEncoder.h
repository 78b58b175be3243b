// PointEncoder.h - the point blocks of a PDB: every method's sequence points encoded as one
// block (SPEC.md section 5), in chunks of consecutive method rows.
//
// encode_point_blocks gives each block in its own profile (5.1: its widths and the shortest
// length code of each header value); the profile planner (ProfilePlanner.h) then picks the
// table, and the blocks the plan puts in a wider profile are written again in it
// (rewrite_block) when they are copied into the cache (BlockLayout.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "compiler/BuildInput.h"
#include "compiler/CacheBuilder.h"
#include "compiler/ScratchBuffers.h"
#include "format/ilmap_format.h"
#include "ilmap/status.h"
#include "ilmap_generated.h"

namespace ilmap {

// A run of consecutive methods [first, last] and their encoded blocks; ends[i] is the end of
// method first+i's block within `blocks`.
struct BlockChunk {
  std::uint32_t first = 1, last = 0;
  ByteBuffer blocks;
  std::vector<std::uint32_t> ends;
  std::vector<std::uint64_t> profiles;  // of each block (methods with points), in row order
  std::vector<std::uint64_t> counts;    // of each block: V | H << 32
  std::vector<std::uint64_t> docs;      // of each block: lowest | highest document << 32 (freed once
                                        // the line index is built)
  std::size_t first_block = 0;          // index of the chunk's first block among all blocks
  std::vector<fb::HiddenPoint> hidden_points;  // SPEC.md 5.5, by (row, hidden)
  std::uint64_t total = 0, hidden = 0;
  Status status;
};

// The blocks of method rows 1..in.methods, in chunks of consecutive rows: one chunk, or several
// encoded by worker threads when opt.threads > 1 and the PDB is large enough to repay them
// (opt.parallel_min_methods, opt.parallel_min_blob_bytes). The chunks are in row order, so the
// bytes do not depend on the thread count. The first error of a row (in row order) fails all.
Result<std::vector<BlockChunk>> encode_point_blocks(const BuildInput& in, const CacheBuildOptions& opt);

// The six widths of a profile (SPEC.md 5.1) into `h`.
inline void set_profile_widths(disk::BlockHeader& h, std::uint64_t profile) {
  const auto w = static_cast<std::uint32_t>(profile);
  h.w_il = w & 31;
  h.w_col = w >> 5 & 31;
  h.w_ecol = w >> 10 & 31;
  h.w_line = w >> 15 & 31;
  h.w_dline = w >> 20 & 31;
  h.w_doc = w >> 25 & 31;
}

// Bytes of the header values in a profile's length codes.
inline unsigned profile_header_bytes(std::uint64_t profile) {
  unsigned n = 0;
  for (unsigned i = 0; i < 4; ++i) n += disk::code_bytes(static_cast<unsigned>(profile >> (32 + 2 * i) & 3));
  return n;
}

// Size of a block with counts V | H << 32 written in `profile` (SPEC.md 5.1, 5.2), the profile
// itself not included.
inline std::uint64_t block_size_in(std::uint64_t profile, std::uint64_t counts) {
  disk::BlockHeader h;
  h.visible = static_cast<std::uint32_t>(counts);
  h.hidden = static_cast<std::uint32_t>(counts >> 32);
  set_profile_widths(h, profile);
  return profile_header_bytes(profile) + h.records_bytes();
}

// Writes the block [src, end) of profile `own` (not in front of it) in profile `target`, which
// dominates it, at `out`; returns the end of the new block. The header values and every field
// keep their values (bases included), only widths and length codes grow. [src, end) must be
// followed by 8 readable bytes (the encoder's slack) and `out` by 8 writable ones.
std::uint8_t* rewrite_block(const std::uint8_t* src, const std::uint8_t* end, std::uint64_t own, std::uint64_t target,
                            std::uint8_t* out);

}  // namespace ilmap
