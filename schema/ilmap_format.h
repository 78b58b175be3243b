// ilmap_format.h - the fixed parts of the cache format v1 that are not FlatBuffers: the 32-byte
// file header and the bit-packed point blocks. Shared by the writer (compiler/) and the reader
// (reader/). SPEC.md sections 2 and 5 describe the same bytes; keep them in step.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ilmap::disk {

// --- file header (SPEC.md section 2) --------------------------------------------------------
inline constexpr std::uint32_t kMagic = 0x1A4D4C49;          // bytes 'I' 'L' 'M' 0x1A
inline constexpr std::uint32_t kMagicSwapped = 0x494C4D1A;   // what a wrong-endian read sees
inline constexpr char kIdentifier[4] = {'I', 'L', 'M', 'P'};  // = FlatBuffers file_identifier
inline constexpr std::uint16_t kVersionMajor = 1;
inline constexpr std::uint16_t kVersionMinor = 0;
inline constexpr std::uint32_t kHeaderSize = 32;
// FlatBuffers offsets are signed 32-bit: a payload must stay below 2 GiB.
inline constexpr std::uint64_t kMaxPayloadSize = 0x7FFFFFFFu - 4096;

struct FileHeader {
  std::uint32_t magic;
  char identifier[4];
  std::uint16_t version_major;
  std::uint16_t version_minor;
  std::uint32_t header_size;
  std::uint64_t payload_size;
  std::uint64_t payload_xxh3;  // XXH3_64bits(payload, payload_size), seed 0
};
static_assert(sizeof(FileHeader) == kHeaderSize, "FileHeader must be 32 bytes");

// --- point blocks (SPEC.md section 5) -------------------------------------------------------
// A block: a fixed 4-byte widths word, header varints, then the IL column of the visible
// records, then the other fields of the visible records, then the hidden records, all one bit
// string (LSB first). IL column: V values of w_il bits. Visible record rest: line-base_line
// (w_line) column (w_col) end_line-line (w_dline) end_column (w_ecol) document-base_doc
// (w_doc). Hidden record: il (w_il) document-base_doc (w_doc). A width of 0 means the field is
// always 0 (plus its base).
inline constexpr std::size_t kBlockTailPadding = 8;  // zero bytes after the last block
inline constexpr unsigned kMaxFieldWidth = 31;
inline constexpr std::uint32_t kHasHiddenBit = 1u << 30;  // in the widths word
inline constexpr std::size_t kMaxBlockHeaderSize = 4 + 4 * 5;

struct BlockHeader {
  std::uint32_t visible = 0;
  std::uint32_t hidden = 0;
  std::uint32_t base_line = 0;
  std::uint32_t base_doc = 0;  // 0-based document index
  std::uint8_t w_il = 0, w_line = 0, w_col = 0, w_dline = 0, w_ecol = 0, w_doc = 0;
  unsigned visible_bits() const { return unsigned(w_il) + w_line + w_col + w_dline + w_ecol + w_doc; }
  unsigned rest_bits() const { return unsigned(w_line) + w_col + w_dline + w_ecol + w_doc; }
  unsigned hidden_bits() const { return unsigned(w_il) + w_doc; }
};

