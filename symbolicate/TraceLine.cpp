// TraceLine.cpp - the per-line frame parsers (see TraceLine.h). Hand-written scanning, no
// regex: symbolicate parses every line of multi-gigabyte logs.
#include "symbolicate/TraceLine.h"

#include "symbols/ModuleIdentity.h"  // parse_guid_text (decode/Guids.h)

namespace ilmap::symbolicate {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads 1..8 hex digits at s[pos]; advances pos. Nullopt when there are none or more than 8.
std::optional<std::uint32_t> read_hex(std::string_view s, std::size_t& pos) {
  std::uint32_t v = 0;
  std::size_t n = 0;
  while (pos < s.size() && hex_value(s[pos]) >= 0) {
    if (++n > 8) return std::nullopt;
    v = v << 4 | std::uint32_t(hex_value(s[pos++]));
  }
  if (n == 0) return std::nullopt;
  return v;
}

bool valid_token(std::uint32_t t) { return (t >> 24) == 0x06 && (t & 0xFFFFFF) != 0; }
bool valid_offset(std::uint32_t o) { return o < 0x80000000u; }

// The rest of a line after a frame: nothing but spaces, tabs and a final '\r'.
bool blank_rest(std::string_view s, std::size_t pos) {
  for (; pos < s.size(); ++pos)
    if (!is_space(s[pos]) && !(s[pos] == '\r' && pos + 1 == s.size())) return false;
  return true;
}

bool starts_with_at(std::string_view s, std::size_t& body) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  if (s.substr(i, 3) != "at ") return false;
  body = i + 3;
  return true;
}

// "   at METHOD in MODULE:token 0xT+0xO" (also ": token").
ParsedFrame parse_coreclr(std::string_view s, std::size_t body) {
  ParsedFrame f;
  std::size_t tok = s.rfind(":token 0x");
  std::size_t skip = 9;
  if (tok == std::string_view::npos) tok = s.rfind(": token 0x"), skip = 10;
  if (tok == std::string_view::npos || tok <= body) return f;
  const std::size_t in = s.rfind(" in ", tok);
  if (in == std::string_view::npos || in <= body) return f;
  std::size_t pos = tok + skip;
  const auto token = read_hex(s, pos);
  if (!token || s.substr(pos, 3) != "+0x") return f;
  pos += 3;
  const auto off = read_hex(s, pos);
  if (!off || !valid_token(*token) || !valid_offset(*off) || !blank_rest(s, pos)) return f;
  f.format = FrameFormat::kCoreClr;
  f.head = s.substr(0, body);
  f.method = s.substr(body, in - body);
  f.module = s.substr(in + 4, tok - in - 4);
  if (f.module.empty() || f.method.empty()) return ParsedFrame{};
  f.token = *token;
  f.il_offset = *off;
  f.replace_from = in;
  f.replace_to = pos;
  return f;
}

// "   at METHOD in FILE:line N": already has a location.
bool coreclr_with_line(std::string_view s, std::size_t body) {
  const std::size_t at = s.rfind(":line ");
  if (at == std::string_view::npos || at <= body) return false;
  std::size_t pos = at + 6, digits = 0;
  while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') ++pos, ++digits;
  return digits > 0 && s.rfind(" in ", at) != std::string_view::npos && s.rfind(" in ", at) > body;
}

// "  at METHOD [0xOFF] in <MVID>:0" or "<MVID#AOTID>:0".
ParsedFrame parse_mono(std::string_view s, std::size_t body) {
  ParsedFrame f;
  const std::size_t lt = s.rfind("] in <");
  if (lt == std::string_view::npos || lt <= body) return f;
  const std::size_t br = s.rfind(" [0x", lt);
  if (br == std::string_view::npos || br <= body) return f;
  std::size_t pos = br + 4;
  const auto off = read_hex(s, pos);
  if (!off || pos != lt || !valid_offset(*off)) return f;
  const std::size_t id = lt + 6;
  if (s.size() < id + 32) return f;
  for (std::size_t i = id; i < id + 32; ++i)
    if (hex_value(s[i]) < 0) return f;
  pos = id + 32;
  if (pos < s.size() && s[pos] == '#') {  // AOT id: up to '>'
    const std::size_t gt = s.find('>', pos);
    if (gt == std::string_view::npos || gt - pos > 128) return f;
    pos = gt;
  }
  if (s.substr(pos, 3) != ">:0" || !blank_rest(s, pos + 3)) return f;
  f.format = FrameFormat::kMono;
  f.head = s.substr(0, body);
  f.method = s.substr(body, br - body);
  f.module = s.substr(id, 32);
  f.il_offset = *off;
  f.replace_from = lt + 5;
  f.replace_to = pos + 3;
  return f;
}

