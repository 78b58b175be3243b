// ilmap_format.h - the fixed parts of the cache format that are not FlatBuffers: the 32-byte
// file header and the bit-packed point blocks. Shared by the writer (compiler/) and the reader
// (reader/). SPEC.md sections 2 and 5 describe the same bytes; keep them in step.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ilmap::disk {

// --- file header (SPEC.md section 2) --------------------------------------------------------
inline constexpr std::uint32_t kMagic = 0x1A4D4C49;          // bytes 'I' 'L' 'M' 0x1A
inline constexpr std::uint32_t kMagicSwapped = 0x494C4D1A;   // what a wrong-endian read sees
inline constexpr char kIdentifier[4] = {'I', 'L', 'M', 'P'};  // = FlatBuffers file_identifier
inline constexpr std::uint16_t kVersionMajor = 2;
inline constexpr std::uint16_t kVersionMinor = 1;  // 2.1: Identity.pdb_sha256, Cache.hidden_points, repeated IL offsets
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

// --- method names (SPEC.md section 3.6) -----------------------------------------------------
inline constexpr std::uint32_t kNameIterator = 1;      // MethodNameRef.flags: "+Name()" follows
inline constexpr std::uint32_t kNameBadSignature = 2;  // the parameter list is "(<bad signature>)"
inline constexpr std::uint32_t kNameMonoRewrite = 4;   // Mono text is the async kickoff's
inline constexpr std::uint32_t kNameFlagsMask = 7;
inline constexpr std::uint32_t kIndexAlias = 1;        // NameIndexEntry.flags: kickoff's key
inline constexpr std::uint32_t kIndexFlagsMask = 1;

// --- method directory (SPEC.md section 4) ---------------------------------------------------
inline constexpr std::uint32_t kGroupRows = 64;             // method rows per MethodGroup
inline constexpr std::uint32_t kGroupNarrow = 0xFFFFFFFFu;  // MethodGroup.high: no high halves

// --- point blocks (SPEC.md section 5) -------------------------------------------------------
// A block: the header values in the byte lengths its profile's codes give (the profile, an entry
// of Cache.block_profiles named by the row's Cache.block_profile_index, gives the field widths
// and the length codes), then
// the IL column of the visible records (V little-endian values of ceil(w_il / 8) bytes each:
// what a lookup searches, so it is byte-aligned), then one bit string (LSB first) of the other
// fields of the visible records followed by the hidden records.
// Visible record rest: line-base_line (w_line) column (w_col) end_line-line (w_dline)
// end_column (w_ecol) document-base_doc (w_doc). Hidden record: il (w_il) document-base_doc
// (w_doc). A width of 0 means the field is always 0 (plus its base).
inline constexpr std::size_t kBlockTailPadding = 16;  // zero bytes after the last block
inline constexpr std::size_t kInlineProfileSize = 5;  // widths word + codes byte, in the block
inline constexpr std::uint32_t kMaxProfiles = 255;       // entries of Cache.block_profiles
inline constexpr std::size_t kMaxBlockHeaderSize = kInlineProfileSize + 4 * 4;
// A profile (one u64 of Cache.block_profiles): bits 0-29 the widths word (w_il bits 0-4, w_col
// 5-9, w_ecol 10-14, w_line 15-19, w_dline 20-24, w_doc 25-29), bits 32-39 the length codes
// (bits 32-33 visible, 34-35 hidden, 36-37 base_line, 38-39 base_doc); other bits 0.
inline constexpr std::uint64_t kProfileBits = 0xFFFFFFFFFFull;  // widths word + codes
inline constexpr std::uint64_t kProfileReservedBits = ~(((std::uint64_t(1) << 30) - 1) | (std::uint64_t(0xFF) << 32));

