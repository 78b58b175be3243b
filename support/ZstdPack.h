// ZstdPack.h - one zstd frame of a section's bytes (SPEC.md 3.8), for the sections that are
// not on the lookup path (line index, method names). Kept apart so that each section's writer
// packs with the same level and a per-thread context (creating a context per call costs more
// than packing a few KB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ilmap {

// zstd level of the packed sections written by ilmap (SPEC.md 3.8: level 1).
inline constexpr int kPackZstdLevel = 1;

// The hash table of the match finder, log2 of its entries. kPackSmallTable (2^10 entries: it
// stays in the L1 cache) packs the line index of a 100k-point PDB 1.5-2x faster than level 1's
// own table for the same size. The method names are megabytes of text that repeat over long
// distances: level 1's own table for large inputs (2^13) packs them smaller and in fewer
// instructions (BENCHMARKS.md, method names).
enum class PackTable : int { kSmall = 10, kLevelDefault = 13 };

// Per-thread scratch memory for a section's content and its frame, mapped outside the malloc
// heap and kept between builds (up to kKeepBytes each). Heap buffers of a few hundred KB, kept
// or not, changed the heap's layout enough that every later compile in the process returned
// megabytes to the system and faulted them in again (+50% compile time on a 100k-point PDB).
class PackScratch {
 public:
  PackScratch() = default;
  PackScratch(const PackScratch&) = delete;
  PackScratch& operator=(const PackScratch&) = delete;
  ~PackScratch();
  // At least n bytes of the content (slot 0) or frame (slot 1) buffer; nullptr when out of memory.
  std::uint8_t* get(int slot, std::size_t n);
  // Unmaps buffers grown beyond kKeepBytes.
  void trim();

 private:
  struct Map {
    std::uint8_t* p = nullptr;
    std::size_t size = 0;
  };
  Map maps_[2];
};

PackScratch& pack_scratch();

// Packs `bytes` into one zstd frame (content size in its header) in scratch slot 1; returns
// the frame, or an empty span when the frame would not be smaller than the bytes, when `bytes`
// is empty, or when zstd fails (the caller then stores the bytes as they are). `table`: the
// match finder's hash table (PackTable). The frame stays valid until the next call on this
// thread.
std::span<const std::uint8_t> zstd_pack(std::span<const std::uint8_t> bytes, PackTable table = PackTable::kSmall);

// The largest frame zstd_pack_into can write for n bytes.
std::size_t zstd_pack_bound(std::size_t n);

// As zstd_pack, but the frame goes to `out` (at least zstd_pack_bound(bytes.size()) bytes, of
// which only the frame's are written): its size, or 0 where zstd_pack gives an empty span. For a
// frame the caller keeps, so that it is not written twice (the scratch buffer and a copy).
std::size_t zstd_pack_into(std::span<const std::uint8_t> bytes, std::uint8_t* out, PackTable table = PackTable::kSmall);

}  // namespace ilmap
