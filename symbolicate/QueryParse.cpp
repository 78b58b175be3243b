// QueryParse.cpp - strict parsing of lookup and lines queries (no signs, no trailing garbage).
#include "symbolicate/QueryParse.h"

#include <charconv>

namespace ilmap::symbolicate {
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

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::uint32_t digits_value(std::string_view s) {
  std::uint32_t v = 0;
  for (char c : s) v = v * 10 + static_cast<std::uint32_t>(c - '0');
  return v;
}

// The largest line a visible point can start on: 0xFEEFEE marks hidden points.
constexpr std::uint32_t kMaxSourceLine = 0xFEEFED;
constexpr std::uint32_t kMaxSourceColumn = 0xFFFF;

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

Result<LineQuery> parse_line_query(std::string_view q) {
  const auto bad = [&] {
    return Error{Errc::kUsage, "expected FILE:LINE or FILE:LINE:COLUMN (LINE 1-16707565, COLUMN 1-65535), got '" + std::string(q) + "'"};
  };
  const std::size_t c1 = q.rfind(':');
  if (c1 == std::string_view::npos || !all_digits(q.substr(c1 + 1))) return bad();
  std::string_view head = q.substr(0, c1);
  const std::uint32_t last = digits_value(q.substr(c1 + 1));
  LineQuery r;
  const std::size_t c2 = head.rfind(':');
  if (c2 != std::string_view::npos && all_digits(head.substr(c2 + 1))) {
    r.line = digits_value(head.substr(c2 + 1));
    r.column = last;
    head = head.substr(0, c2);
    if (r.column == 0 || r.column > kMaxSourceColumn) return bad();
  } else {
    r.line = last;
  }
  if (r.line == 0 || r.line > kMaxSourceLine || head.empty()) return bad();
  r.file = std::string(head);
  return r;
}

std::string_view query_text(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!line.empty() && blank(line.front())) line.remove_prefix(1);
  while (!line.empty() && blank(line.back())) line.remove_suffix(1);
  return line;
}

Result<Query> parse_query_line(std::string_view line) {
  line = query_text(line);
  const std::size_t sp = line.find_first_of(" \t");
  const std::string_view a = line.substr(0, sp);
  std::string_view b = sp == std::string_view::npos ? std::string_view() : line.substr(sp);
  while (!b.empty() && (b.front() == ' ' || b.front() == '\t')) b.remove_prefix(1);
  if (a.empty() || b.empty() || b.find_first_of(" \t") != std::string_view::npos)
    return Error{Errc::kUsage, format("malformed query '%s': expected 'METHOD IL_OFFSET'", printable(line).c_str())};
  auto m = parse_method(a);
  if (!m) return m.error();
  auto o = parse_il_offset(b);
  if (!o) return o.error();
  return Query{*m, *o};
}

Result<LineQuery> parse_line_query_line(std::string_view line) { return parse_line_query(query_text(line)); }

}  // namespace ilmap::symbolicate