struct BlockHeader {
  std::uint32_t visible = 0;
  std::uint32_t hidden = 0;
  std::uint32_t base_line = 0;
  std::uint32_t base_doc = 0;  // 0-based document index
  std::uint8_t w_il = 0, w_line = 0, w_col = 0, w_dline = 0, w_ecol = 0, w_doc = 0;
  unsigned il_bytes() const { return (unsigned(w_il) + 7) / 8; }  // IL column entry size, 0..4
  unsigned rest_bits() const { return unsigned(w_line) + w_col + w_dline + w_ecol + w_doc; }
  unsigned hidden_bits() const { return unsigned(w_il) + w_doc; }
  std::uint64_t column_bytes() const { return std::uint64_t(visible) * il_bytes(); }
  std::uint64_t packed_bits() const { return std::uint64_t(visible) * rest_bits() + std::uint64_t(hidden) * hidden_bits(); }
  // Bytes after the header: the IL column, then the bit string rounded up to a byte.
  std::uint64_t records_bytes() const { return column_bytes() + (packed_bits() + 7) / 8; }
};

// Length code of a header value (SPEC.md 5.1): 0 -> the value is 0 and takes no byte, 1 -> one
// byte, 2 -> two bytes, 3 -> four bytes (little endian). The writer always picks the shortest.
inline unsigned length_code(std::uint32_t v) { return v == 0 ? 0u : v < 0x100 ? 1u : v < 0x10000 ? 2u : 3u; }
constexpr unsigned code_bytes(unsigned code) { return (1u << code) >> 1; }  // 0, 1, 2, 4
inline constexpr std::uint32_t kCodeMask[4] = {0, 0xFF, 0xFFFF, 0xFFFFFFFF};  // a value's bits, per code

// Where the header values lie, per codes byte (bits 32-39 of a profile): bits 0-7, 8-15 and
// 16-23 the byte offsets of hidden, base_line and base_doc (visible is at 0), bits 24-31 the
// size of the four. One load instead of four lengths added up.
inline constexpr std::array<std::uint32_t, 256> kValueLayout = [] {
  std::array<std::uint32_t, 256> t{};
  for (unsigned c = 0; c < 256; ++c) {
    const unsigned o1 = code_bytes(c & 3), o2 = o1 + code_bytes(c >> 2 & 3), o3 = o2 + code_bytes(c >> 4 & 3);
    t[c] = o1 | o2 << 8 | o3 << 16 | (o3 + code_bytes(c >> 6)) << 24;
  }
  return t;
}();

// Hosts are little endian (CMake refuses others), so a little-endian load is a memcpy.
inline std::uint64_t load_le64(const std::uint8_t* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}
inline std::uint32_t load_le32(const std::uint8_t* p) {
  std::uint32_t x;
  std::memcpy(&x, p, 4);
  return x;
}
inline std::uint32_t load_le16(const std::uint8_t* p) { return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8; }

// The profile of a header: its widths and the shortest length code of each value.
inline std::uint64_t block_profile(const BlockHeader& h) {
  const std::uint32_t widths = std::uint32_t(h.w_il) | std::uint32_t(h.w_col) << 5 |
                               std::uint32_t(h.w_ecol) << 10 | std::uint32_t(h.w_line) << 15 |
                               std::uint32_t(h.w_dline) << 20 | std::uint32_t(h.w_doc) << 25;
  const unsigned codes = length_code(h.visible) | length_code(h.hidden) << 2 | length_code(h.base_line) << 4 |
                         length_code(h.base_doc) << 6;
  return std::uint64_t(widths) | std::uint64_t(codes) << 32;
}

// Writes the header values of `h` (V, H, base_line, base_doc in the lengths of its profile's
// codes), without the profile index, which the writer puts in front once the profile table is
// known; returns the bytes written (0 to 16).
// `codes` (bits 32-39 of a profile, shifted down) gives each value's length; every value must
// fit the length its code gives (a writer may use a longer code than the shortest).
inline std::size_t put_block_values(std::uint8_t* out, const BlockHeader& h, unsigned codes) {
  const std::uint32_t values[4] = {h.visible, h.hidden, h.base_line, h.base_doc};
  std::size_t n = 0;
  for (unsigned f = 0; f < 4; ++f) {
    const unsigned c = codes >> (2 * f) & 3;
    for (unsigned i = 0; i < code_bytes(c); ++i) out[n++] = static_cast<std::uint8_t>(values[f] >> (8 * i));
  }
  return n;
}
inline std::size_t put_block_values(std::uint8_t* out, const BlockHeader& h) {
  return put_block_values(out, h, static_cast<unsigned>(block_profile(h) >> 32));
}

