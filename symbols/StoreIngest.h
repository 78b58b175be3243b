// StoreIngest.h - what `ilmap store add` and `ilmap store verify` do with a SymbolStore: add a
// PE or PDB under its SSQP key with the ilmap cache of its PDB beside it, and check a whole
// store (every file against the key it sits under, every cache against the PDB beside it).
//
// Where caches go (README "Symbol stores"):
//   - a Portable PDB foo.pdb: STORE/foo.pdb/<guid>FFFFFFFF/foo.ilmap, beside the PDB;
//   - a PE with an embedded Portable PDB: the same place, under the key of the PDB its
//     CodeView entry names (what a client derives from the PE), though no .pdb file is there;
//   - a Windows PDB: stored without a cache (ilmap caches are compiled from Portable PDBs).
// A cache is derived data: one that fails to open, verify or name the PDB's id is replaced;
// a valid one is kept even when this ilmap would write other bytes (another version).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "SymbolStore.h"
#include "ilmap/status.h"

namespace ilmap {
class PortablePdb;
}

namespace ilmap::symbols {

struct StoredFile {
  std::string key;
  PutOutcome outcome = PutOutcome::kAdded;
};

// Adds the file at `path` (a PE, Portable PDB or Windows PDB) and, for a Portable PDB or a PE
// embedding one, its compiled cache. Returns what was stored, in order. Errors: the file's
// read/parse error (exit 2), kMismatch when different bytes sit under its key (exit 3).
Result<std::vector<StoredFile>> add_to_store(SymbolStore& store, const std::string& path);

struct AddOptions {
  // When set, called with the Portable PDB a cache is compiled from (a PDB file, or a PE's
  // embedded one): each document's URL by index ("" for none), recorded where SourceLink gives
  // none (CacheSource::document_urls). Package ingestion uses it for source-store URLs.
  std::function<Result<std::vector<std::string>>(const PortablePdb&)> document_urls;
};

// add_to_store for bytes already in memory: `name` gives the file name (its last '/'
// component), `where` names the input in messages (e.g. "pkg.snupkg: lib/net8.0/Foo.pdb").
Result<std::vector<StoredFile>> add_bytes_to_store(SymbolStore& store, const std::string& name,
                                                   const std::string& where, std::span<const std::uint8_t> bytes,
                                                   const AddOptions& options = {});

// True when the cache at `path` opens, passes Cache::verify and records the PDB id `pdb_id`.
Status check_cache(const std::string& path, const std::array<std::uint8_t, 20>& pdb_id);
// The same, when only the id's GUID is known (from a key): the first 16 bytes must match.
Status check_cache_guid(const std::string& path, std::span<const std::uint8_t> guid16);

struct VerifyProblem {
  std::string path;  // relative to the store root
  Error error;
};
struct VerifyReport {
  std::size_t files = 0;   // PEs and PDBs checked
  std::size_t caches = 0;  // caches checked
  std::size_t skipped = 0; // other files (lock, index2.txt, temporaries, file.ptr...)
  std::vector<VerifyProblem> problems;
};
VerifyReport verify_store(const SymbolStore& store);

}  // namespace ilmap::symbols
