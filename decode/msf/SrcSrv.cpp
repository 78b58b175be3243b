// SrcSrv.cpp - srcsrv stream sections, variables, and target expansion (rules in SrcSrv.h).
#include "decode/msf/SrcSrv.h"
#include "support/Ascii.h"

#include <cstring>

#include "decode/msf/PdbInfoStream.h"

namespace ilmap::msf {
namespace {

constexpr int kMaxDepth = 32;
constexpr std::size_t kMaxTarget = 64 * 1024;
constexpr std::size_t kMaxSteps = 65536;

enum class Section { kNone, kIni, kVariables, kFiles, kEnd };

Section section_of(std::string_view line) {
  if (!line.starts_with("SRCSRV:")) return Section::kNone;
  std::string_view rest = line.substr(7);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  const std::string lower = ascii_lower(rest);
  if (lower.starts_with("ini")) return Section::kIni;
  if (lower.starts_with("variables")) return Section::kVariables;
  if (lower.starts_with("source files")) return Section::kFiles;
  if (lower.starts_with("end")) return Section::kEnd;
  return Section::kNone;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  for (;;) {
    const std::size_t star = line.find('*');
    out.push_back(line.substr(0, star));
    if (star == std::string_view::npos) break;
    line.remove_prefix(star + 1);
  }
  return out;
}

}  // namespace

Result<SrcSrv> SrcSrv::parse(std::span<const std::uint8_t> stream) {
  const std::string_view text(reinterpret_cast<const char*>(stream.data()), stream.size());
  if (text.find('\0') != std::string_view::npos)
    return Error{Errc::kMalformed, "srcsrv stream: a NUL byte in the text"};
  SrcSrv s;
  Section at = Section::kNone;
  bool first = true;
  std::size_t pos = 0;
  while (pos < text.size() && at != Section::kEnd) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const Section sec = section_of(line);
    if (first) {
      if (sec != Section::kIni) return Error{Errc::kMalformed, "srcsrv stream: does not start with 'SRCSRV: ini'"};
      first = false;
    }
    if (sec != Section::kNone) {
      at = sec;
      continue;
    }
    if (at == Section::kIni || at == Section::kVariables) {
      const std::size_t eq = line.find('=');
      if (eq == std::string_view::npos || eq == 0) continue;
      const std::string name = ascii_lower(line.substr(0, eq));
      const std::string_view value = line.substr(eq + 1);
      if (at == Section::kIni && name == "version") {
        std::uint32_t v = 0;
        for (char c : value) {
          if (c < '0' || c > '9' || v > 100000) break;
          v = v * 10 + static_cast<std::uint32_t>(c - '0');
        }
        s.version_ = v;
      }
      s.vars_.insert_or_assign(name, std::string(value));
    } else if (at == Section::kFiles) {
      const std::size_t star = line.find('*');
      const std::string key = ascii_lower(line.substr(0, star));
      if (s.files_.try_emplace(key, s.lines_.size()).second) s.lines_.emplace_back(line);
    }
  }
  if (first) return Error{Errc::kMalformed, "srcsrv stream: empty"};
  return s;
}

// Expands `text` into `out`; false when the result would exceed the bounds (or refers to
// itself deeper than kMaxDepth).
bool SrcSrv::expand(std::string_view text, const std::vector<std::string_view>& fields, int depth,
                    std::size_t& steps, std::string& out) const {
  if (depth > kMaxDepth || ++steps > kMaxSteps) return false;
  std::size_t i = 0;
  while (i < text.size()) {
    if (out.size() > kMaxTarget) return false;
    const char c = text[i];
    if (c != '%') {
      out += c;
      ++i;
      continue;
    }
    const std::size_t close = text.find('%', i + 1);
    if (close == std::string_view::npos) {  // a lone '%': kept as is
      out.append(text.substr(i));
      break;
    }
    const std::string name = ascii_lower(text.substr(i + 1, close - i - 1));
    i = close + 1;
    if (name.starts_with("fn") && i < text.size() && text[i] == '(') {
      // %fnX%(argument): the argument runs to the matching ')'.
      int level = 0;
      std::size_t j = i;
      for (; j < text.size(); ++j) {
        if (text[j] == '(') ++level;
        else if (text[j] == ')' && --level == 0) break;
      }
      if (j >= text.size()) return false;
      std::string arg;
      if (!expand(text.substr(i + 1, j - i - 1), fields, depth + 1, steps, arg)) return false;
      i = j + 1;
      if (name == "fnvar") {
        auto it = vars_.find(ascii_lower(arg));
        if (it != vars_.end() && !expand(it->second, fields, depth + 1, steps, out)) return false;
      } else if (name == "fnbksl") {
        for (char& ch : arg)
          if (ch == '/') ch = '\\';
        out += arg;
      } else if (name == "fnfile") {
        const std::size_t cut = arg.find_last_of("\\/");
        out += cut == std::string::npos ? arg : arg.substr(cut + 1);
      } else {
        return false;  // an unknown function: no target
      }
      continue;
    }
    if (name.size() > 3 && name.starts_with("var") &&
        name.find_first_not_of("0123456789", 3) == std::string::npos && name.size() <= 6) {
      const std::size_t n = static_cast<std::size_t>(std::stoul(name.substr(3)));
      if (n >= 1 && n <= fields.size()) out.append(fields[n - 1]);
      continue;
    }
    auto it = vars_.find(name);
    if (it == vars_.end()) continue;  // an undefined variable expands to nothing
    if (!expand(it->second, fields, depth + 1, steps, out)) return false;
  }
  return out.size() <= kMaxTarget;
}

std::optional<std::string> SrcSrv::url(std::string_view path) const {
  auto f = files_.find(ascii_lower(path));
  if (f == files_.end()) return std::nullopt;
  auto trg = vars_.find("srcsrvtrg");
  if (trg == vars_.end()) return std::nullopt;
  const std::vector<std::string_view> fields = split_fields(lines_[f->second]);
  std::string out;
  std::size_t steps = 0;
  if (!expand(trg->second, fields, 0, steps, out)) return std::nullopt;
  const std::string lower = ascii_lower(out.substr(0, 8));
  if (!lower.starts_with("http://") && !lower.starts_with("https://")) return std::nullopt;
  return out;
}

}  // namespace ilmap::msf
