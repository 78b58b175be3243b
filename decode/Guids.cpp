// Guids.cpp - text forms and names of the well-known GUIDs.
#include "decode/Guids.h"

namespace ilmap {
namespace {
constexpr char kHex[] = "0123456789abcdef";
void put(std::string& s, std::uint8_t b) {
  s.push_back(kHex[b >> 4]);
  s.push_back(kHex[b & 15]);
}
}  // namespace

std::string guid_to_n(const Guid& g) {
  static constexpr int kOrder[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
  std::string s;
  s.reserve(32);
  for (int i : kOrder) put(s, g[static_cast<std::size_t>(i)]);
  return s;
}

std::string guid_to_text(const Guid& g) {
  const std::string n = guid_to_n(g);
  return n.substr(0, 8) + '-' + n.substr(8, 4) + '-' + n.substr(12, 4) + '-' + n.substr(16, 4) +
         '-' + n.substr(20);
}

const char* language_name(const Guid& l) {
  if (l == guids::kLanguageCSharp) return "C#";
  if (l == guids::kLanguageVisualBasic) return "VB";
  if (l == guids::kLanguageFSharp) return "F#";
  return nullptr;
}

namespace {
int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<Guid> parse_guid_text(std::string_view t) noexcept {
  if (t.size() == 38 && t.front() == '{' && t.back() == '}') t = t.substr(1, 36);
  char hex[32];
  std::size_t n = 0;
  if (t.size() == 36) {
    for (std::size_t i = 0; i < 36; ++i) {
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        if (t[i] != '-') return std::nullopt;
        continue;
      }
      hex[n++] = t[i];
    }
  } else if (t.size() == 32) {
    for (char c : t) hex[n++] = c;
  } else {
    return std::nullopt;
  }
  std::array<std::uint8_t, 16> text{};
  for (std::size_t i = 0; i < 16; ++i) {
    const int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    text[i] = std::uint8_t(hi << 4 | lo);
  }
  // Text order -> on-disk: Data1 (4 bytes), Data2, Data3 (2 each) are little-endian on disk.
  std::array<std::uint8_t, 16> g = text;
  for (int i = 0; i < 4; ++i) g[i] = text[3 - i];
  g[4] = text[5], g[5] = text[4], g[6] = text[7], g[7] = text[6];
  return g;
}

}  // namespace ilmap
