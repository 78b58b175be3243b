// SequencePoints.h - decoder of the Portable PDB sequence-points blob.
//
// Grammar: PortablePdb-Metadata.md "Sequence Points Blob"; value checks as in System.Reflection.
// Metadata's SequencePointCollection (offsets must not overflow, lines below 0xfeefee, columns
// below 0xffff, document rids nonzero). ilmap additionally requires document rids to exist.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ilmap/status.h"

namespace ilmap {

inline constexpr std::uint32_t kHiddenLine = 0xFEEFEE;

struct SequencePoint {
  std::uint32_t il_offset = 0;
  std::uint32_t start_line = 0;
  std::uint32_t end_line = 0;
  std::uint16_t start_column = 0;
  std::uint16_t end_column = 0;
  std::uint32_t document = 0;  // Document rid (1-based)
  bool hidden() const noexcept { return start_line == kHiddenLine; }
  friend bool operator==(const SequencePoint&, const SequencePoint&) = default;
};

// Pinned reasons a sequence-points blob is rejected (all map to Errc::kMalformed or
// Errc::kTruncated); tests assert them.
enum class SpError : std::uint8_t {
  kNone,
  kTruncated,          // a compressed integer runs past the blob end, or is invalid (111xxxxx)
  kBadDocument,        // document rid 0 or beyond the Document table
  kOffsetOverflow,     // IL offset sum exceeds 0x7fffffff
  kLineOutOfRange,     // a line is negative or >= 0xfeefee
  kColumnOutOfRange,   // a column is > 0xffff (start) or >= 0xffff (computed)
};
const char* sp_error_text(SpError e);

struct SpDecodeError {
  SpError reason = SpError::kNone;
  std::size_t blob_pos = 0;  // byte position within the blob where the bad value starts
};

// Appends the points of one method to `out`, in blob order. `document` is the
// MethodDebugInformation.Document column (0 = the blob names the initial document).
// On error `out` keeps the points decoded before the error and `err` says what and where.
bool decode_sequence_points(std::span<const std::uint8_t> blob, std::uint32_t document,
                            std::uint32_t document_count, std::vector<SequencePoint>& out,
                            SpDecodeError& err);

// The same grammar, handing each point to `sink(const SequencePoint&)` in blob order.
template <class Sink>
bool decode_sequence_points_to(std::span<const std::uint8_t> blob, std::uint32_t document,
                               std::uint32_t document_count, Sink&& sink, SpDecodeError& err);

}  // namespace ilmap

#include "decode/SequencePoints-inl.h"
