// TextEscape.cpp - the escaping of TextEscape.h (docs/text-output.md, "Escaping").
#include "support/TextEscape.h"

#include <cstdint>

namespace ilmap {
namespace {

// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF), or 0 when the byte there does not start one.
std::size_t utf8_length(std::string_view s, std::size_t i) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[i + k]); };
  const std::uint8_t c = b(0);
  const std::size_t left = s.size() - i;
  auto cont = [&](std::size_t k) { return k < left && (b(k) & 0xC0) == 0x80; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

bool needs_escape_ascii(std::uint8_t c) noexcept { return c < 0x20 || c == 0x7F; }

}  // namespace

bool is_plain_text(std::string_view s) noexcept {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<std::uint8_t>(s[i]);
    if (c < 0x80) {
      if (needs_escape_ascii(c)) return false;
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0) return false;
    if (n == 2 && c == 0xC2 && static_cast<std::uint8_t>(s[i + 1]) < 0xA0) return false;  // C1
    i += n;
  }
  return true;
}

void append_escaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (is_plain_text(s)) {
    out.append(s);
    return;
  }
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<std::uint8_t>(s[i]);
    if (c < 0x80) {
      if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (needs_escape_ascii(c)) {
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
      continue;
    }
    const auto c1 = static_cast<std::uint8_t>(s[i + 1]);
    if (n == 2 && c == 0xC2 && c1 < 0xA0) {  // U+0080..U+009F
      out += "\\u00";
      out += kHex[c1 >> 4];
      out += kHex[c1 & 15];
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
}

std::string escape_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_escaped(out, s);
  return out;
}

}  // namespace ilmap