// A profile decoded once (SPEC.md 5.1): its widths, where its header values lie and their
// masks, and the sizes a record needs. A reader decodes its table's profiles at open, so a
// lookup reads them with no shifting or adding of widths; an inline profile is decoded per block.
struct BlockLayout {  // no default member initialisers: a reader's scratch layout costs no stores
  std::uint32_t mask[4];  // bits of V, H, base_line, base_doc
  std::uint8_t at[4];     // byte offset of each value in the header (at[0] = 0)
  std::uint8_t size;      // bytes of the four values
  std::uint8_t w_il, w_line, w_col, w_dline, w_ecol, w_doc;
  std::uint8_t il_bytes;     // IL column entry size, 0..4
  std::uint8_t rest_bits;    // bits of a visible record's rest (at most 155)
  std::uint8_t hidden_bits;  // bits of a hidden record
  bool ok;                   // no reserved bit set
  // For a lookup's one-load decode of a visible record's rest (rest_bits <= 57): where col,
  // dline, ecol and doc start in it (line starts at 0), and each field's mask (kLowBits).
  std::uint8_t at_col, at_dline, at_ecol, at_doc;
  std::uint32_t m_line, m_col, m_dline, m_ecol, m_doc;
  // Bits of the header values (8 * size) and of a visible record with its IL entry
  // (8 * il_bytes + rest_bits): a block's header and records fit in B bytes exactly when
  // header_bits + V * visible_bits + H * hidden_bits <= 8 * B (SPEC.md 5.2's size, in bits).
  std::uint32_t header_bits, visible_bits;
};

inline BlockLayout block_layout(std::uint64_t profile) {
  BlockLayout l{};
  const std::uint32_t widths = static_cast<std::uint32_t>(profile);
  const unsigned codes = static_cast<unsigned>(profile >> 32) & 0xFF;
  l.w_il = widths & 31;
  l.w_col = (widths >> 5) & 31;
  l.w_ecol = (widths >> 10) & 31;
  l.w_line = (widths >> 15) & 31;
  l.w_dline = (widths >> 20) & 31;
  l.w_doc = (widths >> 25) & 31;
  const std::uint32_t layout = kValueLayout[codes];
  for (unsigned f = 0; f < 4; ++f) l.mask[f] = kCodeMask[codes >> (2 * f) & 3];
  l.at[1] = layout & 0xFF;
  l.at[2] = layout >> 8 & 0xFF;
  l.at[3] = layout >> 16 & 0xFF;
  l.size = static_cast<std::uint8_t>(layout >> 24);
  l.il_bytes = static_cast<std::uint8_t>((l.w_il + 7) / 8);
  l.rest_bits = static_cast<std::uint8_t>(l.w_line + l.w_col + l.w_dline + l.w_ecol + l.w_doc);
  l.hidden_bits = static_cast<std::uint8_t>(l.w_il + l.w_doc);
  l.ok = (profile & kProfileReservedBits) == 0;
  l.at_col = l.w_line;
  l.at_dline = static_cast<std::uint8_t>(l.at_col + l.w_col);
  l.at_ecol = static_cast<std::uint8_t>(l.at_dline + l.w_dline);
  l.at_doc = static_cast<std::uint8_t>(l.at_ecol + l.w_ecol);
  l.m_line = (std::uint32_t(1) << l.w_line) - 1;
  l.m_col = (std::uint32_t(1) << l.w_col) - 1;
  l.m_dline = (std::uint32_t(1) << l.w_dline) - 1;
  l.m_ecol = (std::uint32_t(1) << l.w_ecol) - 1;
  l.m_doc = (std::uint32_t(1) << l.w_doc) - 1;
  l.header_bits = 8u * l.size;
  l.visible_bits = 8u * l.il_bytes + l.rest_bits;
  return l;
}

