// ByteCursor.h - the one bounds-checked reader for every on-disk structure ilmap decodes.
//
// Little endian through memcpy; ECMA-335 II.23.2 compressed integers. Every read checks the
// remaining length first and returns false instead of reading past the end, so decoders turn a
// short read into an Error that names the structure and the absolute byte offset (base + pos).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace ilmap {

// ECMA-335 II.23.2 compressed unsigned integer at p (p < end not required): 1, 2 or 4 bytes,
// big-endian payload. Advances p and sets width on success; fails on truncation and on the
// invalid 111xxxxx lead byte. The one-byte case is the hot path of every blob decoder.
inline bool read_compressed_at(const std::uint8_t*& p, const std::uint8_t* end, std::uint32_t& out,
                               unsigned& width) noexcept {
  if (p >= end) return false;
  const std::uint8_t b0 = *p;
  if ((b0 & 0x80) == 0) {
    out = b0;
    width = 1;
    p += 1;
    return true;
  }
  if ((b0 & 0xC0) == 0x80) {
    if (end - p < 2) return false;
    out = (std::uint32_t(b0 & 0x3F) << 8) | p[1];
    width = 2;
    p += 2;
    return true;
  }
  if ((b0 & 0xE0) == 0xC0) {
    if (end - p < 4) return false;
    out = (std::uint32_t(b0 & 0x1F) << 24) | (std::uint32_t(p[1]) << 16) |
          (std::uint32_t(p[2]) << 8) | p[3];
    width = 4;
    p += 4;
    return true;
  }
  return false;
}

// The same read with the result in registers (for hot decoders that keep `p` in a register):
// next is one past the value, or nullptr on truncation or an invalid lead byte.
struct CompressedRead {
  const std::uint8_t* next;
  std::uint32_t value;
  unsigned width;
};
[[gnu::noinline]] inline CompressedRead read_compressed_cold(const std::uint8_t* p,
                                                             const std::uint8_t* end) noexcept {
  std::uint32_t v = 0;
  unsigned w = 0;
  if (!read_compressed_at(p, end, v, w)) return {nullptr, 0, 0};
  return {p, v, w};
}

// Signed form: the value is rotated left by one bit with the sign in bit 0, and sign-extended
// from 6, 13 or 28 bits according to the width (not -(u>>1)-1).
inline bool read_compressed_signed_at(const std::uint8_t*& p, const std::uint8_t* end,
                                      std::int32_t& out) noexcept {
  std::uint32_t u;
  unsigned width;
  if (!read_compressed_at(p, end, u, width)) return false;
  std::uint32_t v = u >> 1;
  if (u & 1) v |= width == 1 ? 0xFFFFFFC0u : width == 2 ? 0xFFFFE000u : 0xF0000000u;
  out = static_cast<std::int32_t>(v);
  return true;
}

class ByteCursor {
 public:
  ByteCursor() = default;
  // `base` is the absolute offset of data[0] in the enclosing file or heap, used for messages.
  explicit ByteCursor(std::span<const std::uint8_t> data, std::size_t base = 0)
      : p_(data.data()), n_(data.size()), base_(base) {}

  std::size_t pos() const noexcept { return pos_; }
  std::size_t abs() const noexcept { return base_ + pos_; }  // absolute offset of the next byte
  std::size_t size() const noexcept { return n_; }
  std::size_t remaining() const noexcept { return n_ - pos_; }
  bool empty() const noexcept { return pos_ == n_; }
  const std::uint8_t* ptr() const noexcept { return p_ + pos_; }

  bool seek(std::size_t pos) noexcept {
    if (pos > n_) return false;
    pos_ = pos;
    return true;
  }
  bool skip(std::size_t n) noexcept {
    if (n > remaining()) return false;
    pos_ += n;
    return true;
  }

  template <class T>
  bool read(T& out) noexcept {
    static_assert(std::is_trivially_copyable_v<T>);
    if (sizeof(T) > remaining()) return false;
    std::memcpy(&out, p_ + pos_, sizeof(T));  // hosts are little endian (checked in CMake)
    pos_ += sizeof(T);
    return true;
  }

  // Reads a 2- or 4-byte little-endian unsigned value (heap and table indices).
  bool read_index(unsigned width, std::uint32_t& out) noexcept {
    if (width == 2) {
      std::uint16_t v;
      if (!read(v)) return false;
      out = v;
      return true;
    }
    return read(out);
  }

  bool bytes(std::size_t n, std::span<const std::uint8_t>& out) noexcept {
    if (n > remaining()) return false;
    out = {p_ + pos_, n};
    pos_ += n;
    return true;
  }

  // A sub-cursor over the next n bytes (absolute offsets preserved); advances this cursor.
  bool sub(std::size_t n, ByteCursor& out) noexcept {
    if (n > remaining()) return false;
    out = ByteCursor({p_ + pos_, n}, base_ + pos_);
    pos_ += n;
    return true;
  }

  // ECMA-335 II.23.2 compressed integers (see read_compressed_at above).
  bool read_compressed(std::uint32_t& out) noexcept {
    unsigned width;
    return read_compressed(out, width);
  }
  bool read_compressed(std::uint32_t& out, unsigned& width) noexcept {
    const std::uint8_t* q = p_ + pos_;
    if (!read_compressed_at(q, p_ + n_, out, width)) return false;
    pos_ = static_cast<std::size_t>(q - p_);
    return true;
  }
  bool read_compressed_signed(std::int32_t& out) noexcept {
    const std::uint8_t* q = p_ + pos_;
    if (!read_compressed_signed_at(q, p_ + n_, out)) return false;
    pos_ = static_cast<std::size_t>(q - p_);
    return true;
  }

  // NUL-terminated string; the view excludes the terminator. Fails if no NUL is found.
  bool read_cstring(std::string_view& out) noexcept {
    if (remaining() == 0) return false;  // also keeps a null p_ away from memchr
    const void* z = std::memchr(p_ + pos_, 0, remaining());
    if (!z) return false;
    const auto* e = static_cast<const std::uint8_t*>(z);
    out = {reinterpret_cast<const char*>(p_ + pos_), static_cast<std::size_t>(e - (p_ + pos_))};
    pos_ = static_cast<std::size_t>(e - p_) + 1;
    return true;
  }

 private:
  const std::uint8_t* p_ = nullptr;
  std::size_t n_ = 0;
  std::size_t pos_ = 0;
  std::size_t base_ = 0;
};

}  // namespace ilmap
