// Listing.cpp - formatting of canonical listing lines.
#include "decode/Listing.h"

#include <algorithm>
#include <charconv>

namespace ilmap {
namespace {
void put_uint(std::string& out, std::uint32_t v) {
  char buf[16];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}
}  // namespace

void append_listing_line(std::string& out, std::uint32_t token, std::uint32_t il_offset,
                         std::uint32_t start_line, std::uint32_t start_column,
                         std::uint32_t end_line, std::uint32_t end_column, bool hidden,
                         std::string_view path) {
  // A newline in a path must not forge a line (TextEscape.h).
  if (is_plain_text(path)) {
    append_listing_line_escaped(out, token, il_offset, start_line, start_column, end_line, end_column, hidden, path);
  } else {
    append_listing_line_escaped(out, token, il_offset, start_line, start_column, end_line, end_column, hidden,
                                escape_text(path));
  }
}

void append_listing_line_escaped(std::string& out, std::uint32_t token, std::uint32_t il_offset,
                                 std::uint32_t start_line, std::uint32_t start_column,
                                 std::uint32_t end_line, std::uint32_t end_column, bool hidden,
                                 std::string_view escaped_path) {
  static constexpr char kHex[] = "0123456789abcdef";
  char tok[10] = {'0', 'x'};
  for (int i = 0; i < 8; ++i) tok[2 + i] = kHex[(token >> (28 - 4 * i)) & 15];
  out.append(tok, 10);
  out.push_back(' ');
  put_uint(out, il_offset);
  out.push_back(' ');
  out.append(escaped_path);
  out.push_back(' ');
  put_uint(out, start_line);
  out.push_back(':');
  put_uint(out, start_column);
  out.push_back('-');
  put_uint(out, end_line);
  out.push_back(':');
  put_uint(out, end_column);
  if (hidden) out.append(" hidden");
  out.push_back('\n');
}

void sort_points_by_offset(std::vector<SequencePoint>& points) {
  // Usually already sorted (offsets increase in a well-formed blob): check before sorting.
  if (std::is_sorted(points.begin(), points.end(),
                     [](const SequencePoint& a, const SequencePoint& b) { return a.il_offset < b.il_offset; }))
    return;
  std::stable_sort(points.begin(), points.end(), [](const SequencePoint& a, const SequencePoint& b) {
    return a.il_offset < b.il_offset;
  });
}

}  // namespace ilmap
