// MsymFile.h - Mono's AOT sequence-point file (`.msym`): native offset -> IL offset per method.
//
// `mono --aot=msym-dir=DIR` writes DIR/<AOTID>/<Assembly>.msym (docs/msym.md, which is the
// normative description). All integers are Mono's variable-length integers: 7 bits a byte, low
// group first, high bit set when another byte follows, at most 4 bytes (28 bits).
//
//   file    := entry_count entry{entry_count}            (nothing may follow the last entry)
//   entry   := method_token method_index has_debug_data data_size data[data_size]
//   data    := point*                                    (exactly data_size bytes)
//   point   := zz(il_delta) zz(native_delta) [flags next_count next_index{next_count}]
//                                                        (the bracket only when has_debug_data)
// zz() is zigzag: 2n for n >= 0, -2n-1 for n < 0. Deltas are from the previous point of the same
// entry (from 0, 0 for the first). A point whose flags hold 2 (EXIT_IL) has IL offset 0xffffff.
//
// Lookup (the runtime's mono_seq_point_data_get_il_offset): the first entry whose token is the
// method's and whose index is the frame's (any index when the frame prints none, 0xffffff);
// then its points in file order while their native offset is <= the frame's: the last of them
// gives the IL offset. No such point (the offset lies before the first), no entry, or a negative
// IL offset (the method-entry point): no answer.
//
// Everything is checked at parse(), so lookups cannot fail. Memory is linear in the file size
// whatever the counts claim: an entry costs 24 bytes and takes at least 4 bytes of file, a
// point costs 8 and takes at least 2 (docs/msym.md section 4).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ilmap/status.h"

namespace ilmap {

class MsymFile {
 public:
  // The method index a frame without one stands for ("<0x.. + 0x..> in <..>:0"): any entry.
  static constexpr std::uint32_t kAnyIndex = 0xffffff;
  // The IL offset Mono gives a method's exit point (flags & 2); not a real offset.
  static constexpr std::int32_t kExitIlOffset = 0xffffff;
  // Files larger than this are refused (kTooLarge) before they are read.
  static constexpr std::uint64_t kMaxFileSize = std::uint64_t(256) << 20;

  struct Point {
    std::int32_t il_offset;
    std::int32_t native_offset;
  };
  struct Entry {
    std::uint32_t token, method_index;
    std::uint32_t first;      // its points: points()[first, first + count)
    std::uint32_t count : 31;  // below 2^31: a point takes 2 bytes of a file of at most 256 MiB
    std::uint32_t sorted : 1;  // native offsets non-decreasing in file order: binary search
  };

  // Errors: kTruncated (a value or an entry's data runs past the end), kMalformed (a 5-byte
  // integer, a point running past its entry's data, an offset outside 32 bits, bytes after the
  // last entry); each names the entry and the byte offset.
  static Result<MsymFile> parse(std::span<const std::uint8_t> bytes);

  // The IL offset of `native_offset` in method `token` (index `method_index`), by the rule above.
  std::optional<std::uint32_t> il_offset(std::uint32_t token, std::uint32_t method_index,
                                         std::uint32_t native_offset) const;

  const std::vector<Entry>& entries() const { return entries_; }
  std::span<const Point> points(const Entry& e) const { return {points_.data() + e.first, e.count}; }

 private:
  const Entry* find(std::uint32_t token, std::uint32_t method_index) const;

  std::vector<Entry> entries_;  // file order
  std::vector<Point> points_;
  // Entry numbers sorted by (token, file order) and by (token, method index, file order): the
  // first entry of a token, or of a (token, index) pair, is one binary search away.
  std::vector<std::uint32_t> by_token_, by_id_;
};

}  // namespace ilmap
