// ProfilePlanner.h - which block profiles go into the profile table, and which profile each
// point block is written in.
//
// Implements "what ilmap writes" of SPEC.md 5.1: the distinct own profiles of the blocks are
// ranked by weight, light ones are folded into a heavier profile that dominates them, and when
// more than the table's entries remain, the heaviest keep an entry and the rest share their
// fieldwise maximum. Every block then names a table entry, so a lookup always takes its profile
// from the table, a branch that never mispredicts.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/PointEncoder.h"

namespace ilmap {

// Where the block profiles go (SPEC.md 5.1).
struct ProfilePlan {
  std::vector<std::uint64_t> table;    // Cache.block_profiles
  std::vector<std::uint8_t> index;     // Cache.block_profile_index (row r at r - 1)
  std::vector<std::uint64_t> written;  // per block, in row order: the profile it is written in (0: its own, in front)
  std::uint64_t inline_blocks = 0;     // blocks that keep their profile in front
  std::uint64_t rewritten = 0;         // blocks to write again in a wider profile of the table
};

// The profile table of at most N = `table_entries` entries (clamped to 1..255) for the blocks of
// `chunks` (rows 1..methods). By default every block names a table entry: folding first; then,
// when at most N distinct profiles remain, each is in the table; otherwise the N - 1 that weigh
// most (records plus 8 per block; equal weights: earlier first use) and the fieldwise maximum of
// all the others, and a block of another profile is written in the first entry that dominates
// its own in order of bits per visible record, bits per hidden record, header bits, then rank.
// With `rare_in_blocks` (tests use it to make caches with both kinds of block), the table holds
// the at most N most used profiles used twice or more (equal counts: earlier first use) and
// every other block keeps its own in front. Either way the table is in order of first use by
// ascending row.
ProfilePlan plan_profiles(const std::vector<BlockChunk>& chunks, std::uint32_t methods, bool rare_in_blocks,
                          unsigned table_entries);

}  // namespace ilmap