// Unsigned LEB128, at most 5 bytes for 32-bit values.
inline std::size_t put_varint(std::uint8_t* out, std::uint32_t v) {
  std::size_t n = 0;
  while (v >= 0x80) {
    out[n++] = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  out[n++] = static_cast<std::uint8_t>(v);
  return n;
}

// Bounds-checked LEB128 read from [p, end); false on overrun or > 32 bits. Needs 8 readable
// bytes at p when p < end (the block tail padding): the varint is decoded from one 8-byte load
// without a loop, so multi-byte values cost no mispredicted branches.
inline bool get_varint(const std::uint8_t*& p, const std::uint8_t* end, std::uint32_t& v) {
  if (p >= end) return false;
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
  const std::uint64_t stops = ~x & 0x8080808080808080ull;  // bytes without a continuation bit
  if (stops == 0) return false;
  const unsigned len = (static_cast<unsigned>(std::countr_zero(stops)) >> 3) + 1;  // 1..8
  if (len > 5 || len > static_cast<std::size_t>(end - p)) return false;
  if (len == 5 && (x >> 32 & 0xF0)) return false;  // above 32 bits
  x &= ~std::uint64_t(0) >> (64 - 8 * len);
  v = static_cast<std::uint32_t>((x & 0x7F) | (x >> 1 & 0x3F80) | (x >> 2 & 0x1FC000) |
                                 (x >> 3 & 0xFE00000) | (x >> 4 & 0xF0000000));
  p += len;
  return true;
}

// Header layout (SPEC.md 5.1): a 4-byte little-endian widths word (w_il bits 0-4, w_col 5-9,
// w_ecol 10-14, w_line 15-19, w_dline 20-24, w_doc 25-29, bit 30 = hidden records follow,
// bit 31 = 0), then varint visible, varint hidden (only when bit 30 is set), varint base_line,
// varint base_doc.
inline std::size_t put_block_header(std::uint8_t* out, const BlockHeader& h) {
  const std::uint32_t widths = std::uint32_t(h.w_il) | std::uint32_t(h.w_col) << 5 |
                               std::uint32_t(h.w_ecol) << 10 | std::uint32_t(h.w_line) << 15 |
                               std::uint32_t(h.w_dline) << 20 | std::uint32_t(h.w_doc) << 25 |
                               (h.hidden ? kHasHiddenBit : 0u);
  for (unsigned i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>(widths >> (8 * i));
  std::size_t n = 4;
  n += put_varint(out + n, h.visible);
  if (h.hidden) n += put_varint(out + n, h.hidden);
  n += put_varint(out + n, h.base_line);
  n += put_varint(out + n, h.base_doc);
  return n;
}

inline bool get_block_header(const std::uint8_t*& p, const std::uint8_t* end, BlockHeader& h) {
  if (end - p < 4) return false;
  const std::uint32_t widths = std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 |
                               std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
  p += 4;
  if (widths >> 31) return false;
  h.w_il = widths & 31;
  h.w_col = (widths >> 5) & 31;
  h.w_ecol = (widths >> 10) & 31;
  h.w_line = (widths >> 15) & 31;
  h.w_dline = (widths >> 20) & 31;
  h.w_doc = (widths >> 25) & 31;
  h.hidden = 0;
  if (!get_varint(p, end, h.visible)) return false;
  if ((widths & kHasHiddenBit) && (!get_varint(p, end, h.hidden) || h.hidden == 0)) return false;
  return get_varint(p, end, h.base_line) && get_varint(p, end, h.base_doc);
}

// Reads `width` (<= 31) bits at bit position `bit` of `base`. Needs 8 readable bytes from
// base + bit/8: guaranteed by the block tail padding.
inline std::uint32_t get_bits(const std::uint8_t* base, std::uint64_t bit, unsigned width) {
  std::uint64_t w;
  std::memcpy(&w, base + (bit >> 3), 8);
  w >>= (bit & 7);
  return static_cast<std::uint32_t>(w & ((std::uint64_t(1) << width) - 1));
}

// A decoded visible record (SPEC.md 5.2), bases applied; document is a 0-based index.
struct VisibleRecord {
  std::uint32_t il, line, column, end_line, end_column, document;
};

// IL offset of visible record `k` of a block whose bit string starts at `rec`.
inline std::uint32_t get_visible_il(const std::uint8_t* rec, std::uint64_t k, const BlockHeader& h) {
  return get_bits(rec, k * h.w_il, h.w_il);
}

// Decodes visible record `k` of a block whose bit string starts at `rec`.
inline VisibleRecord get_visible(const std::uint8_t* rec, std::uint64_t k, const BlockHeader& h) {
  VisibleRecord r;
  r.il = get_visible_il(rec, k, h);
  std::uint64_t bit = std::uint64_t(h.visible) * h.w_il + k * h.rest_bits();
  r.line = h.base_line + get_bits(rec, bit, h.w_line);
  bit += h.w_line;
  r.column = get_bits(rec, bit, h.w_col);
  bit += h.w_col;
  r.end_line = r.line + get_bits(rec, bit, h.w_dline);
  bit += h.w_dline;
  r.end_column = get_bits(rec, bit, h.w_ecol);
  bit += h.w_ecol;
  r.document = h.base_doc + get_bits(rec, bit, h.w_doc);
  return r;
}

inline unsigned bit_width(std::uint32_t v) { return static_cast<unsigned>(std::bit_width(v)); }

}  // namespace ilmap::disk
