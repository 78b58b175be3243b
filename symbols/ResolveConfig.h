// ResolveConfig.h - one description of where a front end finds modules and how it compiles
// them: the search paths, the symbol path, the cache directory, download and miss limits, and
// the compile settings. `ilmap symbolicate`, `ilmap lookup`, `ilmap compile`, `ilmap serve` and
// the C API (and the Python and .NET bindings through it) fill one from what their user said and
// build their ModuleIndexOptions and CompileFileOptions from it, so an option is added here once
// (docs/architecture.md: what another program could want belongs in a library).
//
// What stays with the front end: reading its arguments and the environment ($_NT_SYMBOL_PATH is
// the CLI's, the C API does not read it), and the words an error is prefixed with.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "symbols/CompileFile.h"
#include "symbols/HttpGet.h"
#include "symbols/ModuleIndex.h"
#include "symbols/ModuleResolver.h"
#include "ilmap/status.h"

namespace ilmap::symbols {

struct ResolveConfig {
  // Files and folders modules are found in; empty: the current directory (as dotnet-stack).
  std::vector<std::string> search;
  // Where compiled caches (and a --fetch-sources download's sources/) go. Unset: the default
  // (default_cache_dir()); "": none, caches are compiled in memory only.
  std::optional<std::string> cache_dir;
  // A symbol path (SymbolPath.h syntax) to fetch PDBs and caches from; "": none.
  std::string symbol_path;
  long download_timeout_s = HttpOptions{}.total_timeout_s;  // HttpOptions::total_timeout_s
  TransferCounter* downloads = nullptr;                     // HttpOptions::counter
  long miss_ttl_s = -1;                                     // ModuleIndexOptions::miss_ttl_s
  // Several module indexes are built from one module_index_options() and used at once (a
  // service's workers): they share one single flight and one compiled epoch (ModuleIndex.h).
  bool shared_by_workers = false;
  bool touch_reused = false;                               // ModuleIndexOptions::touch_reused
  std::function<void(const std::string&)> note;            // -v: one line per compile / reuse / refusal
  CompileOptions compile;  // how caches are compiled (ModuleIndex reads only embed_sources)
  // Mono AOT `.msym` folders or stores (--msym-dir), tried before the symbol path's stores and
  // servers (docs/msym.md section 3; symbolicate::MsymSource::create reads both).
  std::vector<std::string> msym_dirs;

  // cache_dir, or the default when unset ("" when there is none: no $XDG_CACHE_HOME, no $HOME).
  std::string cache_directory() const;
  // The HTTP settings of a download this configuration makes (the symbol path's, SourceLink's).
  HttpOptions http_options() const;
  // The options a ModuleIndex is created with. Fails only on a bad symbol path, with
  // parse_symbol_path's error unprefixed: the front end says how it was given ("--symbol-path: ").
  Result<ModuleIndexOptions> module_index_options() const;
  // The resolver of the symbol path, for files other than a module's PDB or cache (an .msym),
  // whose downloads stop at `max_bytes` (a file of that kind is never larger): nullopt when
  // there is no symbol path. Fails as module_index_options() does.
  Result<std::optional<ModuleResolver>> symbol_path_resolver(std::uint64_t max_bytes) const;
  // The options of compile_file for one input (pdb, pe, threads and the directory-mode fields
  // are the caller's to set): the compile settings, with this symbol path and download limit.
  CompileFileOptions compile_file_options() const;
};

}  // namespace ilmap::symbols
