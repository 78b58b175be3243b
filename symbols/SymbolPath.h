// SymbolPath.h - the _NT_SYMBOL_PATH / dotnet-symbol syntax of --symbol-path, as Windows
// debuggers read it:
//
//   srv*C:\symbols*https://server1;SRV*https://server2;cache*D:\cache;\\server\share;DIR
//
// Entries are separated by ';'. `srv*A*...*Z`: Z is the server (an http(s) URL, an s3:// bucket
// store, or a directory store), the elements before it are local caches (files downloaded from Z are kept in the
// first one, and looked up in each). `symsrv*DLL*A*...*Z` is the debuggers' long form of the
// same (DLL names the symbol server DLL; ilmap has its own client and ignores it). `cache*DIR`
// makes DIR the cache of the `srv` entries after it that name none; `cache*` alone gives them
// the default back. Any other entry is a local directory read as a store. Prefixes are
// case-insensitive; paths are kept as written (drive letters, backslashes, UNC shares). Empty
// entries and elements are ignored (`srv**URL`: the default cache, as debuggers read it).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ilmap/status.h"
#include "support/CacheHome.h"

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

// The default cache directory. Linux: $XDG_CACHE_HOME/ilmap, else $HOME/.cache/ilmap, else "".
// Windows: %LOCALAPPDATA%\ilmap, else "". Caches compiled by symbolicate go there, and a
// server's downloads under its symbols/ when the symbol path names no download cache for it
// (srv*URL).
std::string default_cache_dir();

// The rule of default_cache_dir() for either convention, over `env` (a getenv): what the tests
// check for both platforms.
std::string default_cache_dir(CacheConvention convention, const std::function<const char*(const char*)>& env);

}  // namespace ilmap::symbols
