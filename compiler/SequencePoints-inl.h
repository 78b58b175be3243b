// SequencePoints-inl.h - the sequence-points blob grammar (PortablePdb-Metadata.md), as a
// template over the consumer of the decoded points so that the cache builder can take them
// without an intermediate vector. decode_sequence_points (SequencePoints.cpp) is the vector form.
//
//   Blob ::= header SequencePointRecord (SequencePointRecord | document-record)*
//   header ::= LocalSignature:u [InitialDocument:u  (only when MDI.Document is 0)]
//   record ::= dIL:u (nonzero after the first) dLines:u dCols:(dLines==0 ? u : s)
//              [hidden when dLines==dCols==0]  else dStartLine dStartCol
//              (u,u for the first non-hidden point; s,s deltas from the previous non-hidden)
//   document-record ::= 0:u Document:u
#pragma once

#include "ByteCursor.h"

namespace ilmap {

template <class Sink>
bool decode_sequence_points_to(std::span<const std::uint8_t> blob, std::uint32_t document,
                               std::uint32_t document_count, Sink&& sink, SpDecodeError& err) {
  if (blob.empty()) return true;
  const std::uint8_t* const begin = blob.data();
  const std::uint8_t* const end = begin + blob.size();
  const std::uint8_t* p = begin;
  const std::uint8_t* at = p;  // start of the value being read, for error positions
  unsigned width;
  auto fail = [&](SpError why) {
    err = {why, static_cast<std::size_t>(at - begin)};
    return false;
  };
  // Each read records where its value starts, then decodes it.
  auto get_u = [&](std::uint32_t& v) {
    at = p;
    return read_compressed_at(p, end, v, width);
  };
  auto get_s = [&](std::int32_t& v) {
    at = p;
    return read_compressed_signed_at(p, end, v);
  };

  std::uint32_t u = 0;
  std::int32_t s = 0;
  if (!get_u(u)) return fail(SpError::kTruncated);  // LocalSignature
  if (document == 0) {
    if (!get_u(document)) return fail(SpError::kTruncated);
    if (document == 0 || document > document_count) return fail(SpError::kBadDocument);
  }
  // A header must be followed by at least one record (System.Reflection.Metadata reads the
  // first IL offset unconditionally and fails on a header-only blob).
  at = p;
  if (p == end) return fail(SpError::kTruncated);
  std::int64_t il = 0;
  std::int64_t prev_line = -1;
  std::int64_t prev_col = 0;
  bool first = true;
  SequencePoint pt;
  while (p != end) {
    if (first) {
      if (!get_u(u)) return fail(SpError::kTruncated);
      il = u;
      first = false;
    } else {
      if (!get_u(u)) return fail(SpError::kTruncated);
      while (u == 0) {  // document record
        if (!get_u(document)) return fail(SpError::kTruncated);
        if (document == 0 || document > document_count) return fail(SpError::kBadDocument);
        if (!get_u(u)) return fail(SpError::kTruncated);
      }
      il += u;
      if (il > 0x7FFFFFFF) return fail(SpError::kOffsetOverflow);
    }
    std::uint32_t dlines = 0;
    std::int64_t dcols = 0;
    if (!get_u(dlines)) return fail(SpError::kTruncated);
    if (dlines == 0) {
      if (!get_u(u)) return fail(SpError::kTruncated);
      dcols = u;
    } else {
      if (!get_s(s)) return fail(SpError::kTruncated);
      dcols = s;
    }
    pt.il_offset = static_cast<std::uint32_t>(il);
    pt.document = document;
    if (dlines == 0 && dcols == 0) {
      pt.start_line = pt.end_line = kHiddenLine;
      pt.start_column = pt.end_column = 0;
      sink(pt);
      continue;
    }
    std::int64_t line, col;
    if (prev_line < 0) {
      if (!get_u(u)) return fail(SpError::kTruncated);
      line = u;
      if (!get_u(u)) return fail(SpError::kTruncated);
      if (u > 0xFFFF) return fail(SpError::kColumnOutOfRange);
      col = u;
    } else {
      if (!get_s(s)) return fail(SpError::kTruncated);
      line = prev_line + s;
      if (line < 0 || line >= kHiddenLine) return fail(SpError::kLineOutOfRange);
      if (!get_s(s)) return fail(SpError::kTruncated);
      col = prev_col + s;
      if (col < 0 || col >= 0xFFFF) return fail(SpError::kColumnOutOfRange);
    }
    const std::int64_t end_line = line + dlines;
    const std::int64_t end_col = col + dcols;
    if (end_line >= kHiddenLine) return fail(SpError::kLineOutOfRange);
    if (end_col < 0 || end_col >= 0xFFFF) return fail(SpError::kColumnOutOfRange);
    prev_line = line;
    prev_col = col;
    pt.start_line = static_cast<std::uint32_t>(line);
    pt.start_column = static_cast<std::uint16_t>(col);
    pt.end_line = static_cast<std::uint32_t>(end_line);
    pt.end_column = static_cast<std::uint16_t>(end_col);
    sink(pt);
  }
  return true;
}

}  // namespace ilmap
