// ModuleIndex.h - finds the cache of a module a trace names, among the --search paths (files
// and directories: PEs, Portable PDBs, .ilmap caches, symbol-store directories) and the sources
// of a --symbol-path, by the identity the trace gives: a module file name (CoreCLR), an MVID
// (Mono), a CodeView GUID + age (ProductionStackTrace), a PDB id / Sentry debug id.
//
// Cheap for a handful of modules: creating the index only lists file names (directories are
// walked, bounded); a file's ids are read the first time a query needs them. What is missing
// is compiled into the cache directory (atomically, the existing compiler) and reused later:
//   CACHE_DIR/<pdb name>/<guid N>FFFFFFFF/<stem>.ilmap   (the symbol-store layout)
//   CACHE_DIR/<pdb name>/<GUID N><age x>/<stem>.ilmap    (a Windows PDB: GUID + DBI age)
// A PE whose CodeView entry names a Windows (MSF) PDB is matched with it like `ilmap compile`
// does (DebugInputOptions::windows_pdbs: GUID + DBI age), also by that id among the search set
// and the symbol path, and compiled with the PE (method names, MVID).
// A reused cache must open, verify and record the wanted 20-byte PDB id. No answer ever comes
// from a PDB whose id differs from the one the PE's CodeView entry (or the trace) names: that
// is Miss::kPdbMismatch. Answers are memoized per identity (a query is a hash lookup after the
// first; at most 65,536 answers are kept), and Cache pointers live as long as the index. A
// reference returned past that bound may be overwritten by the next query; one to a miss may be
// overwritten by a later query that works it out again (ModuleIndexOptions::miss_ttl_s).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "decode/Guids.h"
#include "support/KeyedLocks.h"
#include "symbols/HttpGet.h"
#include "symbols/SymbolPath.h"
#include "ilmap/cache.h"
#include "ilmap/status.h"

namespace ilmap::symbols {

enum class Miss : std::uint8_t {
  kNone,            // answered
  kModuleNotFound,  // nothing in the search set has this identity
  kPdbMismatch,     // the module was found, but its PDB has another id
  kNoPdb,           // the module was found, but no PDB of it (none beside it, none embedded)
  kBadFile,         // a file that should answer is unreadable or corrupt
  kBadPdbName,      // the PDB name a file records makes no valid cache key ("..", a control character)
};
const char* miss_name(Miss m) noexcept;  // "module not found", "PDB id mismatch", ...

struct ModuleAnswer {
  const Cache* cache = nullptr;  // set when miss == kNone
  Miss miss = Miss::kModuleNotFound;
  std::string detail;            // why (names the files), for -v
};

struct ModuleIndexOptions {
  std::vector<std::string> search;
  std::string cache_dir;  // where compiled caches go (created on first need)
  std::vector<SymbolPathEntry> symbol_path;
  HttpOptions http;  // for the symbol path's servers
  std::function<void(const std::string&)> note;  // -v: one line per compile / reuse / refusal
  // Compile the PDBs' embedded sources into the caches (symbolicate --context shows them); a
  // ready cache without them is compiled again (as often as asked, for a PDB that has none:
  // a cache cannot tell "none" from "not asked for").
  bool embed_sources = false;
  // How long an answer that found no cache (any Miss) stands: -1, for the index's life (a
  // command's one run); N >= 0, it is worked out again when asked N seconds or more after it was
  // (a service, whose symbol server may come back or gain the PDB). Answers that found a cache
  // stand for the index's life.
  long miss_ttl_s = -1;
  // Shared by indexes over the same cache directory used at once (a service's workers): the
  // download and compile of one cache path is done by one of them while the others wait, then
  // find it ready. Null: none (one index alone).
  std::shared_ptr<KeyedLocks> single_flight;
  // Shared by the same indexes: counts the caches any of them compiled or took from the symbol
  // path. An answer that found no cache stands only while the count is what it was when the
  // answer was worked out, so once one index compiles or downloads a module's cache, another's
  // "not found" for it is worked out again at its next ask (and finds the cache) instead of
  // standing until miss_ttl_s. Null: none (one index alone).
  std::shared_ptr<std::atomic<std::uint64_t>> compiled_epoch;
  // Set the modification time of a cache of the cache directory to now when it is reused, so
  // that the oldest are the least recently used (a service's cache-size cap evicts by it).
  bool touch_reused = false;
};

struct ModuleIndexStats {
  std::size_t files = 0;     // candidate files listed
  std::size_t compiled = 0;  // caches compiled into the cache directory
  std::size_t reused = 0;    // caches found ready (cache directory or search set)
  // Passes over the whole search set. Each builds an index (by file name, once listed; by id,
  // MVID or cached PDB id, on the first query that needs one); queries are lookups after it.
  std::size_t scans = 0;
  std::size_t open = 0;  // caches held open (mapped) by the index
};

class ModuleIndex {
 public:
  // Lists the search paths. kNotFound for a path that does not exist (exit 3); kUsage for an
  // empty cache directory name.
  static Result<std::unique_ptr<ModuleIndex>> create(ModuleIndexOptions options);
  ~ModuleIndex();

