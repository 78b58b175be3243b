// StoreIngest.cpp - store add / store verify over a Store (see StoreIngest.h).
#include "symbols/StoreIngest.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "compiler/CacheBuilder.h"
#include "compiler/CacheSourceFor.h"
#include "compiler/CompileModule.h"
#include "support/FileBytes.h"
#include "decode/Guids.h"
#include "decode/MsymFile.h"
#include "decode/SymstoreKeys.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/MsymIngest.h"
#include "decode/PdbChecksum.h"
#include "decode/PeFile.h"
#include "decode/PortablePdb.h"
#include "ilmap/cache.h"
#include "support/Platform.h"

namespace ilmap::symbols {
namespace {

namespace fs = std::filesystem;

// The cache of `pdb`, compiled from the input file `source_name` (its bytes `source`); `pe` is
// the PE the cache records (one that embeds `pdb`, or names it), `names_pe` that PE's bytes when
// its method names go into the cache (empty: none).
Result<CacheBytes> compile_cache(const PortablePdb& pdb, const std::string& source_name,
                                 std::span<const std::uint8_t> source, const std::string& pdb_key,
                                 std::optional<CachePeIdentity> pe, std::span<const std::uint8_t> names_pe,
                                 const std::string& names_pe_path, const AddOptions& options) {
  std::vector<std::string> urls;
  ModuleSource m;
  CacheSource& src = m.source;
  if (options.document_urls) {
    auto u = options.document_urls(pdb);
    if (!u) return u.error();
    urls = std::move(*u);
    src.document_urls = &urls;
  }
  src.pdb = &pdb;
  src.source_name = source_name;
  src.source_size = source.size();
  src.source_xxh3 = XXH3_64bits(source.data(), source.size());
  src.pdb_key = pdb_key;
  const PdbId id = pdb.id();
  src.debug_id = portable_debug_id(id.guid(), id.stamp());
  src.pe = std::move(pe);
  if (!names_pe.empty()) add_method_names(m, names_pe, names_pe_path);
  return compile_module(m, CacheBuildOptions{});
}

// The PE beside the PDB file `pdb_path` (<stem>.dll, else <stem>.exe) whose CodeView entry
// names `pdb`; nullopt when there is none.
struct PeBeside {
  FileBytes file;
  PeInfo info;
  std::string path;
};
std::optional<PeBeside> pe_beside(const std::string& pdb_path, const PortablePdb& pdb) {
  for (const char* ext : {".dll", ".exe"}) {
    const std::string p = platform::fs_string(platform::fs_path(pdb_path).replace_extension(ext));
    std::error_code ec;
    if (!fs::is_regular_file(platform::fs_path(p), ec)) continue;
    auto f = FileBytes::open(p);
    if (!f) continue;
    PeOptions po;
    po.embedded_pdb_errors_fatal = false;
    auto pe = PeFile::parse(f->bytes(), po);
    if (!pe || !pe->info().managed || !pe_names_pdb(pe->info(), pdb)) continue;
    PeInfo info = pe->info();
    return PeBeside{std::move(*f), std::move(info), p};
  }
  return std::nullopt;
}

std::string name_of(const std::string& path) { return platform::fs_string(platform::fs_path(path).filename()); }

Result<CacheOrigin> origin_of(const Cache& cache) {
  if (Status s = cache.verify(); !s) return s.error();
  const CacheIdentity id = cache.identity();
  if (!id.pdb_id) return Error{Errc::kMalformed, "the cache records no PDB id"};
  CacheOrigin o;
  o.pdb_id = *id.pdb_id;
  if (!id.pdb_sha256.empty()) {
    if (id.pdb_sha256.size() != 32)
      return Error{Errc::kMalformed, format("the cache records a PDB SHA-256 of %zu bytes (32 expected)", id.pdb_sha256.size())};
    o.pdb_sha256.assign(id.pdb_sha256.begin(), id.pdb_sha256.end());
  }
  o.package_source_urls = id.package_source_urls;
  o.pe_key = std::string(id.pe_key);
  return o;
}

// The SHA-256 (id zeroed) and id of a Portable PDB.
struct PdbDigest {
  std::vector<std::uint8_t> sha256;
  std::array<std::uint8_t, 20> id{};
};

Result<PdbDigest> digest_of(const PortablePdb& pdb) {
  if (!pdb.has_pdb_stream()) return Error{Errc::kMalformed, "the PDB has no #Pdb stream"};
  auto sum = compute_pdb_checksum("SHA256", pdb.bytes(), pdb.metadata().pdb_stream_offset());
  if (!sum) return sum.error();
  return PdbDigest{std::move(*sum), pdb.id().bytes};
}

// The digest of the stored Portable PDB `f`.
Result<PdbDigest> digest_of_pdb_file(const StoredBytes& f) {
  const std::string& path = f.where();
  auto pdb = PortablePdb::parse(f.bytes());
  if (!pdb) return Error{pdb.error().code, path + ": " + pdb.error().message};
  return digest_of(*pdb);
}

// The digest of the PDB embedded in the stored PE `f`.
Result<PdbDigest> digest_of_embedded(const StoredBytes& f) {
  const std::string& path = f.where();
  PeOptions po;
  po.embedded_pdb_errors_fatal = false;
  auto pe = PeFile::parse(f.bytes(), po);
  if (!pe) return Error{pe.error().code, path + ": " + pe.error().message};
  if (!pe->info().embedded_pdb) return Error{Errc::kNotFound, path + ": the PE embeds no PDB"};
  auto inflated = pe->inflate_embedded_pdb();
  if (!inflated) return Error{inflated.error().code, path + ": embedded PDB: " + inflated.error().message};
  auto pdb = PortablePdb::parse(*inflated);
  if (!pdb) return Error{pdb.error().code, path + ": embedded PDB: " + pdb.error().message};
  return digest_of(*pdb);
}

bool derives_from(const CacheOrigin& o, const PdbDigest& d) {
  return o.pdb_id == d.id && !o.pdb_sha256.empty() && o.pdb_sha256 == d.sha256;
}

// Whether the cache `o` (a valid one under the cache key of `pdb_key`) derives from something
// stored: the Portable PDB under `pdb_key`, else the PE it names, which must embed the PDB.
// Fills `why` when it does not.
bool derives_from_store(const Store& store, const std::string& pdb_key, const CacheOrigin& o, std::string* why) {
  auto say = [&](std::string s) {
    if (why) *why = std::move(s);
    return false;
  };
  if (o.pdb_sha256.empty())
    return say("the cache records no SHA-256 of its PDB (written by a format 2.0 writer): it cannot be shown to derive from a stored PDB; store add the PDB or PE again to replace it");
  if (auto pdb = store.read(pdb_key)) {
    auto d = digest_of_pdb_file(*pdb);
    if (!d) return say("the PDB beside it cannot be read: " + d.error().message);
    if (!derives_from(o, *d))
      return say("the cache was not compiled from the PDB beside it (PDB SHA-256 " + hex_lower(d->sha256) +
                 ", the cache records " + hex_lower(o.pdb_sha256) + ")");
    return true;
  }
  if (o.pe_key.empty()) return say("no PDB beside it, and the cache names no PE it was compiled from");
  auto pe = store.read(o.pe_key);
  if (!pe) return say("no PDB beside it, and the PE it names (" + o.pe_key + ") is not in the store");
  auto d = digest_of_embedded(*pe);
  if (!d) return say("no PDB beside it, and the PE it names cannot give its embedded PDB: " + d.error().message);
  if (!derives_from(o, *d))
    return say("the cache was not compiled from the PDB embedded in " + o.pe_key + " (SHA-256 " + hex_lower(d->sha256) +
               ", the cache records " + hex_lower(o.pdb_sha256) + ")");
  return true;
}

// No PDB under `pdb_key` and no PE of the store named by the cache: nothing to derive from.
bool alone_in_store(const Store& store, const std::string& pdb_key, const CacheOrigin& o) {
  return !store.locate(pdb_key) && (o.pe_key.empty() || !store.locate(o.pe_key));
}

enum class CacheAction { kPut, kKeep, kConflict };

// What to do with the cache already under the cache key of `pdb_key` (at `existing`) when
// adding `fresh`, which derives from bytes the caller holds (and stores, or finds stored, under
// the key): keep it when it derives from the same bytes, unless `fresh` records package-source
// URLs and it records none (the first cache with package URLs stays: a later package cannot
// redirect the documents of a PDB it merely repeats); a conflict when it derives from another
// PDB still stored (a PE embedding another PDB under the same id); else replace it (invalid,
// of another id, format 2.0, or of bytes no longer stored).
CacheAction existing_cache_action(const Store& store, const std::string& pdb_key, const StoredBytes& existing,
                                  const CacheOrigin& fresh, std::string* why) {
  auto c = Cache::from_bytes(existing.bytes());
  if (!c) return CacheAction::kPut;
  auto o = origin_of(*c);
  if (!o || o->pdb_id != fresh.pdb_id || o->pdb_sha256.empty()) return CacheAction::kPut;
  if (o->pdb_sha256 == fresh.pdb_sha256)
    return fresh.package_source_urls && !o->package_source_urls ? CacheAction::kPut : CacheAction::kKeep;
  if (derives_from_store(store, pdb_key, *o, nullptr)) {
    if (why) *why = existing.where() + ": the cache of another PDB with the same id (SHA-256 " + hex_lower(o->pdb_sha256) +
                    ", this one " + hex_lower(fresh.pdb_sha256) + ") is stored, with the " +
                    (o->pe_key.empty() ? "PDB" : "PE " + o->pe_key) + " it derives from";
    return CacheAction::kConflict;
  }
  return CacheAction::kPut;
}

// Stores `bytes`, the cache of the PDB under `pdb_key` (its origin `fresh`), following
// existing_cache_action. A kept cache is "already present" without taking the store lock.
Result<PutOutcome> put_cache(Store& store, const std::string& pdb_key, const CacheBytes& bytes,
                             const CacheOrigin& fresh) {
  const std::string key = cache_key_for(pdb_key);
  std::string why;
  if (auto existing = store.read(key)) {
    const CacheAction a = existing_cache_action(store, pdb_key, *existing, fresh, &why);
    if (a == CacheAction::kKeep) return PutOutcome::kAlreadyPresent;
    if (a == CacheAction::kConflict) return Error{Errc::kMismatch, why};
  }
  // Decided again under the lock: another writer may have put a cache meanwhile.
  CacheAction under_lock = CacheAction::kPut;
  auto r = store.write(key, bytes.span(), [&](const StoredBytes& existing) {
    under_lock = existing_cache_action(store, pdb_key, existing, fresh, &why);
    return under_lock == CacheAction::kPut;
  });
  if (!r && under_lock == CacheAction::kKeep) return PutOutcome::kAlreadyPresent;
  if (!r && under_lock == CacheAction::kConflict) return Error{Errc::kMismatch, why};
  return r;
}

// Whether the id part of a Portable PDB key (<guid N>FFFFFFFF) names the GUID of `pdb_id`.
bool key_guid_matches(const std::string& idpart, const std::array<std::uint8_t, 20>& pdb_id) {
  if (idpart.size() != 40) return false;
  std::array<std::uint8_t, 16> guid{};
  auto hexv = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < 16; ++i) {
    const int hi = hexv(idpart[2 * i]), lo = hexv(idpart[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    guid[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  // The key shows the GUID in text order ("N"); the id stores it in on-disk order.
  const std::array<std::uint8_t, 16> disk = {guid[3], guid[2], guid[1], guid[0], guid[5], guid[4], guid[7], guid[6],
                                             guid[8], guid[9], guid[10], guid[11], guid[12], guid[13], guid[14], guid[15]};
  return std::equal(disk.begin(), disk.end(), pdb_id.begin());
}

// A key derived from the input (its file name, or the PDB name its CodeView entry gives) that
// a store cannot hold is bad input (exit 2), not a usage error.
Status check_input_key(const std::string& key, const std::string& where) {
  if (Status s = validate_key(key); !s) return {Errc::kMalformed, where + ": " + s.message()};
  return {};
}

}  // namespace

Result<CacheOrigin> read_cache_origin(std::span<const std::uint8_t> bytes) {
  auto cache = Cache::from_bytes(bytes);
  if (!cache) return cache.error();
  return origin_of(*cache);
}

namespace {

// The cache at `path` opens, verifies and records a PDB id starting with `want` (all 20 bytes,
// or the 16 GUID bytes when only a key is known; the message names `want` only when whole).
Status check_cache_id(const std::string& path, std::span<const std::uint8_t> want) {
  auto cache = Cache::open(path);
  if (!cache) return cache.error();
  if (Status s = cache->verify(); !s) return s;
  const CacheIdentity id = cache->identity();
  if (!id.pdb_id) return {Errc::kMalformed, "the cache records no PDB id"};
  if (!std::equal(want.begin(), want.end(), id.pdb_id->begin()))
    return {Errc::kMismatch, "the cache was compiled from another PDB (id " + hex_lower(*id.pdb_id) +
                                 (want.size() == 20 ? ", wanted " + hex_lower(want) : std::string()) + ")"};
  return {};
}

}  // namespace

Status check_cache(const std::string& path, const std::array<std::uint8_t, 20>& pdb_id) {
  return check_cache_id(path, pdb_id);
}

Result<std::vector<StoredFile>> add_to_store(Store& store, const std::string& path) {
  auto file = FileBytes::open(path);
  if (!file) return file.error();
  AddOptions options;
  options.names_from_pe_beside = true;
  return add_bytes_to_store(store, path, path, file->bytes(), options);
}

Result<std::vector<StoredFile>> add_bytes_to_store(Store& store, const std::string& path,
                                                   const std::string& where, std::span<const std::uint8_t> bytes,
                                                   const AddOptions& options) {
  auto ident = identify_file(path, bytes);
  if (!ident) return Error{ident.error().code, where + ": " + ident.error().message};
  if (Status s = check_input_key(ident->key, where); !s) return s.error();
  // Everything is decoded, compiled and checked against the store before the first write: an
  // input that fails leaves the store as it was.
  std::optional<CacheBytes> cache;
  std::string cache_pdb_key;
  CacheOrigin origin;
  if (ident->kind == ModuleKind::kPortablePdb) {
    auto pdb = PortablePdb::parse(bytes);
    if (!pdb) return Error{pdb.error().code, where + ": " + pdb.error().message};
    std::optional<PeBeside> pe = options.names_from_pe_beside ? pe_beside(path, *pdb) : std::nullopt;
    auto c = pe ? compile_cache(*pdb, ident->file_name, bytes, ident->key, cache_pe_identity(pe->path, pe->info),
                                pe->file.bytes(), pe->path, options)
                : compile_cache(*pdb, ident->file_name, bytes, ident->key, std::nullopt, {}, {}, options);
    if (!c) return Error{c.error().code, where + ": " + c.error().message};
    cache = std::move(*c);
    cache_pdb_key = ident->key;
  } else if (ident->kind == ModuleKind::kPe) {
    PeOptions po;
    po.embedded_pdb_errors_fatal = false;
    auto pe = PeFile::parse(bytes, po);
    if (!pe) return pe.error();
    if (pe->info().embedded_pdb) {
      auto inflated = pe->inflate_embedded_pdb();
      if (!inflated) return Error{inflated.error().code, where + ": embedded PDB: " + inflated.error().message};
      auto pdb = PortablePdb::parse(*inflated);
      if (!pdb) return Error{pdb.error().code, where + ": embedded PDB: " + pdb.error().message};
      const PdbId id = pdb->id();
      // The key a client derives from the PE: the Portable CodeView entry with this GUID.
      for (const ModuleIdentity& w : pdbs_wanted_by(pe->info()))
        if (w.kind == ModuleKind::kPortablePdb && w.pdb_id &&
            std::equal(id.bytes.begin(), id.bytes.begin() + 16, w.pdb_id->begin())) {
          cache_pdb_key = w.key;
          break;
        }
      if (cache_pdb_key.empty())
        cache_pdb_key = ssqp_portable_pdb_key(platform::fs_string(platform::fs_path(name_of(path)).replace_extension(".pdb")), id.guid());
      if (Status s = check_input_key(cache_pdb_key, where + ": embedded PDB"); !s) return s.error();
      CachePeIdentity pe_id = cache_pe_identity(path, pe->info());
      pe_id.pe_key = ident->key;
      auto c = compile_cache(*pdb, ident->file_name, bytes, cache_pdb_key, std::move(pe_id),
                             pe->info().managed ? bytes : std::span<const std::uint8_t>(), where, options);
      if (!c) return Error{c.error().code, where + ": embedded PDB: " + c.error().message};
      cache = std::move(*c);
      // A Portable PDB stored under the key with other bytes: this PE's PDB only claims its id.
      if (auto stored = store.read(cache_pdb_key)) {
        auto d = digest_of_pdb_file(*stored);
        auto mine = digest_of(*pdb);
        if (!mine) return Error{mine.error().code, where + ": embedded PDB: " + mine.error().message};
        if (d && d->sha256 != mine->sha256)
          return Error{Errc::kMismatch, where + ": its embedded PDB has the id of " + stored->where() +
                                            " but other bytes (SHA-256 " + hex_lower(mine->sha256) + ", stored " +
                                            hex_lower(d->sha256) + ")"};
      }
    }
  }
  // Different bytes under the file's own key fail below as they would in SymbolStore::put, but
  // before the cache is written.
  if (auto existing = store.read(ident->key)) {
    if (!std::ranges::equal(existing->bytes(), bytes))
      return Error{Errc::kMismatch, existing->where() + ": a different file is already stored under key " + ident->key};
  }
  // The cache goes first: a failure (a full disk) in between leaves no PDB without its cache,
  // and a cache added here is removed again when the file cannot follow.
  std::vector<StoredFile> out;
  std::optional<StoredFile> cache_stored;
  if (cache) {
    auto o = read_cache_origin(cache->span());
    if (!o) return Error{o.error().code, where + ": the cache just compiled: " + o.error().message};
    origin = std::move(*o);
    auto r = put_cache(store, cache_pdb_key, *cache, origin);
    if (!r) return Error{r.error().code, where + ": " + r.error().message};
    cache_stored = StoredFile{cache_key_for(cache_pdb_key), *r};
  }
  auto r = store.write(ident->key, bytes);
  if (!r) {
    if (cache_stored && cache_stored->outcome == PutOutcome::kAdded) (void)store.remove(cache_stored->key);
    return r.error();
  }
  out.push_back({ident->key, *r});
  if (cache_stored) out.push_back(*cache_stored);
  return out;
}

StoredKind stored_kind(std::string_view key) {
  const std::size_t a = key.find('/'), b = a == std::string_view::npos ? a : key.find('/', a + 1);
  // file/id/msfz0/file: a PDB in the MSFZ container (no cache is kept there).
  if (const std::size_t c = b == std::string_view::npos ? b : key.find('/', b + 1);
      c != std::string_view::npos && key.find('/', c + 1) == std::string_view::npos &&
      is_container_kind(key.substr(b + 1, c - b - 1)))
    return key_equal(key.substr(c + 1), key.substr(0, a)) ? StoredKind::kFile : StoredKind::kOther;
  if (b == std::string_view::npos || key.find('/', b + 1) != std::string_view::npos) return StoredKind::kOther;
  const std::string_view file = key.substr(0, a), name = key.substr(b + 1);
  if (key_equal(name, file)) return StoredKind::kFile;
  const std::string pdb_key = std::string(key.substr(0, b + 1)) + std::string(file);
  return key_equal(cache_key_for(pdb_key), key) ? StoredKind::kCache : StoredKind::kOther;
}

Result<StoredCheck> check_stored_bytes(std::string_view key_view, std::span<const std::uint8_t> bytes) {
  const std::string key(key_view);
  StoredCheck c;
  c.kind = stored_kind(key);
  if (c.kind == StoredKind::kFile && is_msym_name(key)) {
    // A Mono AOT .msym (docs/store-layout.md): it decodes, and its key is its AOT id's.
    const std::string name = key.substr(key.rfind('/') + 1);
    const std::string idpart = key.substr(key.find('/') + 1, key.rfind('/') - key.find('/') - 1);
    if (!msym_aot_id("/" + idpart + "/" + name).size() || !key_equal(ssqp_msym_key(name, idpart), key))
      return Error{Errc::kMismatch, "stored under " + key + ", which is no <assembly>.msym/<aot id>/<assembly>.msym key"};
    if (auto f = MsymFile::parse(bytes); !f) return f.error();
  } else if (c.kind == StoredKind::kFile) {
    const std::string name = key.substr(key.rfind('/') + 1);
    auto id = identify_file(name, bytes);
    if (!id) return id.error();
    if (!key_equal(id->key, key)) return Error{Errc::kMismatch, "stored under " + key + " but its key is " + id->key};
    c.file = std::move(*id);
  } else if (c.kind == StoredKind::kCache) {
    auto o = read_cache_origin(bytes);
    if (!o) return o.error();
    const std::string idpart = key.substr(key.find('/') + 1, key.rfind('/') - key.find('/') - 1);
    if (!key_guid_matches(idpart, o->pdb_id))
      return Error{Errc::kMismatch, "the cache records PDB id " + hex_lower(o->pdb_id) + ", not of the key " + idpart};
    c.cache = std::move(*o);
  }
  return c;
}

VerifyReport verify_store(const Store& store) {
  VerifyReport rep;
  const std::size_t depth = store.two_tier() ? 4 : 3;
  auto files = store.list();
  if (!files) {
    rep.problems.push_back({".", files.error()});
    return rep;
  }
  for (const std::string& rel_s : *files) {
    std::vector<std::string> parts;
    for (std::size_t at = 0;;) {
      const std::size_t slash = rel_s.find('/', at);
      parts.push_back(rel_s.substr(at, slash == std::string::npos ? std::string::npos : slash - at));
      if (slash == std::string::npos) break;
      at = slash + 1;
    }
    const std::string name = parts.back();
    // A .pdz's key has a fourth component, its container kind, before the file name.
    const bool kinded = parts.size() == depth + 1 && is_container_kind(parts[depth - 1]);
    if ((parts.size() != depth && !kinded) || name.find(".tmp-") != std::string::npos || parts.front() == "000Admin") {
      ++rep.skipped;
      continue;
    }
    const std::size_t at = depth - 3;  // the file component
    const std::string key = parts[at] + "/" + parts[at + 1] + "/" + (kinded ? parts[at + 2] + "/" : std::string()) + name;
    const std::string pdb_key = parts[at] + "/" + parts[at + 1] + "/" + parts[at];
    const StoredKind kind = stored_kind(key);
    if (kind == StoredKind::kOther) {
      ++rep.skipped;
      continue;
    }
    ++(kind == StoredKind::kFile ? rep.files : rep.caches);
    auto f = store.read(key);
    Result<StoredCheck> c = f ? check_stored_bytes(key, f->bytes()) : Result<StoredCheck>(f.error());
    std::string why;
    if (!c) {
      rep.problems.push_back({rel_s, c.error()});
    } else if (kind == StoredKind::kFile) {
      if (c->file && c->file->kind == ModuleKind::kPortablePdb && !store.locate(cache_key_for(key)))
        rep.problems.push_back({rel_s, {Errc::kNotFound, "a Portable PDB without its cache " + cache_key_for(key) + " (store add it again)"}});
    } else if (alone_in_store(store, pdb_key, *c->cache)) {
      // A cache alone (a download cache holds server caches without their PDBs): checked
      // against its key only; nothing stored shows what it was compiled from.
    } else if (!derives_from_store(store, pdb_key, *c->cache, &why)) {
      // Valid and of the id its key names, but not derived from the PDB beside it or from the
      // embedded PDB of the PE it names.
      rep.problems.push_back({rel_s, {Errc::kMismatch, why}});
    }
  }
  return rep;
}

}  // namespace ilmap::symbols
