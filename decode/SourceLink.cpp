// SourceLink.cpp - parse {"documents": {...}} with nlohmann::json and map document paths.
#include "decode/SourceLink.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ilmap {
namespace {

bool iequals_ascii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Uri.EscapeDataString: keep RFC 3986 unreserved characters, percent-encode every other byte.
void escape_segment(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
}

// The JSON text without the commas that stand right before a closing '}' or ']' (only white
// space and comments between them). The SourceLink tooling reads its JSON with trailing commas
// allowed (dotnet/sourcelink's SourceLinkMap), and the JSON library here has no such option.
// Strings and comments are copied as they are, so a comma inside them is never touched.
std::string without_trailing_commas(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  // The end of the white space and comments starting at `i` (an unterminated comment ends the text).
  auto skip_blank = [&](std::size_t i) {
    while (i < in.size()) {
      const char c = in[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i;
      } else if (c == '/' && i + 1 < in.size() && in[i + 1] == '/') {
        const std::size_t nl = in.find('\n', i);
        i = nl == std::string_view::npos ? in.size() : nl + 1;
      } else if (c == '/' && i + 1 < in.size() && in[i + 1] == '*') {
        const std::size_t end = in.find("*/", i + 2);
        i = end == std::string_view::npos ? in.size() : end + 2;
      } else {
        break;
      }
    }
    return i;
  };
  char last = 0;  // the last character outside white space and comments
  for (std::size_t i = 0; i < in.size();) {
    const char c = in[i];
    if (c == '"') {  // a string, escapes included, copied whole
      std::size_t j = i + 1;
      while (j < in.size() && in[j] != '"') j += in[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, in.size());
      out.append(in.substr(i, j - i));
      i = j;
      last = '"';
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
               (c == '/' && i + 1 < in.size() && (in[i + 1] == '/' || in[i + 1] == '*'))) {
      const std::size_t j = skip_blank(i);
      out.append(in.substr(i, j - i));
      i = j;
    } else {
      // A comma after a value and before the close is dropped; one with no value before it
      // ("{,}", ",,") stays and the parser refuses it.
      const std::size_t next = c == ',' ? skip_blank(i + 1) : 0;
      const bool trailing = c == ',' && next < in.size() && (in[next] == '}' || in[next] == ']') &&
                            last != 0 && last != '{' && last != '[' && last != ',';
      if (!trailing) out.push_back(c);
      last = c;
      ++i;
    }
  }
  return out;
}

}  // namespace

Result<SourceLinkMap> SourceLinkMap::parse(std::string_view json) {
  // Comments are skipped and trailing commas dropped, as the tools that read SourceLink do.
  const std::string text = without_trailing_commas(json);
  nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, false, true);
  if (doc.is_discarded() || !doc.is_object())
    return Error{Errc::kMalformed, "SourceLink JSON is not a valid JSON object"};
  SourceLinkMap map;
  auto it = doc.find("documents");
  if (it == doc.end()) return map;
  if (!it->is_object()) return Error{Errc::kMalformed, "SourceLink JSON: \"documents\" is not an object"};
  for (auto& [key, value] : it->items()) {
    if (!value.is_string())
      return Error{Errc::kMalformed, "SourceLink JSON: the URL of \"" + key + "\" is not a string"};
    const std::string url = value.get<std::string>();
    SourceLinkEntry e;
    const auto star = key.find('*');
    if (star != std::string::npos) {
      if (star != key.size() - 1)
        return Error{Errc::kMalformed, "SourceLink JSON: key \"" + key + "\" has a '*' that is not its last character"};
      e.prefix = true;
      e.key = key.substr(0, star);
    } else {
      e.key = key;
    }
    const auto ustar = url.find('*');
    if (ustar != std::string::npos) {
      if (url.find('*', ustar + 1) != std::string::npos)
        return Error{Errc::kMalformed, "SourceLink JSON: URL \"" + url + "\" has more than one '*'"};
      if (!e.prefix)
        return Error{Errc::kMalformed, "SourceLink JSON: URL \"" + url + "\" has a '*' but its key does not"};
      e.url = url.substr(0, ustar);
      e.url_suffix = url.substr(ustar + 1);
      e.url_has_star = true;
    } else {
      e.url = url;
    }
    map.entries_.push_back(std::move(e));
  }
  std::stable_sort(map.entries_.begin(), map.entries_.end(),
                   [](const SourceLinkEntry& a, const SourceLinkEntry& b) { return a.key.size() > b.key.size(); });
  return map;
}

std::optional<std::string> SourceLinkMap::map(std::string_view path) const {
  if (path.find('*') != std::string_view::npos) return std::nullopt;
  for (const SourceLinkEntry& e : entries_) {
    if (e.prefix) {
      if (path.size() < e.key.size() || !iequals_ascii(path.substr(0, e.key.size()), e.key)) continue;
      std::string url = e.url;
      std::string_view rest = path.substr(e.key.size());
      std::size_t start = 0;
      for (std::size_t i = 0; i <= rest.size(); ++i) {
        if (i == rest.size() || rest[i] == '/' || rest[i] == '\\') {
          if (start > 0) url.push_back('/');  // segments are joined with '/'
          escape_segment(url, rest.substr(start, i - start));
          start = i + 1;
        }
      }
      url += e.url_suffix;
      return url;
    }
    if (iequals_ascii(path, e.key)) return e.url;
  }
  return std::nullopt;
}

}  // namespace ilmap
