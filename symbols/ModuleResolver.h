// ModuleResolver.h - the one module-resolution component (docs/architecture.md): given a
// module identity, find the file (for a Portable PDB, preferably its ilmap cache) in the sources
// of a symbol path, in order: local stores and plain store directories are read in place; HTTP
// servers are asked by SSQP key (with the SymbolChecksum header), and what they send is kept
// in the entry's local cache, an ordinary SymbolStore. Nothing is used or kept unverified:
//   - a cache must open, pass Cache::verify and record the wanted 20-byte PDB id; when the PE
//     records PdbChecksum entries, also a SHA-256 of its PDB equal to the PE's SHA256 entry
//     (the id is public; a cache that cannot show this is refused and the PDB is fetched);
//   - a PDB must have the wanted key (Portable: the full id too) and, when the PE records
//     PdbChecksum entries, match one of them.
// A Portable PDB downloaded without a cache gets its cache compiled beside it in the local
// cache (store add), and that cache is the answer.
// A PDB or PE absent under its key may be replaced by symstore's file.ptr (FilePointer.h): its
// target is read (a local store: a local path; a server: a URL or an absolute local path) and
// verified like a download.
// A 404 is remembered for `negative_ttl_s` seconds by a marker file in the cache
// (CACHE/.ilmap-404/<hash of server and key>), so the server is not asked again meanwhile.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "symbols/HttpGet.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/SymbolPath.h"
#include "ilmap/status.h"

namespace ilmap::symbols {

struct ResolveOptions {
  HttpOptions http;
  long negative_ttl_s = 3600;
  // False: only the PDB is wanted (compile): no cache is asked for or compiled.
  bool want_cache = true;
  // Called with one line per notable event (a refused download, a cached 404), for -v.
  std::function<void(const std::string&)> note;
};

struct Resolved {
  std::string key;   // the key that was found (the cache's or the PDB's)
  std::string path;  // the local file
  bool is_cache = false;
};

class ModuleResolver {
 public:
  // kUsage when an HTTP server entry has no local cache to download into.
  static Result<ModuleResolver> create(std::vector<SymbolPathEntry> path, ResolveOptions options);

  // kNotFound when no source has it; kMismatch when only wrong files were offered; kIo (or
  // kTooLarge) when a source failed and none had it.
  Result<Resolved> resolve(const ModuleIdentity& want) const;

 private:
  ModuleResolver(std::vector<SymbolPathEntry> path, ResolveOptions options)
      : path_(std::move(path)), options_(std::move(options)) {}
  std::vector<SymbolPathEntry> path_;
  ResolveOptions options_;
};

// Checks downloaded or stored bytes against the wanted identity (the rules above).
Status check_cache_bytes(std::span<const std::uint8_t> bytes, const ModuleIdentity& want);
Status check_pdb_bytes(std::span<const std::uint8_t> bytes, const ModuleIdentity& want);

}  // namespace ilmap::symbols
