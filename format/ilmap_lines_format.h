// ilmap_lines_format.h - byte layout of the reverse line index (Cache.lines, SPEC.md section
// 3.7), shared by the writer (compiler/LineIndexWriter.cpp) and the reader
// (reader/LineIndex.cpp) so that both read one definition.
//
// Each document's visible points, sorted by (start line, start column, method row, visible
// ordinal), are cut into blocks of at most kLineBlockEntries entries. A block is a count byte,
// its first entry as two LEB128 values (method row, visible ordinal k), then for each further
// entry a tag byte (low 2 bits: kind; high 6 bits: line delta, 63 = "63 + LEB128 follows") and
// the kind's values. The block's first line is in its LineBlockRef. An entry names visible
// record k of method row r's point block; the reader decodes the span from there.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ilmap::disk {

inline constexpr unsigned kLineBlockEntries = 32;  // entries per block (the last may hold fewer)
inline constexpr unsigned kLineDeltaEscape = 63;   // tag line delta: LEB128 extension follows

// Entry kinds (tag bits 0-1), relative to the previous entry of the block (row p, ordinal q).
enum LineKind : std::uint8_t {
  kLineNext = 0,      // row p, ordinal q + 1
  kLineOrdinal = 1,   // row p, ordinal LEB128
  kLineRow = 2,       // row p + zigzag LEB128 (not 0), ordinal LEB128
  kLineRowFirst = 3,  // row p + zigzag LEB128 (not 0), ordinal 0
};

// One decoded entry: start line, method row (1-based), visible ordinal (0-based).
struct LineEntry {
  std::uint32_t line = 0, row = 0, ordinal = 0;
};

inline std::uint32_t zigzag(std::int64_t v) {
  return static_cast<std::uint32_t>(v >= 0 ? std::uint64_t(v) << 1 : ((std::uint64_t(-v) << 1) - 1));
}
inline std::int64_t unzigzag(std::uint32_t v) {
  return (v & 1) ? -static_cast<std::int64_t>((std::uint64_t(v) + 1) >> 1) : static_cast<std::int64_t>(v >> 1);
}

// Reads an LEB128 value of at most 5 bytes below 2^32 from [p, end); false when it runs past
// end, is longer than 5 bytes or does not fit in 32 bits.
inline bool get_leb(const std::uint8_t*& p, const std::uint8_t* end, std::uint32_t& out) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < 5; ++i) {
    if (p == end) return false;
    const std::uint8_t b = *p++;
    v |= std::uint64_t(b & 0x7F) << (7 * i);
    if (!(b & 0x80)) {
      if (v > 0xFFFFFFFFu) return false;
      out = static_cast<std::uint32_t>(v);
      return true;
    }
  }
  return false;
}

// Decodes block entries one by one with bounds checks (a corrupt index gives false, never a
// read outside [p, end)).
class LineBlockReader {
 public:
  LineBlockReader(const std::uint8_t* p, const std::uint8_t* end, std::uint32_t first_line)
      : p_(p), end_(end), line_(first_line) {}
  // Reads the count byte; false when absent or 0 or above kLineBlockEntries.
  bool start() {
    if (p_ == end_) return false;
    count_ = *p_++;
    return count_ >= 1 && count_ <= kLineBlockEntries;
  }
  unsigned count() const { return count_; }
  // Decodes the next entry (call count() times); false on corrupt data.
  bool next(LineEntry& e) {
    if (index_ == 0) {
      if (!get_leb(p_, end_, row_) || !get_leb(p_, end_, ord_)) return false;
    } else {
      if (p_ == end_) return false;
      const std::uint8_t t = *p_++;
      std::uint32_t dl = t >> 2;
      if (dl == kLineDeltaEscape) {
        std::uint32_t ext;
        if (!get_leb(p_, end_, ext) || ext > 0xFFFFFFFFu - kLineDeltaEscape) return false;
        dl += ext;
      }
      if (std::uint64_t(line_) + dl > 0xFFFFFFFFu) return false;
      line_ += dl;
      switch (t & 3) {
        case kLineNext:
          if (ord_ == 0xFFFFFFFFu) return false;
          ++ord_;
          break;
        case kLineOrdinal:
          if (!get_leb(p_, end_, ord_)) return false;
          break;
        default: {
          std::uint32_t z;
          if (!get_leb(p_, end_, z) || z == 0) return false;
          const std::int64_t r = std::int64_t(row_) + unzigzag(z);
          if (r < 0 || r > 0xFFFFFFFF) return false;
          row_ = static_cast<std::uint32_t>(r);
          if ((t & 3) == kLineRow) {
            if (!get_leb(p_, end_, ord_)) return false;
          } else {
            ord_ = 0;
          }
        }
      }
    }
    ++index_;
    e = {line_, row_, ord_};
    return true;
  }
  const std::uint8_t* position() const { return p_; }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
  std::uint32_t line_;
  std::uint32_t row_ = 0, ord_ = 0;
  unsigned count_ = 0, index_ = 0;
};

}  // namespace ilmap::disk
