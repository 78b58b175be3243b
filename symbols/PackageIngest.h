// PackageIngest.h - `ilmap store add STORE pkg.nupkg|pkg.snupkg|pkg.symbols.nupkg`: every PE
// and PDB inside a NuGet package added to a symbol store the way add_to_store adds files (keys,
// caches beside PDBs, locks, atomic writes, same bytes = already present, other bytes under a
// key = refused), and, as nAnicitus does for a source server, the package's sources published.
//
// Sources (docs/symbol-stores.md "NuGet symbol packages"): a legacy symbols package carries its
// sources under `src/`. With a source store (`sources_dir` + `source_url_root`), every `src/` file
// is copied to `<sources_dir>/<id>/<version>/<path under src/>` (id and version from the .nuspec),
// and each document of a PDB without SourceLink is matched to one of them by the longest common
// path suffix: document and file paths split into components at '/' and '\', compared from the end
// without ASCII case; the file sharing the most trailing components wins, at least the file name;
// ties go to the file with fewer components, then the byte-wise smaller path. The matched
// document's URL is `<source_url_root>/<id>/<version>/<path>` (components percent-encoded except
// A-Z a-z 0-9 - . _ ~), recorded in the cache as SourceLink URLs are. Sources are written before
// the PDBs whose caches name them; a source file already there with the same bytes is kept, one
// with other bytes is refused (exit 3) like a store key.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "symbols/PackageReader.h"
#include "symbols/StoreIngest.h"
#include "symbols/SymbolStore.h"

namespace ilmap::symbols {

struct PackageAddOptions {
  std::string sources_dir;      // "" = sources are not published
  std::string source_url_root;  // required with sources_dir
  PackageLimits limits;
};

struct PackageEvent {
  enum Kind { kStored, kSource, kMatched } kind = kStored;
  StoredFile stored;         // kStored
  std::string source;        // kSource: "<id>/<version>/<path>"; kMatched: the PDB's key
  PutOutcome source_outcome = PutOutcome::kAdded;
  std::size_t matched = 0;   // kMatched: documents given a source-store URL
  std::size_t documents = 0; // kMatched: documents of the PDB
};

// True for names ending .nupkg or .snupkg (ASCII case ignored).
bool is_package_name(const std::string& name);

// Adds the package at `path`. Events are reported as they happen (a failure part-way leaves
// what was already stored, which a rerun finds "already present"). Errors name the package
// and the entry.
Status add_package(Store& store, const std::string& path, const PackageAddOptions& options,
                   const std::function<void(const PackageEvent&)>& on_event);

// The bytes of any regular file (at most `max` bytes; kTooLarge beyond). FileBytes only opens
// PEs, PDBs and caches; sources and packages are anything.
Result<std::vector<std::uint8_t>> read_plain_file(const std::string& path, std::uint64_t max);

// Exposed for tests: the longest-common-suffix choice among `candidates` (paths under src/),
// -1 when none shares the file name.
int match_document(const std::string& document, const std::vector<std::string>& candidates);
std::string url_encode_path(const std::string& path);

}  // namespace ilmap::symbols
