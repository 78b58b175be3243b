// SequencePoints.cpp - error texts and the vector form of the sequence-points decoder (the
// grammar itself is in SequencePoints-inl.h).
#include "decode/SequencePoints.h"

namespace ilmap {

const char* sp_error_text(SpError e) {
  switch (e) {
    case SpError::kNone: return "no error";
    case SpError::kTruncated: return "compressed integer truncated or invalid";
    case SpError::kBadDocument: return "document rid is 0 or beyond the Document table";
    case SpError::kOffsetOverflow: return "IL offset overflows";
    case SpError::kLineOutOfRange: return "line out of range (negative or >= 0xfeefee)";
    case SpError::kColumnOutOfRange: return "column out of range (> 0xffff)";
  }
  return "unknown";
}

bool decode_sequence_points(std::span<const std::uint8_t> blob, std::uint32_t document,
                            std::uint32_t document_count, std::vector<SequencePoint>& out,
                            SpDecodeError& err) {
  return decode_sequence_points_to(blob, document, document_count,
                                   [&out](const SequencePoint& p) { out.push_back(p); }, err);
}

}  // namespace ilmap
