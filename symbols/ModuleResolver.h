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
// A Windows PDB is asked for under its key "foo.pdb/<GUID><age>/foo.pdb" and, when a source has
// no usable file there (absent, 404, a failed download, or refused), under
// "foo.pdb/<GUID><age>/msfz0/foo.pdb" (a .pdz, the same PDB in an MSFZ container): plain first,
// then msfz0, in each source before the next. What comes from the msfz0 key must be an MSFZ PDB
// whose key is that key (GUID + DBI age); a miss names both keys.
// A Portable PDB downloaded without a cache gets its cache compiled beside it in the local
// cache (store add), and that cache is the answer.
// A PDB or PE absent under its key may be replaced by symstore's file.ptr (FilePointer.h): its
// target is read (a local store: a local path; a server: a URL or an absolute local path) and
// verified like a download.
// A 404 is remembered for `negative_ttl_s` seconds by a marker file in the cache
// (CACHE/.ilmap-404/<hash of server and key>), so the server is not asked again meanwhile.
#pragma once

#include <functional>
#include <optional>
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

// "foo.pdb/<id>/msfz0/foo.pdb" for a Windows PDB wanted under "foo.pdb/<id>/foo.pdb": where a
// store keeps the same PDB in an MSFZ container (a .pdz; SymstoreKeys.h). nullopt for other kinds
// and for a key that already names a container.
std::optional<std::string> msfz_key_for(const ModuleIdentity& want);

// Checks downloaded or stored bytes against the wanted identity (the rules above).
Status check_cache_bytes(std::span<const std::uint8_t> bytes, const ModuleIdentity& want);
Status check_pdb_bytes(std::span<const std::uint8_t> bytes, const ModuleIdentity& want);

}  // namespace ilmap::symbols
