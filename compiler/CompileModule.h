// CompileModule.h - the one path from a decoded module to its cache, for every writer of caches
// (`ilmap compile`, `store add`, symbolicate's module index): the identity (CacheSourceFor.h),
// the method names of the module's PE, the up-to-date test, and the build.
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

// What an existing cache records about its inputs (the reader's CacheIdentity and names).
struct RecordedInputs {
  std::optional<Guid> names_mvid;  // set when the cache has method names (their MVID)
  bool has_names = false;
  std::uint64_t source_xxh3 = 0, source_size = 0;
  std::string_view source_name, compiler_version;
  bool holds_embedded_sources = false;
};

// A cache recording `r` is what compile_module would write now: same input bytes, same
// compiler, the same names (by the PE's MVID), and the same answer to `embed_sources` (which
// changes the bytes only when the PDB has embedded sources). The caller checks that the cache
// verifies.
bool is_up_to_date(const RecordedInputs& r, const ModuleSource& m, bool embed_sources);

// The cache bytes of `m`.
Result<CacheBytes> compile_module(const ModuleSource& m, const CacheBuildOptions& options, CacheStats* stats = nullptr);

}  // namespace ilmap
