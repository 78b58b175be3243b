// CompileModule.h - the one path from a decoded module to its cache, for every writer of caches
// (`ilmap compile`, `store add`, symbolicate's module index): the identity (CacheSourceFor.h),
// the method names of the module's PE, and the build (the up-to-date test of a cache file is
// symbols/CompileFile.cpp's: it reads the cache).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/CacheBuilder.h"
#include "compiler/CacheSourceFor.h"
#include "compiler/NamesSection.h"

namespace ilmap {

// What a module's cache is built from. `source` points into the decoded input (and `names` once
// compile_module runs): the input must outlive it.
struct ModuleSource {
  CacheSource source;
  std::optional<NamesSection> names;  // the PE's method names, when the PE is known and managed
  std::vector<std::string> warnings;  // "<file>: method names not stored: <why>"
};

// True when some document of the PDB has an EmbeddedSource CDI (what --embed-sources stores).
bool has_embedded_sources(const PortablePdb& pdb);

// True when the PE's Portable CodeView entries name the PDB (GUID and stamp = its PDB id): the
// PE whose names a cache of that PDB may carry.
bool pe_names_pdb(const PeInfo& pe, const PortablePdb& pdb);

// The identity of `in` (cache_source_for), without names.
ModuleSource module_source(const DebugInput& in);

// Adds method names read from `pe_bytes` (the module's PE, at `pe_path` for messages). A PE
// whose metadata does not give names leaves the cache without them and adds a warning.
void add_method_names(ModuleSource& m, std::span<const std::uint8_t> pe_bytes, const std::string& pe_path);

// The cache bytes of `m`.
Result<CacheBytes> compile_module(const ModuleSource& m, const CacheBuildOptions& options, CacheStats* stats = nullptr);

}  // namespace ilmap