  // "App.dll" as CoreCLR prints it (case-insensitive file name; a PE of that name, or a cache
  // compiled from one).
  const ModuleAnswer& by_file_name(std::string_view module_file);
  const ModuleAnswer& by_mvid(const Guid& mvid);
  // A CodeView entry's GUID and age; `name_hint` (an assembly or file name, may be empty) is
  // only used to try likely files first.
  const ModuleAnswer& by_codeview(const Guid& guid, std::uint32_t age, std::string_view name_hint);
  // `name_hint` (the PDB's or the module's file name, may be empty): tried first, and the name
  // the --symbol-path is asked under (no name, no request: an SSQP key needs one).
  const ModuleAnswer& by_pdb_id(const std::array<std::uint8_t, 20>& pdb_id, std::string_view name_hint = {});
  // Sentry debug id "<guid D>-<stamp as 8 hex>" (Portable) or "<guid>-<age hex>", dashes
  // optional (parse_debug_id;
  // anything else is kModuleNotFound "not a debug id"); `name_hint` as for by_pdb_id.
  const ModuleAnswer& by_debug_id(std::string_view debug_id, std::string_view name_hint = {});

  // The file at `path` itself, as listed from the search paths (a PE, a PDB or a cache; the
  // path as the search set lists it): its cache, compiled when needed (a PDB alone: without
  // method names). kModuleNotFound when the search set lists no such file.
  const ModuleAnswer& by_path(const std::string& path);
  // The file a cache of this index was opened from ("" for one answered from memory, when the
  // cache directory could not be written).
  std::string file_of(const Cache* cache) const;
  // The PE of the search set a cache of this index was the answer for ("" when none was: a
  // cache or PDB found by id, a symbol store's download). Its identity matched the cache's.
  std::string pe_of(const Cache* cache) const;
  // The PDB a cache of this index came from when it lies outside the search set: read from the
  // absolute path the PE's CodeView entry records (the build's obj/ folder), neither beside the
  // PE nor under a --search path. Also given for a cache of the cache directory reused for such
  // a PE when that recorded file is a Portable PDB with the wanted id (it is what a compile
  // would read). "" otherwise. `ilmap symbolicate` names these in its summary.
  const std::string& outside_pdb_of(const Cache* cache) const;

  // Every module of the search set that has method names (compiles what is needed): for
  // frames that name no module (Android).
  const std::vector<const Cache*>& all_with_names();

  const ModuleIndexStats& stats() const;

 private:
  struct Impl;
  explicit ModuleIndex(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A Sentry debug id: "<guid D>-<stamp as 8 hex digits>" (a Portable PDB id) or "<guid D>-<age as
// 1 to 7 hex digits>" (a Windows PDB), hex digits of any case and nothing else; or either without
// its dashes ("<32 hex digits><8 hex digits>", as Sentry and symbolicator accept it).
struct DebugId {
  Guid guid{};               // on-disk byte order
  std::uint32_t tail = 0;    // the stamp or the age
  bool portable = false;     // 8 digits: a stamp
};
std::optional<DebugId> parse_debug_id(std::string_view text) noexcept;


}  // namespace ilmap::symbols
