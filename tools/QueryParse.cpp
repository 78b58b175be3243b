// QueryParse.cpp - strict number parsing for lookups (no signs, no trailing garbage).
#include "tools/QueryParse.h"

#include <charconv>

namespace ilmap::cli {
namespace {

std::string printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 64)) {
    if (c >= 0x20 && c < 0x7F) out.push_back(static_cast<char>(c));
    else out += format("\\x%02x", c);
  }
  if (s.size() > 64) out += "...";
  return out;
}

bool parse_u64(std::string_view s, std::uint64_t& v) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

Result<std::uint32_t> parse_method(std::string_view s) {
  std::uint64_t v = 0;
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (!parse_u64(s, v))
    return Error{Errc::kUsage, format("METHOD '%s' is not a token (0x06RRRRRR) or a decimal row number", printable(s).c_str())};
  if (hex && v < 0x01000000) {
    // The row alone (Sentry's function_id), as a decimal row number would be.
    if (v == 0) return Error{Errc::kUsage, format("METHOD '%s' has row 0", printable(s).c_str())};
    return static_cast<std::uint32_t>(v);
  }
  if (hex) {
    if (v > 0xFFFFFFFF || (v >> 24) != 0x06)
      return Error{Errc::kUsage, format("METHOD '%s' is not a MethodDef token: its table byte must be 0x06", printable(s).c_str())};
    if ((v & 0xFFFFFF) == 0) return Error{Errc::kUsage, format("METHOD '%s' has row 0", printable(s).c_str())};
    return static_cast<std::uint32_t>(v & 0xFFFFFF);
  }
  if (v == 0 || v > 0xFFFFFF)
    return Error{Errc::kUsage, format("METHOD row '%s' out of range (1..16777215)", printable(s).c_str())};
  return static_cast<std::uint32_t>(v);
}

Result<std::uint32_t> parse_il_offset(std::string_view s) {
  if (s == "-1") return 0xFFFFFFFFu;  // OFFSET_UNKNOWN of the runtime (signed 32-bit offsets)
  std::uint64_t v = 0;
  if (!parse_u64(s, v) || v > 0xFFFFFFFF)
    return Error{Errc::kUsage, format("IL_OFFSET '%s' is not -1 or a number in 0..0xffffffff (decimal or 0x hex)", printable(s).c_str())};
  return static_cast<std::uint32_t>(v);
}

Result<Query> parse_query_line(std::string_view line) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  std::size_t sp = 0;
  while (sp < line.size() && !is_space(line[sp])) ++sp;
  std::string_view a = line.substr(0, sp), b = line.substr(sp);
  while (!b.empty() && is_space(b.front())) b.remove_prefix(1);
  if (a.empty() || b.empty() || b.find_first_of(" \t") != std::string_view::npos)
    return Error{Errc::kUsage, format("malformed query '%s': expected 'METHOD IL_OFFSET'", printable(line).c_str())};
  auto m = parse_method(a);
  if (!m) return m.error();
  auto o = parse_il_offset(b);
  if (!o) return o.error();
  return Query{*m, *o};
}

}  // namespace ilmap::cli
