// SourceLink.h - SourceLink JSON parsing and path -> URL mapping, done at compile time.
//
// Rules (dotnet/designs source-link.md and the reference SourceLinkMap): keys compared
// case-insensitively (ASCII); a key ending in '*' is a prefix; entries are tried from the
// longest key down; the URL's '*' is replaced by the rest of the path with '\' turned into
// '/' and each segment percent-escaped; a path containing '*' never matches.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ilmap/status.h"

namespace ilmap {

struct SourceLinkEntry {
  std::string key;         // without the trailing '*'
  bool prefix = false;
  std::string url;         // before the URL's '*' (or the whole URL)
  std::string url_suffix;  // after the URL's '*'
  bool url_has_star = false;
};

class SourceLinkMap {
 public:
  static Result<SourceLinkMap> parse(std::string_view json);
  std::optional<std::string> map(std::string_view path) const;
  const std::vector<SourceLinkEntry>& entries() const { return entries_; }

 private:
  std::vector<SourceLinkEntry> entries_;  // sorted by decreasing key length, stable
};

}  // namespace ilmap
