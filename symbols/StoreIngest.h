// StoreIngest.h - what `ilmap store add` and `ilmap store verify` do with a Store (a folder or
// an S3 bucket, symbols/Store.h): add a
// PE or PDB under its SSQP key with the ilmap cache of its PDB beside it, and check a whole
// store (every file against the key it sits under, every cache against the bytes it derives
// from, every Portable PDB for its cache).
//
// Where caches go (docs/symbol-stores.md "Symbol stores"):
//   - a Portable PDB foo.pdb: STORE/foo.pdb/<guid>FFFFFFFF/foo.ilmap, beside the PDB;
//   - a PE with an embedded Portable PDB: the same place, under the key of the PDB its
//     CodeView entry names (what a client derives from the PE), though no .pdb file is there;
//   - a Windows PDB: stored without a cache (ilmap caches are compiled from Portable PDBs).
// A cache is derived data, and only ever stored beside the bytes it was compiled from: its
// identity records the SHA-256 of its PDB (id zeroed, Identity.pdb_sha256), which is compared
// with the PDB stored under the key (or with the PE's embedded PDB), since the 20-byte id is
// public and anyone can claim it. A cache that fails to open or verify, records another id, no
// SHA-256 (format 2.0) or the SHA-256 of bytes not stored is replaced; one that derives from
// the same bytes is kept even when this ilmap would write other bytes (another version), unless
// the new one records package-source URLs and it records none. The first cache with package
// URLs stays: another package repeating the PDB does not change its URLs. A PE whose embedded
// PDB claims the id of a stored PDB with other bytes is refused (kMismatch), before any write.
// The cache is written before its PDB or PE, and removed again when that cannot follow (a
// full disk): a PDB is never left without its cache.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "symbols/ModuleIdentity.h"
#include "symbols/SymbolStore.h"
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
// read/parse error (exit 2), kMalformed for a name that makes an invalid key (exit 2),
// kMismatch when different bytes sit under its key or its PDB's (exit 3).
Result<std::vector<StoredFile>> add_to_store(Store& store, const std::string& path);

struct AddOptions {
  // When set, called with the Portable PDB a cache is compiled from (a PDB file, or a PE's
  // embedded one): each document's URL by index ("" for none), recorded where SourceLink gives
  // none (CacheSource::document_urls). Package ingestion uses it for source-store URLs.
  std::function<Result<std::vector<std::string>>(const PortablePdb&)> document_urls;
  // A Portable PDB file's cache takes the method names and PE identity of the PE beside it
  // (<stem>.dll or <stem>.exe) when that PE's CodeView entry names the PDB (add_to_store).
  bool names_from_pe_beside = false;
};

// add_to_store for bytes already in memory: `name` gives the file name (its last '/'
// component), `where` names the input in messages (e.g. "pkg.snupkg: lib/net8.0/Foo.pdb").
Result<std::vector<StoredFile>> add_bytes_to_store(Store& store, const std::string& name,
                                                   const std::string& where, std::span<const std::uint8_t> bytes,
                                                   const AddOptions& options = {});

// What a valid cache records about the PDB it was compiled from.
struct CacheOrigin {
  std::array<std::uint8_t, 20> pdb_id{};
  std::vector<std::uint8_t> pdb_sha256;  // 32 bytes; empty in a format 2.0 cache
  bool package_source_urls = false;
  std::string pe_key;                    // the PE embedding the PDB, when compiled from one
};
// Opens and verifies the cache `bytes` (Cache::verify) and reads its origin.
Result<CacheOrigin> read_cache_origin(std::span<const std::uint8_t> bytes);

// True when the cache at `path` opens, passes Cache::verify and records the PDB id `pdb_id`.
Status check_cache(const std::string& path, const std::array<std::uint8_t, 20>& pdb_id);

// What a key says its bytes are: a PE or PDB under its own file name ("foo.pdb/<id>/foo.pdb",
// a .pdz's "foo.pdb/<id>/msfz0/foo.pdb"),
// the cache beside a PDB ("foo.pdb/<id>/foo.ilmap"), or anything else (file.ptr, ...), which
// names no identity.
enum class StoredKind { kFile, kCache, kOther };
StoredKind stored_kind(std::string_view key);

// The one check of stored bytes against the key they are stored under (store verify, store get):
// a file must have that key (identify_file: a PE's stamp and image size, a PDB's id; so a file
// cut short or padded fails to parse or names another key), a cache must open, pass
// Cache::verify (its payload checksum) and record a PDB id of the key's GUID. `file` or `cache`
// is what the bytes turned out to be; kOther keys are not checked. Errors: the parser's
// (exit 2), kMismatch for bytes of another key (exit 3).
struct StoredCheck {
  StoredKind kind = StoredKind::kOther;
  std::optional<ModuleIdentity> file;  // a PE or PDB (none for a Mono .msym, which has no identity)
  std::optional<CacheOrigin> cache;
};
Result<StoredCheck> check_stored_bytes(std::string_view key, std::span<const std::uint8_t> bytes);

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
VerifyReport verify_store(const Store& store);

}  // namespace ilmap::symbols
