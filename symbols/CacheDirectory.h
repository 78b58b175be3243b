// CacheDirectory.h - the module index's cache directory (ModuleIndexOptions::cache_dir): where
// the cache of a PDB lives, in the symbol-store layout (keys validated: a PDB name read from a
// file never leads outside the directory); one download or compile per cache path among the
// indexes sharing a set of single-flight locks; reuse of a ready cache (it verifies, records the
// wanted PDB id, and has method names and embedded sources when asked for; touched so that the
// least recently used is the oldest); and compiling a module into it, atomically (answered from
// memory when the directory cannot be written). Without a directory, caches live in memory.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "decode/DebugInput.h"
#include "decode/Guids.h"
#include "ilmap/cache.h"
#include "ilmap/status.h"
#include "support/KeyedLocks.h"

namespace ilmap::symbols {

class CacheDirectory {
 public:
  struct Options {
    std::string dir;                            // "" for none
    std::shared_ptr<KeyedLocks> single_flight;  // null: one index alone
    bool touch_reused = false;                  // set a reused cache's modification time to now
    bool embed_sources = false;                 // caches hold the PDBs' embedded sources
    std::function<void(const std::string&)> note;
  };
  explicit CacheDirectory(Options options) : opt_(std::move(options)) {}

  // DIR/<cache key> of the PDB with SSQP key `pdb_key`; "" without a directory. An error, and
  // nothing read or written, for a key validate_key refuses (a CodeView path of "..").
  Result<std::string> path_for_key(const std::string& pdb_key) const;
  // DIR/<pdb name>/<guid N>FFFFFFFF/<stem>.ilmap (a Portable PDB).
  Result<std::string> portable_path(std::string_view pdb_name, const Guid& guid) const;
  // DIR/<pdb name>/<GUID N><age x>/<stem>.ilmap (a Windows PDB: GUID + DBI age).
  Result<std::string> windows_path(std::string_view pdb_name, const Guid& guid, std::uint32_t age) const;

  // Holds `path` among the indexes sharing the single-flight locks until the guard goes, so
  // its download and compile happen once. Nothing for "" or without shared locks.
  KeyedLocks::Guard hold(const std::string& path) const;

  // False when embedded sources are wanted and `c` was compiled without them.
  bool has_sources_wanted(const Cache& c) const { return !opt_.embed_sources || c.identity().holds_embedded_sources; }

  // The cache at `path` when it is there, verifies and records `pdb_id`, with method names when
  // `need_names` and embedded sources when wanted; null otherwise (a note says why one was not
  // taken).
  std::optional<Cache> reuse(const std::string& path, const std::array<std::uint8_t, 20>& pdb_id, bool need_names) const;

  struct Compiled {
    Cache cache;
    std::string file;  // where it was written; "" when it lives in memory
  };
  // Compiles `in` (with method names from `pe_bytes`, the module's PE, when given) and writes
  // it at `path` ("" for memory only); the cache opened from there. The error names the file.
  Result<Compiled> compile(const DebugInput& in, std::span<const std::uint8_t> pe_bytes, const std::string& path) const;

 private:
  void note(const std::string& s) const {
    if (opt_.note) opt_.note(s);
  }
  Options opt_;
};

}  // namespace ilmap::symbols
