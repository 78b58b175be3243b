// ZstdPack.h - one zstd frame of a section's bytes (SPEC.md 3.8), for the sections that are
// not on the lookup path (line index, method names). Kept apart so that each section's writer
// packs with the same level and a per-thread context (creating a context per call costs more
// than packing a few KB).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ilmap {

// zstd level of the packed sections written by ilmap (SPEC.md 3.8: level 1).
inline constexpr int kPackZstdLevel = 1;

// Packs `bytes` into `out` (one frame, content size in its header); false when the frame would
// not be smaller than the bytes, when `bytes` is empty, or when zstd fails (the caller then
// stores the bytes as they are).
bool zstd_pack(std::span<const std::uint8_t> bytes, std::vector<std::uint8_t>& out);

}  // namespace ilmap
