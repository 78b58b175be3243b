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

#include "support/ByteCursor.h"

namespace ilmap {

namespace sp_detail {

// The value of a one-byte signed compressed integer (lead byte < 0x80), by lead byte.
inline constexpr auto kSigned1 = [] {
  struct Table {
    std::int32_t v[256];
    constexpr std::int32_t operator[](std::size_t i) const { return v[i]; }
  } t{};
  for (std::uint32_t u = 0; u < 128; ++u) t.v[u] = static_cast<std::int32_t>((u >> 1) | ((0u - (u & 1)) << 6));
  return t;
}();

// One compressed unsigned integer at p (bounds-checked): the one-byte form inline, the others
// out of line. Leaves p unchanged on failure.
[[gnu::always_inline]] inline bool get_u(const std::uint8_t*& p, const std::uint8_t* end,
                                         std::uint32_t& v) noexcept {
  if (p < end && *p < 0x80) [[likely]] {
    v = *p++;
    return true;
  }
  const CompressedRead r = read_compressed_cold(p, end);
  if (!r.next) return false;
  v = r.value;
  p = r.next;
  return true;
}

// Signed form (ECMA-335 II.23.2: rotated, sign-extended from 6, 13 or 28 bits by width).
[[gnu::always_inline]] inline bool get_s(const std::uint8_t*& p, const std::uint8_t* end,
                                         std::int32_t& v) noexcept {
  if (p < end && *p < 0x80) [[likely]] {
    v = kSigned1[*p++];
    return true;
  }
  const CompressedRead r = read_compressed_cold(p, end);
  if (!r.next) return false;
  std::uint32_t x = r.value >> 1;
  if (r.value & 1) x |= r.width == 1 ? 0xFFFFFFC0u : r.width == 2 ? 0xFFFFE000u : 0xF0000000u;
  v = static_cast<std::int32_t>(x);
  p = r.next;
  return true;
}

}  // namespace sp_detail

// One function on purpose: this is the hot loop of every compile (most of its instructions under
// callgrind), and its cursor and running line/column state stay in registers across a blob.
// Sinks may have `reserve(n)`: it is called once per blob with an upper bound on the number of
// points (every point takes at least 3 bytes), so that they can store without capacity checks.
template <class Sink>
bool decode_sequence_points_to(std::span<const std::uint8_t> blob, std::uint32_t document,
                               std::uint32_t document_count, Sink&& sink, SpDecodeError& err) {
  if (blob.empty()) return true;
  const std::uint8_t* const begin = blob.data();
  const std::uint8_t* const end = begin + blob.size();
  const std::uint8_t* p = begin;
  const std::uint8_t* at = p;  // start of the value being read, for error positions
  auto fail = [&](SpError why) {
    err = {why, static_cast<std::size_t>(at - begin)};
    return false;
  };
// Each read records where its value starts, then decodes it; a failed read is kTruncated.
#define ILMAP_SP_GET_U(v)                                                    \
  do {                                                                       \
    at = p;                                                                  \
    if (!sp_detail::get_u(p, end, v)) return fail(SpError::kTruncated);      \
  } while (0)
#define ILMAP_SP_GET_S(v)                                                    \
  do {                                                                       \
    at = p;                                                                  \
    if (!sp_detail::get_s(p, end, v)) return fail(SpError::kTruncated);      \
  } while (0)

  if constexpr (requires { sink.reserve(std::size_t{}); }) sink.reserve(blob.size() / 3 + 1);
  std::uint32_t u = 0;
  std::int32_t s = 0;
  ILMAP_SP_GET_U(u);  // LocalSignature
  if (document == 0) {
    ILMAP_SP_GET_U(document);
    if (document == 0 || document > document_count) return fail(SpError::kBadDocument);
  }
  // A header must be followed by at least one record (System.Reflection.Metadata reads the
  // first IL offset unconditionally and fails on a header-only blob).
  at = p;
  if (p == end) return fail(SpError::kTruncated);
  // IL offsets stay <= 0x7FFFFFFF and deltas < 2^29: the sums fit 32 bits. Lines and columns
  // are checked as unsigned: a negative result wraps far above the limits.
  std::uint32_t il = 0;
  ILMAP_SP_GET_U(il);  // the first record's offset is absolute and may be 0
  std::uint32_t prev_line = 0, prev_col = 0;
  bool have_prev = false;
  SequencePoint pt;
  goto record_rest;
  for (;;) {
    if (p == end) break;
    // Fast path for the usual record: every value one byte, no document record, all checks
    // passing. It only commits on success; anything else (including every error) is decoded
    // again from the same byte by the general code below, which reports it.
    if (have_prev) {
      // Locals for the hot loop, so that they stay in registers.
      std::uint32_t fil = il, fline = prev_line, fcol = prev_col;
      const std::uint8_t* q = p;
      while (end - q >= 8) {
        std::uint64_t w;
        std::memcpy(&w, q, 8);  // hosts are little endian (checked in CMake)
        const std::uint32_t b0 = q[0], b1 = q[1], b2 = q[2];
        if ((w & 0x8080808080u) != 0 || b0 == 0 || fil + b0 > 0x7FFFFFFF) break;
        if ((b1 | b2) == 0) {  // hidden
          fil += b0;
          q += 3;
          pt.il_offset = fil;
          pt.document = document;
          pt.start_line = pt.end_line = kHiddenLine;
          pt.start_column = pt.end_column = 0;
          sink(pt);
          continue;
        }
        const std::uint32_t dcols = b1 ? static_cast<std::uint32_t>(sp_detail::kSigned1[b2]) : b2;
        const std::uint32_t line = fline + static_cast<std::uint32_t>(sp_detail::kSigned1[q[3]]);
        const std::uint32_t col = fcol + static_cast<std::uint32_t>(sp_detail::kSigned1[q[4]]);
        const std::uint32_t end_col = col + dcols;
        // Conservative limits (exact ones are checked by the general code): with line below
        // kHiddenLine - 128, line + dlines (< 128) is below kHiddenLine.
        if (!(line < kHiddenLine - 128 && col < 0xFFFF && end_col < 0xFFFF)) break;
        fil += b0;
        q += 5;
        fline = line;
        fcol = col;
        pt.il_offset = fil;
        pt.document = document;
        pt.start_line = line;
        pt.start_column = static_cast<std::uint16_t>(col);
        pt.end_line = line + b1;
        pt.end_column = static_cast<std::uint16_t>(end_col);
        sink(pt);
      }
      il = fil;
      prev_line = fline;
      prev_col = fcol;
      p = q;
      if (p == end) break;
    }
    ILMAP_SP_GET_U(u);
    while (u == 0) {  // document record
      ILMAP_SP_GET_U(document);
      if (document == 0 || document > document_count) return fail(SpError::kBadDocument);
      ILMAP_SP_GET_U(u);
    }
    il += u;
    if (il > 0x7FFFFFFF) return fail(SpError::kOffsetOverflow);
  record_rest: {
    std::uint32_t dlines = 0;
    std::uint32_t dcols = 0;  // two's complement when dlines != 0
    ILMAP_SP_GET_U(dlines);
    if (dlines == 0) {
      ILMAP_SP_GET_U(dcols);
    } else {
      ILMAP_SP_GET_S(s);
      dcols = static_cast<std::uint32_t>(s);
    }
    pt.il_offset = il;
    pt.document = document;
    if (dlines == 0 && dcols == 0) {
      pt.start_line = pt.end_line = kHiddenLine;
      pt.start_column = pt.end_column = 0;
      sink(pt);
      continue;
    }
    std::uint32_t line, col;
    if (!have_prev) {
      ILMAP_SP_GET_U(line);
      ILMAP_SP_GET_U(col);
      if (col > 0xFFFF) return fail(SpError::kColumnOutOfRange);
      have_prev = true;
    } else {
      ILMAP_SP_GET_S(s);
      line = prev_line + static_cast<std::uint32_t>(s);
      if (line >= kHiddenLine) return fail(SpError::kLineOutOfRange);
      ILMAP_SP_GET_S(s);
      col = prev_col + static_cast<std::uint32_t>(s);
      if (col >= 0xFFFF) return fail(SpError::kColumnOutOfRange);
    }
    const std::uint32_t end_line = line + dlines;  // < 2^30
    const std::uint32_t end_col = col + dcols;     // wraps when negative
    if (end_line >= kHiddenLine) return fail(SpError::kLineOutOfRange);
    if (end_col >= 0xFFFF) return fail(SpError::kColumnOutOfRange);
    prev_line = line;
    prev_col = col;
    pt.start_line = line;
    pt.start_column = static_cast<std::uint16_t>(col);
    pt.end_line = end_line;
    pt.end_column = static_cast<std::uint16_t>(end_col);
    sink(pt);
  }
  }
#undef ILMAP_SP_GET_U
#undef ILMAP_SP_GET_S
  return true;
}

}  // namespace ilmap
