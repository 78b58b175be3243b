// Ascii.h - ASCII case folding: file names, SSQP keys and hex text compare without case the
// way symstore does (ToLowerInvariant on ASCII); bytes outside A-Z are kept as they are, whatever
// the C locale says.
#pragma once

#include <string>
#include <string_view>

namespace ilmap {

inline char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

}  // namespace ilmap
