// SymbolPath.h - the _NT_SYMBOL_PATH / dotnet-symbol syntax of --symbol-path:
//
//   srv*LOCALCACHE*https://server1;srv*https://server2;cache*DIR;DIR
//
// Entries are separated by ';'. `srv*A*...*Z`: Z is the server (an http(s) URL, an s3:// bucket
// store, or a directory store), the elements before it are local caches (files downloaded from Z are kept in the
// first one, and looked up in each). `cache*DIR` makes DIR the cache of the `srv` entries after
// it that name none. Any other entry is a local directory read as a store. Empty entries and
// elements are ignored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::symbols {

struct SymbolPathEntry {
  enum class Kind { kServer, kDirectory } kind = Kind::kDirectory;
  std::string location;             // URL (kServer) or directory
  std::vector<std::string> caches;  // local caches of a kServer entry (first = download target)
  bool http() const { return location.rfind("http://", 0) == 0 || location.rfind("https://", 0) == 0; }
  // An S3 bucket (s3://BUCKET/PREFIX, settings from the environment: S3Client.h).
  bool s3() const { return location.rfind("s3://", 0) == 0; }
  bool remote() const { return http() || s3(); }
};

// kUsage for `srv` with nothing after it, or a URL scheme other than http/https/s3.
Result<std::vector<SymbolPathEntry>> parse_symbol_path(std::string_view spec);

// The default cache directory: $XDG_CACHE_HOME/ilmap, else $HOME/.cache/ilmap, else "". Caches
// compiled by symbolicate go there, and a server's downloads under its symbols/ when the symbol
// path names no download cache for it (srv*URL).
std::string default_cache_dir();

}  // namespace ilmap::symbols
