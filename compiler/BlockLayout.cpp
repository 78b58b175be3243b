// BlockLayout.cpp - block places, the method directory and the point_blocks bytes (see
// BlockLayout.h).
//
// SPEC.md sections 4, 5.1 (profile in front, or the block in a wider table profile) and 5.4.
#include "compiler/BlockLayout.h"

#include <algorithm>
#include <cstring>

#include "format/ilmap_format.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

}  // namespace

Result<BlockLayout> lay_out_blocks(const std::vector<BlockChunk>& chunks, const ProfilePlan& plan, std::uint32_t methods) {
  BlockLayout layout;
  std::vector<std::uint32_t>& offsets = layout.offsets;
  offsets.reserve(std::size_t(methods) + 1);
  offsets.push_back(0);
  std::uint64_t blocks_size = 0;
  std::size_t k = 0;
  for (const BlockChunk& c : chunks) {
    std::uint32_t prev = 0;
    for (std::uint32_t i = 0; i < c.ends.size(); ++i) {
      const std::uint32_t end = c.ends[i];
      if (end != prev) {
        const std::uint64_t w = plan.written[k];
        if (w == 0) {
          blocks_size += end - prev + f::kInlineProfileSize;
        } else if (w == c.profiles[k - c.first_block]) {
          blocks_size += end - prev;
        } else {
          blocks_size += block_size_in(w, c.counts[k - c.first_block]);
        }
        ++k;
      }
      prev = end;
      if (blocks_size > UINT32_MAX - f::kBlockTailPadding)
        return Error{Errc::kTooLarge, "point blocks exceed 4 GiB, the limit of the cache format"};
      offsets.push_back(static_cast<std::uint32_t>(blocks_size));
    }
    layout.points += c.total;
    layout.hidden += c.hidden;
  }
  layout.blocks_size = blocks_size;
  return layout;
}

Status write_point_blocks(std::vector<BlockChunk>& chunks, const ProfilePlan& plan, const BlockLayout& layout,
                          std::uint8_t* out) {
  std::size_t k = 0;
  std::uint8_t* const begin = out;
  for (BlockChunk& c : chunks) {
    // Copied, the chunk's blocks and their per-block vectors go at once: the blocks are held
    // twice one chunk at a time.
    struct Release {
      BlockChunk& c;
      ~Release() {
        c.blocks.release();
        std::vector<std::uint32_t>().swap(c.ends);
        std::vector<std::uint64_t>().swap(c.profiles);
        std::vector<std::uint64_t>().swap(c.counts);
      }
    } release{c};
    if (plan.inline_blocks == 0 && plan.rewritten == 0) {
      if (c.blocks.size()) std::memcpy(out, c.blocks.data(), c.blocks.size());
      out += c.blocks.size();
      continue;
    }
    // Block by block: one that keeps its profile gets it in front (widths word, codes byte);
    // one that the plan puts in a wider profile is encoded again, in that profile, in place.
    std::uint32_t prev = 0;
    for (std::uint32_t i = 0; i < c.ends.size(); ++i) {
      const std::uint32_t end = c.ends[i];
      if (end == prev) continue;
      const std::uint64_t own = c.profiles[k - c.first_block], w = plan.written[k++];
      if (w == 0) {
        for (unsigned b = 0; b < f::kInlineProfileSize; ++b) *out++ = static_cast<std::uint8_t>(own >> (8 * b));
      }
      if (w == 0 || w == own) {
        std::memcpy(out, c.blocks.data() + prev, end - prev);
        out += end - prev;
      } else {
        // The block is followed by the next ones or by the tail padding (16 bytes, zeroed
        // below): room for the 8 bytes of store slack the writer needs.
        out = rewrite_block(c.blocks.data() + prev, c.blocks.data() + end, own, w, out);
      }
      prev = end;
      if (static_cast<std::uint64_t>(out - begin) != layout.offsets[c.first + i])
        return Error{Errc::kMalformed, format("internal error: method row %u: its block is not of the planned size", c.first + i)};
    }
  }
  std::memset(out, 0, f::kBlockTailPadding);
  return {};
}

MethodDirectory build_directory(const std::vector<std::uint32_t>& offsets) {
  MethodDirectory dir;
  const std::size_t rows = offsets.size() - 1;
  dir.groups.reserve((rows + f::kGroupRows - 1) / f::kGroupRows);
  dir.ends.reserve(rows);
  for (std::size_t first = 0; first < rows; first += f::kGroupRows) {
    const std::size_t last = std::min(rows, first + f::kGroupRows);
    const std::uint32_t base = offsets[first];
    const bool wide = offsets[last] - base > 0xFFFF;
    dir.groups.emplace_back(base, wide ? static_cast<std::uint32_t>(dir.high.size()) : f::kGroupNarrow);
    for (std::size_t r = first; r < last; ++r) {
      const std::uint32_t rel = offsets[r + 1] - base;
      dir.ends.push_back(static_cast<std::uint16_t>(rel));
      if (wide) dir.high.push_back(static_cast<std::uint16_t>(rel >> 16));
    }
  }
  return dir;
}

std::vector<fb::HiddenPoint> hidden_points_of(const std::vector<BlockChunk>& chunks) {
  std::vector<fb::HiddenPoint> all;
  for (const BlockChunk& c : chunks) all.insert(all.end(), c.hidden_points.begin(), c.hidden_points.end());
  return all;
}

}  // namespace ilmap
