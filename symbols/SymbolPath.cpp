// SymbolPath.cpp - see SymbolPath.h.
#include "symbols/SymbolPath.h"

#include <algorithm>
#include <cstdlib>

namespace ilmap::symbols {
namespace {

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = s.find(sep, start);
    std::string part(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    while (!part.empty() && (part.back() == ' ' || part.back() == '\t')) part.pop_back();
    part.erase(0, part.find_first_not_of(" \t") == std::string::npos ? part.size() : part.find_first_not_of(" \t"));
    if (!part.empty()) out.push_back(std::move(part));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return out;
}

bool ieq_prefix(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

}  // namespace

Result<std::vector<SymbolPathEntry>> parse_symbol_path(std::string_view spec) {
  std::vector<SymbolPathEntry> out;
  std::string default_cache;
  for (const std::string& entry : split(spec, ';')) {
    const bool symsrv = ieq_prefix(entry, "symsrv*");
    if (symsrv || ieq_prefix(entry, "srv*") || ieq_prefix(entry, "cache*")) {
      const bool srv = symsrv || ieq_prefix(entry, "srv*");
      std::vector<std::string> parts = split(std::string_view(entry).substr(symsrv ? 7 : srv ? 4 : 6), '*');
      if (!srv) {
        // cache* alone: the debuggers' default cache, here ModuleResolver's (default_cache_dir()).
        default_cache = parts.empty() ? std::string() : parts.front();
        continue;
      }
      if (symsrv) {
        // symsrv*DLL*...: the DLL that would serve it (symsrv.dll) means nothing to ilmap.
        if (parts.size() < 2) return Error{Errc::kUsage, "symbol path entry '" + entry + "' names no server after the DLL"};
        parts.erase(parts.begin());
      }
      if (parts.empty()) return Error{Errc::kUsage, "symbol path entry '" + entry + "' names no server"};
      SymbolPathEntry e;
      e.kind = SymbolPathEntry::Kind::kServer;
      e.location = parts.back();
      parts.pop_back();
      e.caches = std::move(parts);
      if (e.caches.empty() && !default_cache.empty()) e.caches.push_back(default_cache);
      if (e.location.find("://") != std::string::npos && !e.remote())
        return Error{Errc::kUsage, "symbol path entry '" + entry + "': only http://, https:// and s3:// servers are supported"};
      for (const std::string& c : e.caches)
        if (c.find("://") != std::string::npos)
          return Error{Errc::kUsage, "symbol path entry '" + entry + "': the cache '" + c + "' is not a directory"};
      while (e.remote() && e.location.back() == '/') e.location.pop_back();
      out.push_back(std::move(e));
    } else {
      if (entry.find("://") != std::string::npos)
        return Error{Errc::kUsage, "symbol path entry '" + entry + "': a server needs the srv* prefix (srv*CACHE*URL)"};
      SymbolPathEntry e;
      e.location = entry;
      out.push_back(std::move(e));
    }
  }
  if (out.empty()) return Error{Errc::kUsage, "empty symbol path"};
  return out;
}

std::string default_cache_dir(CacheConvention convention, const std::function<const char*(const char*)>& env) {
  if (convention == CacheConvention::kWindows) {
    // Per user and per machine (not roaming), where Windows programs keep caches; no fallback
    // to %USERPROFILE%: a session without LOCALAPPDATA is a service's, which names its own.
    if (const char* l = env("LOCALAPPDATA"); l && *l) return std::string(l) + "\\ilmap";
    return {};
  }
  if (const char* x = env("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ilmap";
  if (const char* h = env("HOME"); h && *h) return std::string(h) + "/.cache/ilmap";
  return {};
}

std::string default_cache_dir() {
  return default_cache_dir(kHostCacheConvention, [](const char* name) { return std::getenv(name); });
}

}  // namespace ilmap::symbols
