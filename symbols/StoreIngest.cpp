// StoreIngest.cpp - store add / store verify over SymbolStore (see StoreIngest.h).
#include "StoreIngest.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "CacheBuilder.h"
#include "FileBytes.h"
#include "Guids.h"
#include "Identity.h"
#include "ModuleIdentity.h"
#include "PeFile.h"
#include "PortablePdb.h"
#include "ilmap/cache.h"
#include "ilmap_generated.h"

namespace ilmap::symbols {
namespace {

namespace fs = std::filesystem;

// The cache of `pdb`, compiled from the input file `source_name` (its bytes `source`).
// `has_urls` tells whether options.document_urls gave any document a URL.
Result<CacheBytes> compile_cache(const PortablePdb& pdb, const std::string& source_name,
                                 std::span<const std::uint8_t> source, const std::string& pdb_key,
                                 const AddOptions& options, bool& has_urls) {
  std::vector<std::string> urls;
  CacheSource src;
  if (options.document_urls) {
    auto u = options.document_urls(pdb);
    if (!u) return u.error();
    urls = std::move(*u);
    src.document_urls = &urls;
    has_urls = std::any_of(urls.begin(), urls.end(), [](const std::string& x) { return !x.empty(); });
  }
  src.pdb = &pdb;
  src.source_name = source_name;
  src.source_size = source.size();
  src.source_xxh3 = XXH3_64bits(source.data(), source.size());
  src.pdb_key = pdb_key;
  const PdbId id = pdb.id();
  src.debug_id = portable_debug_id(id.guid(), id.stamp());
  CacheBuildOptions bo;
  return build_cache(src, bo);
}

// A cache already there that is valid for the PDB is kept ("already present"), unless
// `replace_valid` (the new one records package-source URLs: it knows more); an invalid one or
// one of another PDB is replaced.
Status put_cache(SymbolStore& store, const std::string& pdb_key, const PdbId& id, const CacheBytes& bytes,
                 std::vector<StoredFile>& out, bool replace_valid) {
  const std::string key = cache_key_for(pdb_key);
  bool kept = false;
  auto r = store.put(key, bytes.span(), [&](const std::string& existing) {
    if (replace_valid || !check_cache(existing, id.bytes)) return true;
    kept = true;
    return false;
  });
  if (!r && !kept) return r.error();
  out.push_back({key, r ? *r : PutOutcome::kAlreadyPresent});
  return {};
}

std::string name_of(const std::string& path) { return fs::path(path).filename().string(); }

}  // namespace

namespace {

// The cache at `path` opens, verifies and records a PDB id starting with `want` (all 20 bytes,
// or the 16 GUID bytes when only a key is known; the message names `want` only when whole).
Status check_cache_id(const std::string& path, std::span<const std::uint8_t> want) {
  auto cache = Cache::open(path);
  if (!cache) return cache.error();
  if (Status s = cache->verify(); !s) return s;
  const auto* root = static_cast<const fb::Cache*>(cache->root());
  const fb::Identity* id = root->identity();
  if (!id || !id->pdb_id() || id->pdb_id()->size() != 20)
    return {Errc::kMalformed, "the cache records no PDB id"};
  if (!std::equal(want.begin(), want.end(), id->pdb_id()->begin()))
    return {Errc::kMismatch, "the cache was compiled from another PDB (id " + hex_lower({id->pdb_id()->data(), 20}) +
                                 (want.size() == 20 ? ", wanted " + hex_lower(want) : std::string()) + ")"};
  return {};
}

}  // namespace

Status check_cache_guid(const std::string& path, std::span<const std::uint8_t> guid16) {
  return check_cache_id(path, guid16);
}

Status check_cache(const std::string& path, const std::array<std::uint8_t, 20>& pdb_id) {
  return check_cache_id(path, pdb_id);
}

Result<std::vector<StoredFile>> add_to_store(SymbolStore& store, const std::string& path) {
  auto file = FileBytes::open(path);
  if (!file) return file.error();
  return add_bytes_to_store(store, path, path, file->bytes());
}

Result<std::vector<StoredFile>> add_bytes_to_store(SymbolStore& store, const std::string& path,
                                                   const std::string& where, std::span<const std::uint8_t> bytes,
                                                   const AddOptions& options) {
  auto ident = identify_file(path, bytes);
  if (!ident) return Error{ident.error().code, where + ": " + ident.error().message};
  // Everything is decoded and compiled before the first write: an input that fails leaves the
  // store as it was.
  std::optional<CacheBytes> cache;
  bool has_urls = false;
  std::string cache_pdb_key;
  PdbId cache_id{};
  if (ident->kind == ModuleKind::kPortablePdb) {
    auto pdb = PortablePdb::parse(bytes);
    if (!pdb) return Error{pdb.error().code, where + ": " + pdb.error().message};
    auto c = compile_cache(*pdb, ident->file_name, bytes, ident->key, options, has_urls);
    if (!c) return Error{c.error().code, where + ": " + c.error().message};
    cache = std::move(*c);
    cache_pdb_key = ident->key;
    cache_id = pdb->id();
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
      cache_id = pdb->id();
      // The key a client derives from the PE: the Portable CodeView entry with this GUID.
      for (const ModuleIdentity& w : pdbs_wanted_by(pe->info()))
        if (w.kind == ModuleKind::kPortablePdb && w.pdb_id &&
            std::equal(cache_id.bytes.begin(), cache_id.bytes.begin() + 16, w.pdb_id->begin())) {
          cache_pdb_key = w.key;
          break;
        }
      if (cache_pdb_key.empty())
        cache_pdb_key = ssqp_portable_pdb_key(fs::path(name_of(path)).replace_extension(".pdb").string(), cache_id.guid());
      auto c = compile_cache(*pdb, ident->file_name, bytes, cache_pdb_key, options, has_urls);
      if (!c) return Error{c.error().code, where + ": embedded PDB: " + c.error().message};
      cache = std::move(*c);
    }
  }
  std::vector<StoredFile> out;
  auto r = store.put(ident->key, bytes);
  if (!r) return r.error();
  out.push_back({ident->key, *r});
  if (cache)
    if (Status s = put_cache(store, cache_pdb_key, cache_id, *cache, out, has_urls); !s) return s.error();
  return out;
}

