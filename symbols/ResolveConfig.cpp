// ResolveConfig.cpp - the front ends' one configuration turned into the options of ModuleIndex
// and compile_file (ResolveConfig.h).
#include "symbols/ResolveConfig.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "support/KeyedLocks.h"
#include "symbols/SymbolPath.h"

namespace ilmap::symbols {

std::string ResolveConfig::cache_directory() const { return cache_dir ? *cache_dir : default_cache_dir(); }

HttpOptions ResolveConfig::http_options() const {
  HttpOptions http;
  http.total_timeout_s = download_timeout_s;
  http.counter = downloads;
  return http;
}

Result<ModuleIndexOptions> ResolveConfig::module_index_options() const {
  ModuleIndexOptions o;
  o.search = search.empty() ? std::vector<std::string>{"."} : search;
  o.cache_dir = cache_directory();
  if (!symbol_path.empty()) {
    auto entries = parse_symbol_path(symbol_path);
    if (!entries) return entries.error();
    o.symbol_path = std::move(*entries);
  }
  o.http = http_options();
  o.note = note;
  o.embed_sources = compile.embed_sources;
  o.miss_ttl_s = miss_ttl_s;
  if (shared_by_workers) {
    o.single_flight = std::make_shared<KeyedLocks>();
    o.compiled_epoch = std::make_shared<std::atomic<std::uint64_t>>(0);
  }
  o.touch_reused = touch_reused;
  return o;
}

Result<std::optional<ModuleResolver>> ResolveConfig::symbol_path_resolver(std::uint64_t max_bytes) const {
  if (symbol_path.empty()) return std::optional<ModuleResolver>();
  auto entries = parse_symbol_path(symbol_path);
  if (!entries) return entries.error();
  ResolveOptions ro;
  ro.http = http_options();
  ro.http.max_bytes = std::min(ro.http.max_bytes, max_bytes);
  ro.note = note;
  ro.want_cache = false;
  auto r = ModuleResolver::create(std::move(*entries), std::move(ro));
  if (!r) return r.error();
  return std::optional<ModuleResolver>(std::move(*r));
}

CompileFileOptions ResolveConfig::compile_file_options() const {
  CompileFileOptions o;
  o.compile = compile;
  o.symbol_path = symbol_path;
  o.download_timeout_s = download_timeout_s;
  return o;
}

}  // namespace ilmap::symbols