// "at NAME + 0xOFF(Unknown Source)" (the source part optional).
ParsedFrame parse_android(std::string_view s, std::size_t body) {
  ParsedFrame f;
  const std::size_t plus = s.find(" + 0x", body);
  if (plus == std::string_view::npos || plus == body) return f;
  for (std::size_t i = body; i < plus; ++i)
    if (is_space(s[i])) return f;
  std::size_t pos = plus + 5;
  const auto off = read_hex(s, pos);
  if (!off || !valid_offset(*off)) return f;
  if (s.substr(pos, 16) == "(Unknown Source)") pos += 16;
  if (!blank_rest(s, pos)) return f;
  f.format = FrameFormat::kAndroid;
  f.head = s.substr(0, body);
  f.method = s.substr(body, plus - body);
  f.il_offset = *off;
  f.replace_from = body;
  f.replace_to = pos;
  return f;
}

// "   at Asm!0x0600000f!NS.T.M() +0xc".
ParsedFrame parse_pst(std::string_view s, std::size_t body) {
  ParsedFrame f;
  const std::size_t bang = s.find("!0x", body);
  if (bang == std::string_view::npos || bang == body) return f;
  for (std::size_t i = body; i < bang; ++i)
    if (is_space(s[i]) || s[i] == '!') return f;
  std::size_t pos = bang + 3;
  const auto token = read_hex(s, pos);
  if (!token || pos >= s.size() || s[pos] != '!' || !valid_token(*token)) return f;
  const std::size_t name = pos + 1;
  const std::size_t plus = s.rfind(" +0x");
  if (plus == std::string_view::npos || plus <= name) return f;
  pos = plus + 4;
  const auto off = read_hex(s, pos);
  if (!off || !valid_offset(*off) || !blank_rest(s, pos)) return f;
  f.format = FrameFormat::kPst;
  f.head = s.substr(0, body);
  f.module = s.substr(body, bang - body);
  f.method = s.substr(name, plus - name);
  f.token = *token;
  f.il_offset = *off;
  f.replace_from = body;
  f.replace_to = pos;
  return f;
}

}  // namespace

const char* frame_format_name(FrameFormat f) noexcept {
  switch (f) {
    case FrameFormat::kCoreClr: return "coreclr";
    case FrameFormat::kCoreClrWithLine: return "coreclr-with-line";
    case FrameFormat::kAndroid: return "android";
    case FrameFormat::kMono: return "mono";
    case FrameFormat::kPst: return "pst";
    case FrameFormat::kNone: break;
  }
  return "none";
}

ParsedFrame parse_frame(std::string_view line) noexcept {
  std::size_t body = 0;
  if (line.size() < 6 || !starts_with_at(line, body)) return {};
  // Cheap dispatch on what each format must contain.
  if (line.find("token 0x", body) != std::string_view::npos) {
    ParsedFrame f = parse_coreclr(line, body);
    if (f.format != FrameFormat::kNone) return f;
  }
  if (line.find("] in <", body) != std::string_view::npos) {
    ParsedFrame f = parse_mono(line, body);
    if (f.format != FrameFormat::kNone) return f;
  }
  if (line.find("!0x", body) != std::string_view::npos) {
    ParsedFrame f = parse_pst(line, body);
    if (f.format != FrameFormat::kNone) return f;
  }
  if (line.find(" + 0x", body) != std::string_view::npos) {
    ParsedFrame f = parse_android(line, body);
    if (f.format != FrameFormat::kNone) return f;
  }
  if (coreclr_with_line(line, body)) {
    ParsedFrame f;
    f.format = FrameFormat::kCoreClrWithLine;
    f.head = line.substr(0, body);
    return f;
  }
  return {};
}


bool is_pst_separator(std::string_view line) noexcept {
  while (!line.empty() && (line.back() == '\r' || is_space(line.back()))) line.remove_suffix(1);
  if (line.size() < 10) return false;
  for (char c : line)
    if (c != '=') return false;
  return true;
}

std::optional<PstModule> parse_pst_module(std::string_view s) noexcept {
  if (s.substr(0, 8) != "MODULE: ") return std::nullopt;
  const std::size_t arrow = s.find(" => ", 8);
  if (arrow == std::string_view::npos || arrow == 8) return std::nullopt;
  PstModule m;
  m.assembly = s.substr(8, arrow - 8);
  const std::size_t g = s.rfind("; G:");
  const std::size_t a = s.rfind("; A:");
  if (g == std::string_view::npos || a == std::string_view::npos || g < arrow || a < g) return std::nullopt;
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