VerifyReport verify_store(const SymbolStore& store) {
  VerifyReport rep;
  const fs::path root(store.root());
  const std::size_t depth = store.two_tier() ? 4 : 3;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path());
  if (ec) rep.problems.push_back({".", {Errc::kIo, store.root() + ": cannot list: " + ec.message()}});
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    const fs::path rel = p.lexically_relative(root);
    std::vector<std::string> parts;
    for (const auto& c : rel) parts.push_back(c.string());
    const std::string name = parts.back();
    if (parts.size() != depth || name.find(".tmp-") != std::string::npos || parts.front() == "000Admin") {
      ++rep.skipped;
      continue;
    }
    const std::string key = parts[depth - 3] + "/" + parts[depth - 2] + "/" + name;
    const std::string pdb_key = parts[depth - 3] + "/" + parts[depth - 2] + "/" + parts[depth - 3];
    const std::string rel_s = rel.string();
    if (key_equal(name, parts[depth - 3])) {
      ++rep.files;
      auto f = FileBytes::open(p.string());
      if (!f) {
        rep.problems.push_back({rel_s, f.error()});
        continue;
      }
      auto id = identify_file(name, f->bytes());
      if (!id)
        rep.problems.push_back({rel_s, id.error()});
      else if (!key_equal(id->key, key))
        rep.problems.push_back({rel_s, {Errc::kMismatch, "stored under " + key + " but its key is " + id->key}});
    } else if (key_equal(cache_key_for(pdb_key), key)) {
      ++rep.caches;
      const fs::path pdb_path = p.parent_path() / parts[depth - 3];
      Status s;
      std::optional<ModuleIdentity> beside;
      if (fs::exists(pdb_path, ec)) {
        if (auto f = FileBytes::open(pdb_path.string())) {
          if (auto id = identify_file(parts[depth - 3], f->bytes())) beside = *id;
        }
      }
      if (beside && beside->pdb_id) {
        s = check_cache(p.string(), *beside->pdb_id);
      } else {
        // No Portable PDB beside it (a PE's embedded PDB): the key's GUID must match.
        const std::string& idpart = parts[depth - 2];
        std::array<std::uint8_t, 16> guid{};
        bool ok = idpart.size() == 40;
        for (std::size_t i = 0; ok && i < 16; ++i) {
          auto hexv = [](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            return -1;
          };
          const int hi = hexv(idpart[2 * i]), lo = hexv(idpart[2 * i + 1]);
          if (hi < 0 || lo < 0) ok = false;
          guid[i] = static_cast<std::uint8_t>(hi * 16 + lo);
        }
        if (!ok) {
          s = Status(Errc::kMismatch, "a cache under a key that is not a Portable PDB key");
        } else {
          // The key shows the GUID in text order ("N"); the id stores it in on-disk order.
          const Guid disk = {guid[3], guid[2], guid[1], guid[0], guid[5], guid[4], guid[7], guid[6],
                             guid[8], guid[9], guid[10], guid[11], guid[12], guid[13], guid[14], guid[15]};
          s = check_cache_guid(p.string(), disk);
        }
      }
      if (!s) rep.problems.push_back({rel_s, s.error()});
    } else {
      ++rep.skipped;
    }
  }
  return rep;
}

}  // namespace ilmap::symbols