// Decodes the header values of a block of layout `l` from [p, end) and advances p past them;
// false if they do not fit (or p is already past end: a block too short for its own inline
// profile). Needs 4 readable bytes at each value (the block tail padding guarantees them):
// every value is read by one unaligned 4-byte load and a mask, no loop.
inline bool get_block_header(const std::uint8_t*& p, const std::uint8_t* end, const BlockLayout& l, BlockHeader& h) {
  if (p > end || static_cast<std::size_t>(end - p) < l.size) return false;
  h.w_il = l.w_il;
  h.w_col = l.w_col;
  h.w_ecol = l.w_ecol;
  h.w_line = l.w_line;
  h.w_dline = l.w_dline;
  h.w_doc = l.w_doc;
  h.visible = load_le32(p) & l.mask[0];
  h.hidden = load_le32(p + l.at[1]) & l.mask[1];
  h.base_line = load_le32(p + l.at[2]) & l.mask[2];
  h.base_doc = load_le32(p + l.at[3]) & l.mask[3];
  p += l.size;
  return true;
}
inline bool get_block_header(const std::uint8_t*& p, const std::uint8_t* end, std::uint64_t profile, BlockHeader& h) {
  return get_block_header(p, end, block_layout(profile), h);
}
// Bytes of a block's records (what follows its header): the IL column, then the bit string.
inline std::uint64_t records_bytes(const BlockHeader& h, const BlockLayout& l) {
  return std::uint64_t(h.visible) * l.il_bytes + (std::uint64_t(h.visible) * l.rest_bits + std::uint64_t(h.hidden) * l.hidden_bits + 7) / 8;
}

// The profile table of a cache (Cache.block_profiles, at most 255 entries) and the per-row
// profile indices (Cache.block_profile_index, one byte per method row) as a reader holds them.
struct ProfileTable {
  const std::uint8_t* data = nullptr;   // count little-endian u64
  std::uint32_t count = 0;
  const std::uint8_t* index = nullptr;  // one byte per method row
  const BlockLayout* layouts = nullptr;  // the table's count entries decoded (block_layout), or null
  // The profile of method row `rid` (1 <= rid <= rows) whose block starts at `block`, and where
  // its header values start: index i > 0 names entry i - 1 of the table; index 0 means the
  // block starts with its own profile, 5 bytes (the widths word, then the codes byte). False
  // when the index is not at most count or the profile has reserved bits set. Needs 8
  // readable bytes at `block` (the blocks' tail padding).
  bool profile_of(std::uint32_t rid, const std::uint8_t*& block, std::uint64_t& profile) const {
    const std::uint32_t i = index[rid - 1];
    const std::uint32_t j = i <= count ? i : 0;  // never an entry past the table
    // Compilers make this a branch on the row's kind, which lets the table entry load before
    // the block's address is known. Measured against masks that select the address or the
    // loaded value without a branch: those were 3-10% slower on hits
    // (docs/benchmarks-history.md). ilmap's writer gives every block a table entry (SPEC.md
    // 5.1), so on its caches the branch always goes the same way and is not mispredicted.
    const std::uint8_t* const src = j ? data + std::size_t(j - 1) * 8 : block;
    profile = load_le64(src) & kProfileBits;
    block += j ? 0 : kInlineProfileSize;
    return i == j && (profile >> 30 & 3) == 0;
  }
  // The same through the decoded table (`layouts` must be set): the layout of row `rid`'s
  // block, `own` decoded from the block for an inline profile, or null when the index is past
  // the table. The caller checks `ok`.
  const BlockLayout* layout_of(std::uint32_t rid, const std::uint8_t*& block, BlockLayout& own) const {
    const std::uint32_t i = index[rid - 1];
    if (i - 1 < count) return layouts + (i - 1);  // i in 1..count (i = 0 wraps around)
    if (i) return nullptr;
    own = block_layout(load_le64(block) & kProfileBits);
    block += kInlineProfileSize;
    return &own;
  }
};



