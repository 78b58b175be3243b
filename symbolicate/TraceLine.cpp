// TraceLine.cpp - the frame finder (see TraceLine.h). Hand-written scanning, no regex:
// symbolicate reads every line of multi-gigabyte logs, and most lines hold no frame, so the
// scan is driven by the anchors (memchr for 'x', then "0x"; ":line ") and only an anchor
// leads to a parse.
#include "symbolicate/TraceLine.h"

#include <string.h>  // memrchr

#include <array>
#include <cstdint>

#include "decode/Guids.h"  // parse_guid_text: a GUID printed in a frame

namespace ilmap::symbolicate {
namespace {

constexpr std::size_t npos = std::string_view::npos;

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_word(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Hex digit values, -1 for any other byte: one load per digit on the hot path (every frame has
// two or three hex numbers).
constexpr std::array<std::int8_t, 256> kHexValues = [] {
  std::array<std::int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int c = '0'; c <= '9'; ++c) t[std::size_t(c)] = std::int8_t(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[std::size_t(c)] = std::int8_t(c - 'a' + 10);
  for (int c = 'A'; c <= 'F'; ++c) t[std::size_t(c)] = std::int8_t(c - 'A' + 10);
  return t;
}();

int hex_value(char c) { return kHexValues[static_cast<unsigned char>(c)]; }

// Reads 1..8 hex digits at s[pos]; advances pos. Nullopt when there are none or more than 8.
std::optional<std::uint32_t> read_hex(std::string_view s, std::size_t& pos) {
  const std::size_t first = pos;
  const std::size_t end = std::min(s.size(), first + 9);
  std::uint32_t v = 0;
  std::size_t i = first;
  for (; i < end; ++i) {
    const int d = hex_value(s[i]);
    if (d < 0) break;
    v = v << 4 | std::uint32_t(d);
  }
  if (i == first || i - first > 8) return std::nullopt;
  pos = i;
  return v;
}

bool valid_token(std::uint32_t t) { return (t >> 24) == 0x06 && (t & 0xFFFFFF) != 0; }
bool valid_offset(std::uint32_t o) { return o < 0x80000000u; }

// The rest of a line: nothing but spaces, tabs and a final '\r'.
bool blank_rest(std::string_view s, std::size_t pos) {
  for (; pos < s.size(); ++pos)
    if (!is_space(s[pos]) && !(s[pos] == '\r' && pos + 1 == s.size())) return false;
  return true;
}

// A frame may end before `pos`: the line ends there, or a byte that cannot continue it follows.
bool frame_ends(std::string_view s, std::size_t pos) { return pos >= s.size() || !is_word(s[pos]); }

// "at " at `i` starts a frame: at or after `from`, at the line's start or after a non-word byte.
bool starts_frame(std::string_view s, std::size_t from, std::size_t i) {
  return i >= from && s.substr(i, 3) == "at " && (i == 0 || !is_word(s[i - 1]));
}

// The last occurrence of `needle` that starts in [from, end - needle.size()], or npos: found
// by its last byte with memrchr (std::string_view::rfind compares at every position), the
// bytes before it compared in place (needles are a few bytes: no memcmp call per candidate).
std::size_t rfind_in(std::string_view s, std::string_view needle, std::size_t from, std::size_t end) {
  const std::size_t n = needle.size();
  const char last = needle.back();
  const char* const d = s.data();
  while (end >= from + n) {
    const void* p = memrchr(d + from + n - 1, last, end - from - n + 1);
    if (p == nullptr) return npos;
    const std::size_t at = std::size_t(static_cast<const char*>(p) - d) + 1 - n;
    std::size_t k = 0;
    while (k + 1 < n && d[at + k] == needle[k]) ++k;
    if (k + 1 == n) return at;
    end = at + n - 1;
  }
  return npos;
}

// The last frame start in [from, limit) that leaves a method text before `limit`: "at " at i
// in [from, limit - 4], at the line's start or after a non-word byte. Its space, at i + 2, is
// found by memrchr and the two bytes before it compared in place.
std::size_t last_start(std::string_view s, std::size_t from, std::size_t limit) {
  if (limit < from + 4) return npos;
  const char* const d = s.data();
  std::size_t end = limit - 1;  // the space lies in [from + 2, end)
  while (end > from + 2) {
    const void* p = memrchr(d + from + 2, ' ', end - from - 2);
    if (p == nullptr) return npos;
    const std::size_t sp = std::size_t(static_cast<const char*>(p) - d);
    const std::size_t i = sp - 2;
    if (d[i] == 'a' && d[i + 1] == 't' && (i == 0 || !is_word(d[i - 1]))) return i;
    end = sp;
  }
  return npos;
}

// A name without white space that ends at `end` (and at `stop` too, when given), preceded by a
// frame's "at ": the frame start, and the name's start in `name`.
std::size_t name_start(std::string_view s, std::size_t from, std::size_t end, char stop, std::size_t& name) {
  std::size_t i = end;
  while (i > from && !is_space(s[i - 1]) && s[i - 1] != stop) --i;
  if (i == end || i < from + 3 || !starts_frame(s, from, i - 3)) return npos;
  name = i;
  return i - 3;
}

ParsedFrame framed(FrameFormat format, std::string_view s, std::size_t start, std::size_t end) {
  ParsedFrame f;
  f.format = format;
  f.head = s.substr(0, start + 3);
  f.begin = start;
  f.end = end;
  return f;
}

// "at METHOD in MODULE:token 0xT+0xO" (also ": token"); `tok` at the ':', `skip` to the "0x".
ParsedFrame parse_coreclr(std::string_view s, std::size_t from, std::size_t tok, std::size_t skip) {
  const std::size_t in = rfind_in(s, " in ", from, tok + 3);
  if (in == npos || in + 4 >= tok) return {};
  std::size_t pos = tok + skip + 2;
  const auto token = read_hex(s, pos);
  if (!token || s.substr(pos, 3) != "+0x") return {};
  pos += 3;
  const auto off = read_hex(s, pos);
  if (!off || !valid_token(*token) || !valid_offset(*off) || !frame_ends(s, pos)) return {};
  const std::size_t start = last_start(s, from, in);
  if (start == npos) return {};
  ParsedFrame f = framed(FrameFormat::kCoreClr, s, start, pos);
  f.method = s.substr(start + 3, in - start - 3);
  f.module = s.substr(in + 4, tok - in - 4);
  f.token = *token;
  f.il_offset = *off;
  f.replace_from = in;
  f.replace_to = pos;
  return f;
}

// "at METHOD(...) in FILE:line N": already has a location; `at` at the ':'. Only counted, so
// held to what CoreCLR prints (a parameter list) lest prose ("at noon in Paris:line 5") count.
ParsedFrame parse_coreclr_with_line(std::string_view s, std::size_t from, std::size_t at) {
  std::size_t pos = at + 6, digits = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos, ++digits;
  if (digits == 0 || !frame_ends(s, pos)) return {};
  const std::size_t in = rfind_in(s, " in ", from, at + 3);
  if (in == npos || in < from || in + 4 >= at) return {};
  const std::size_t start = last_start(s, from, in);
  if (start == npos) return {};
  if (s[in - 1] != ')') return {};
  ParsedFrame f = framed(FrameFormat::kCoreClrWithLine, s, start, pos);
  f.method = s.substr(start + 3, in - start - 3);
  f.replace_from = f.replace_to = pos;
  return f;
}

// "at METHOD [0xOFF] in <MVID>:0" or "<MVID#AOTID>:0"; `br` at the " [0x".
ParsedFrame parse_mono(std::string_view s, std::size_t from, std::size_t br) {
  std::size_t pos = br + 4;
  const auto off = read_hex(s, pos);
  if (!off || !valid_offset(*off) || s.substr(pos, 6) != "] in <") return {};
  const std::size_t lt = pos;
  const std::size_t id = lt + 6;
  if (s.size() < id + 32) return {};
  for (std::size_t i = id; i < id + 32; ++i)
    if (hex_value(s[i]) < 0) return {};
  pos = id + 32;
  if (pos < s.size() && s[pos] == '#') {  // AOT id: up to '>'
    const std::size_t gt = s.find('>', pos);
    if (gt == npos || gt - pos > 128) return {};
    pos = gt;
  }
  if (s.substr(pos, 3) != ">:0" || !frame_ends(s, pos + 3)) return {};
  const std::size_t start = last_start(s, from, br);
  if (start == npos) return {};
  ParsedFrame f = framed(FrameFormat::kMono, s, start, pos + 3);
  f.method = s.substr(start + 3, br - start - 3);
  f.module = s.substr(id, 32);
  f.il_offset = *off;
  f.replace_from = lt + 5;
  f.replace_to = pos + 3;
  return f;
}

// "at METHOD <0xADDR + 0xOFF> in <MVID#AOTID>:0", a method index perhaps after the '>'
// ("<0x.. + 0x..> 12 in"), the "#AOTID" perhaps absent; `lt` at the " <0x". The address is
// 64 bits (up to 16 hex digits): only its form is checked.
ParsedFrame parse_mono_aot(std::string_view s, std::size_t from, std::size_t lt) {
  std::size_t pos = lt + 4;
  const std::size_t addr = pos;
  while (pos < s.size() && pos - addr < 17 && hex_value(s[pos]) >= 0) ++pos;
  if (pos == addr || pos - addr > 16 || s.substr(pos, 5) != " + 0x") return {};
  pos += 5;
  const auto off = read_hex(s, pos);
  if (!off || !valid_offset(*off) || pos >= s.size() || s[pos] != '>') return {};
  ++pos;
  std::uint32_t index = 0xffffff;
  if (pos + 1 < s.size() && s[pos] == ' ' && s[pos + 1] >= '0' && s[pos + 1] <= '9') {
    ++pos;
    std::uint32_t v = 0, digits = 0;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, ++digits) v = v * 10 + std::uint32_t(s[pos] - '0');
    if (digits > 8) return {};
    index = v;
  }
  if (s.substr(pos, 5) != " in <") return {};
  const std::size_t id = pos + 5;
  if (s.size() < id + 32) return {};
  for (std::size_t i = id; i < id + 32; ++i)
    if (hex_value(s[i]) < 0) return {};
  pos = id + 32;
  std::string_view aot;
  if (pos < s.size() && s[pos] == '#') {
    const std::size_t gt = s.find('>', pos);
    if (gt == npos || gt - pos > 128) return {};
    aot = s.substr(pos + 1, gt - pos - 1);
    pos = gt;
  }
  if (s.substr(pos, 3) != ">:0" || !frame_ends(s, pos + 3)) return {};
  const std::size_t start = last_start(s, from, lt);
  if (start == npos) return {};
  ParsedFrame f = framed(FrameFormat::kMonoAot, s, start, pos + 3);
  f.method = s.substr(start + 3, lt - start - 3);
  f.module = s.substr(id, 32);
  f.native_offset = *off;
  f.method_index = index;
  f.aot_id = aot;
  f.replace_from = lt + 1;
  f.replace_to = pos + 3;
  return f;
}

// "at NAME + 0xOFF(Unknown Source)" (the source part optional); `plus` at the " + 0x". NAME
// is a type and method name: no white space, at least one '.'.
ParsedFrame parse_android(std::string_view s, std::size_t from, std::size_t plus) {
  std::size_t name = 0;
  const std::size_t start = name_start(s, from, plus, ' ', name);
  if (start == npos || s.substr(name, plus - name).find('.') == npos) return {};
  std::size_t pos = plus + 5;
  const auto off = read_hex(s, pos);
  if (!off || !valid_offset(*off)) return {};
  if (s.substr(pos, 16) == "(Unknown Source)") pos += 16;
  if (!frame_ends(s, pos)) return {};
  ParsedFrame f = framed(FrameFormat::kAndroid, s, start, pos);
  f.method = s.substr(name, plus - name);
  f.il_offset = *off;
  f.replace_from = name;
  f.replace_to = pos;
  return f;
}

// "at Asm!0x0600000f!NS.T.M() +0xc"; `bang` at the "!0x".
ParsedFrame parse_pst(std::string_view s, std::size_t from, std::size_t bang) {
  std::size_t asm_name = 0;
  const std::size_t start = name_start(s, from, bang, '!', asm_name);
  if (start == npos) return {};
  std::size_t pos = bang + 3;
  const auto token = read_hex(s, pos);
  if (!token || pos >= s.size() || s[pos] != '!' || !valid_token(*token)) return {};
  const std::size_t name = pos + 1;
  const std::size_t plus = s.find(" +0x", name);
  if (plus == npos || plus == name) return {};
  pos = plus + 4;
  const auto off = read_hex(s, pos);
  if (!off || !valid_offset(*off) || !frame_ends(s, pos)) return {};
  ParsedFrame f = framed(FrameFormat::kPst, s, start, pos);
  f.module = s.substr(asm_name, bang - asm_name);
  f.method = s.substr(name, plus - name);
  f.token = *token;
  f.il_offset = *off;
  f.replace_from = asm_name;
  f.replace_to = pos;
  return f;
}

// The frame whose anchor holds the "0x" at `x`, if any.
ParsedFrame parse_at_hex(std::string_view s, std::size_t from, std::size_t x) {
  if (x >= 7 && s.substr(x - 7, 7) == ":token ") return parse_coreclr(s, from, x - 7, 7);
  if (x >= 8 && s.substr(x - 8, 8) == ": token ") return parse_coreclr(s, from, x - 8, 8);
  if (x >= 2 && s.substr(x - 2, 2) == " [") return parse_mono(s, from, x - 2);
  if (x >= 2 && s.substr(x - 2, 2) == " <") return parse_mono_aot(s, from, x - 2);
  if (x >= 1 && s[x - 1] == '!') return parse_pst(s, from, x - 1);
  if (x >= 3 && s.substr(x - 3, 3) == " + ") return parse_android(s, from, x - 3);
  return {};
}

// The next "0x" at or after `pos`.
std::size_t find_0x(std::string_view s, std::size_t pos) {
  for (std::size_t i = pos + 1; i < s.size(); ++i) {
    i = s.find('x', i);
    if (i == npos) return npos;
    if (s[i - 1] == '0') return i - 1;
  }
  return npos;
}

}  // namespace

const char* frame_format_name(FrameFormat f) noexcept {
  switch (f) {
    case FrameFormat::kCoreClr: return "coreclr";
    case FrameFormat::kCoreClrWithLine: return "coreclr-with-line";
    case FrameFormat::kAndroid: return "android";
    case FrameFormat::kMono: return "mono";
    case FrameFormat::kMonoAot: return "mono-aot";
    case FrameFormat::kPst: return "pst";
    case FrameFormat::kNone: break;
  }
  return "none";
}

bool may_hold_frame(std::string_view line) noexcept {
  return find_0x(line, 0) != npos || line.find(":line ") != npos;
}

ParsedFrame parse_frame(std::string_view s, std::size_t from) noexcept {
  if (from >= s.size()) return {};
  // The anchors in the order they appear: each "0x", and each ":line " searched only up to
  // the next "0x" (":line " cannot hold a "0x", so one starting before it also ends before it).
  std::size_t x = find_0x(s, from);
  std::size_t line_from = from;  // no ":line " starts in [from, line_from) that is not tried
  for (;;) {
    const std::size_t bound = x == npos ? s.size() : x;
    const std::size_t l = line_from < bound ? s.substr(0, bound).find(":line ", line_from) : npos;
    if (l != npos) {
      ParsedFrame f = parse_coreclr_with_line(s, from, l);
      if (f.format != FrameFormat::kNone) return f;
      line_from = l + 6;
      continue;
    }
    if (x == npos) return {};
    ParsedFrame f = parse_at_hex(s, from, x);
    if (f.format != FrameFormat::kNone) return f;
    line_from = x;
    x = find_0x(s, x + 2);
  }
}

bool is_pst_separator(std::string_view line) noexcept {
  while (!line.empty() && (line.back() == '\r' || is_space(line.back()))) line.remove_suffix(1);
  std::size_t n = 0;
  while (n < line.size() && line[line.size() - 1 - n] == '=') ++n;
  if (n < 10) return false;
  const std::size_t start = line.size() - n;
  return start == 0 || is_space(line[start - 1]);
}

std::optional<PstModule> parse_pst_module(std::string_view s) noexcept {
  const std::size_t at = s.find("MODULE: ");
  if (at == npos || (at > 0 && !is_space(s[at - 1]))) return std::nullopt;
  s.remove_prefix(at);
  const std::size_t arrow = s.find(" => ", 8);
  if (arrow == npos || arrow == 8) return std::nullopt;
  PstModule m;
  m.assembly = s.substr(8, arrow - 8);
  const std::size_t g = s.rfind("; G:");
  const std::size_t a = s.rfind("; A:");
  if (g == npos || a == npos || g < arrow || a < g) return std::nullopt;
  const auto guid = parse_guid_text(s.substr(g + 4, a - g - 4));
  if (!guid) return std::nullopt;
  m.guid = *guid;
  std::size_t pos = a + 4, digits = 0;
  std::uint64_t age = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
    age = age * 10 + std::uint64_t(s[pos++] - '0');
    if (++digits > 10) return std::nullopt;
  }
  if (digits == 0 || age > UINT32_MAX || !blank_rest(s, pos)) return std::nullopt;
  m.age = std::uint32_t(age);
  return m;
}

}  // namespace ilmap::symbolicate
