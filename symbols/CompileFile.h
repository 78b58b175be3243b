// CompileFile.h - one input file to one cache file: what `ilmap compile` does for each input,
// and what the C API's ilmap_compile does. The input is a PE (its PDB beside it, embedded, named
// by `pdb`, or fetched from the symbol path) or a Portable or Windows PDB (method names from
// `pe`, or from a same-named .dll/.exe beside it whose CodeView entry names the PDB). The
// output follows support/AtomicFile.h (never an input, write-through for devices, atomic
// replacement otherwise; missing folders are created); a cache that is already what this run
// would write, and verifies, is left alone unless `force`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symbols/HttpGet.h"
#include "symbols/ModuleResolver.h"
#include "ilmap/status.h"

namespace ilmap::symbols {

// How a cache is compiled, whatever asks for it (`ilmap compile`, the C API's ilmap_compile, a
// ResolveConfig: symbols/ResolveConfig.h): the settings every input of a run shares.
struct CompileOptions {
  bool embed_sources = false;
  bool force = false;  // write even when the cache is up to date
  bool fsync = false;
  std::uint64_t max_decompressed = std::uint64_t(512) << 20;  // one embedded PDB or source
};

// One input's compile: the shared settings, where a missing PDB is fetched from, and what
// belongs to this input alone.
struct CompileFileOptions {
  CompileOptions compile;
  std::string symbol_path;  // where a PE's PDB is fetched from when not found locally ("" = none)
  long download_timeout_s = HttpOptions{}.total_timeout_s;
  std::string pdb;  // the PDB of a PE input ("" = where the PE's debug directory says)
  std::string pe;   // the PE of a PDB input, for method names ("" = a same-named one beside it)
  unsigned threads = 1;  // threads that encode the point blocks
  // Directory mode of `ilmap compile`: a PE without a usable PDB is skipped rather than an error,
  // and a PE whose PDB the symbol path lacks too.
  bool from_directory = false;
  // Directory mode: an earlier input that writes the same output (refused, once the input is
  // known to have a PDB).
  std::string collides_with;
};

enum class CompileOutcome : std::uint8_t { kCompiled, kUpToDate, kSkipped, kFailed };

struct CompileFileResult {
  CompileOutcome outcome = CompileOutcome::kFailed;
  Error error;                        // kFailed: what and where
  std::string skipped;                // kSkipped: why
  std::vector<std::string> warnings;  // what the cache lacks ("<file>: method names not stored: ...")
  std::uint64_t points = 0;           // kCompiled: sequence points
  std::uint64_t point_bytes = 0;      // kCompiled: bytes of the point blocks
  std::size_t bytes = 0;              // kCompiled: cache bytes
};

CompileFileResult compile_file(const std::string& input, const std::string& output, const CompileFileOptions& options);

// What the symbol path `spec` holds for the PE or Portable PDB at `input`: with `want_cache`
// the ilmap cache of its (first Portable) PDB, else that PDB itself. Everything returned was
// verified (ModuleResolver.h). kUsage for a bad SPEC; kNotFound when no source has it (or,
// wanting a cache, a source has only the PDB: the message says to compile it); kMismatch
// when only wrong files were offered; kIo on server failure.
// `download_timeout_s`: HttpOptions::total_timeout_s.
Result<Resolved> resolve_with_symbol_path(const std::string& spec, const std::string& input, bool want_cache,
                                          long download_timeout_s);

}  // namespace ilmap::symbols