// The low `width` bits set, for a field of that width (<= 31): a load instead of a shift and a
// subtraction on the lookup path.
inline constexpr std::array<std::uint32_t, 32> kLowBits = [] {
  std::array<std::uint32_t, 32> t{};
  for (unsigned w = 0; w < 32; ++w) t[w] = (std::uint32_t(1) << w) - 1;
  return t;
}();
// The low `n` bytes set, for an IL column entry of n (<= 4) bytes.
inline constexpr std::uint32_t kLowBytes[5] = {0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF};

// Reads `width` (<= 31) bits at bit position `bit` of `base`. Needs 8 readable bytes from
// base + bit/8: guaranteed by the block tail padding.
inline std::uint32_t get_bits(const std::uint8_t* base, std::uint64_t bit, unsigned width) {
  const std::uint64_t w = load_le64(base + (bit >> 3)) >> (bit & 7);
  return static_cast<std::uint32_t>(w) & kLowBits[width & 31];
}

// A decoded visible record (SPEC.md 5.2), bases applied; document is a 0-based index.
struct VisibleRecord {
  std::uint32_t il, line, column, end_line, end_column, document;
};

// IL offset of visible record `k` of a block whose IL column starts at `rec`.
inline std::uint32_t get_visible_il(const std::uint8_t* rec, std::uint64_t k, const BlockHeader& h) {
  const unsigned n = h.il_bytes();
  return load_le32(rec + k * n) & kLowBytes[n];
}

// Decodes visible record `k` of a block whose IL column starts at `rec`. The rest of a record
// is usually at most 57 bits: then one 8-byte load holds all of it.
// `il_bytes` and `rest` are the block's h.il_bytes() and h.rest_bits() (or its layout's).
inline VisibleRecord get_visible(const std::uint8_t* rec, std::uint64_t k, const BlockHeader& h, unsigned il_bytes,
                                 unsigned rest) {
  VisibleRecord r;
  r.il = load_le32(rec + k * il_bytes) & kLowBytes[il_bytes];
  const std::uint8_t* const bits = rec + std::uint64_t(h.visible) * il_bytes;
  std::uint64_t bit = k * rest;
  if (rest <= 57) {
    std::uint64_t x = load_le64(bits + (bit >> 3)) >> (bit & 7);
    auto take = [&x](unsigned width) {
      const auto v = static_cast<std::uint32_t>(x) & kLowBits[width];
      x >>= width;
      return v;
    };
    r.line = h.base_line + take(h.w_line);
    r.column = take(h.w_col);
    r.end_line = r.line + take(h.w_dline);
    r.end_column = take(h.w_ecol);
    r.document = h.base_doc + take(h.w_doc);
    return r;
  }
  r.line = h.base_line + get_bits(bits, bit, h.w_line);
  bit += h.w_line;
  r.column = get_bits(bits, bit, h.w_col);
  bit += h.w_col;
  r.end_line = r.line + get_bits(bits, bit, h.w_dline);
  bit += h.w_dline;
  r.end_column = get_bits(bits, bit, h.w_ecol);
  bit += h.w_ecol;
  r.document = h.base_doc + get_bits(bits, bit, h.w_doc);
  return r;
}

inline VisibleRecord get_visible(const std::uint8_t* rec, std::uint64_t k, const BlockHeader& h) {
  return get_visible(rec, k, h, h.il_bytes(), h.rest_bits());
}

// Hidden record `k` (IL offset and 0-based document) of a block whose IL column starts at `rec`.
inline void get_hidden(const std::uint8_t* rec, std::uint64_t k, const BlockHeader& h, std::uint32_t& il,
                       std::uint32_t& document) {
  const std::uint8_t* const bits = rec + h.column_bytes();
  const std::uint64_t bit = std::uint64_t(h.visible) * h.rest_bits() + k * h.hidden_bits();
  il = get_bits(bits, bit, h.w_il);
  document = h.base_doc + get_bits(bits, bit + h.w_il, h.w_doc);
}

inline unsigned bit_width(std::uint32_t v) { return static_cast<unsigned>(std::bit_width(v)); }

}  // namespace ilmap::disk
