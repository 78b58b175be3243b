// SourceLink.cpp - parse {"documents": {...}} with nlohmann::json and map document paths.
#include "SourceLink.h"

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

}  // namespace

Result<SourceLinkMap> SourceLinkMap::parse(std::string_view json) {
  nlohmann::json doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
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
