// SearchSet.h - the files of the --search paths a module index answers from: listed once
// (bounded in count and depth), each file's ids read the first time a query needs them, and
// indexes by file name, stem, GUID, MVID and cached PDB id built on first use. Internal to
// symbols/ModuleIndex.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ilmap/cache.h"
#include "support/Ascii.h"
#include "support/FileBytes.h"
#include "support/Platform.h"
#include "decode/PortablePdb.h"
#include "symbols/ModuleIdentity.h"

namespace ilmap::symbols::search {

namespace fs = std::filesystem;

constexpr std::size_t kMaxFiles = 200000;  // files listed over all search paths
constexpr int kMaxDepth = 12;              // directory levels below a search root

enum class Kind : std::uint8_t { kPe, kPdb, kCache };

struct CodeView {
  Guid guid{};
  std::uint32_t age = 0, stamp = 0;
  bool portable = false;
  std::string path;
};

struct Entry {
  std::string path;
  std::string lname;  // lower-cased file name; a .pdz's as ".pdb", the name a CodeView entry asks for
  Kind kind = Kind::kPe;
  bool loaded = false, bad = false;
  std::string error;
  // PE
  Guid mvid{};
  std::vector<CodeView> codeview;
  bool embedded_pdb = false;
  bool managed = false;  // has a CLI header (a native PE's Windows PDB is of no use here)
  // PDB, cache
  std::optional<std::array<std::uint8_t, 20>> pdb_id;
  bool windows = false;  // a Windows (MSF) PDB, or a cache compiled from one: pdb_id = GUID + age
  // cache
  const Cache* cache = nullptr;
  std::string pe_name;
};


inline std::string stem_of(std::string_view lname) {
  const std::size_t dot = lname.rfind('.');
  return std::string(dot == std::string_view::npos ? lname : lname.substr(0, dot));
}

inline std::optional<Kind> kind_of(std::string_view lname) {
  auto ends = [&](std::string_view e) { return lname.size() > e.size() && lname.substr(lname.size() - e.size()) == e; };
  if (ends(".dll") || ends(".exe")) return Kind::kPe;
  if (ends(".pdb") || ends(".pdz")) return Kind::kPdb;  // .pdz: a Windows PDB in an MSFZ container
  if (ends(".ilmap")) return Kind::kCache;
  return std::nullopt;
}

// GUID + stamp (Portable) or GUID + DBI age (Windows), as a cache's pdb_id records them.
inline std::array<std::uint8_t, 20> make_pdb_id(const Guid& g, std::uint32_t tail) { return PdbId::of(g, tail).bytes; }
inline std::uint32_t tail_of(const std::array<std::uint8_t, 20>& id) { return PdbId{id}.stamp(); }

// An SSQP PDB key "name.pdb/<guid N><age x>/name.pdb" of a Windows PDB (a Portable PDB's id
// part ends in FFFFFFFF).
inline bool is_windows_key(std::string_view key) {
  const std::size_t a = key.find('/');
  if (a == std::string_view::npos) return false;
  const std::size_t b = key.find('/', a + 1);
  if (b == std::string_view::npos || b - a - 1 <= 32) return false;
  std::string tail(key.substr(a + 1 + 32, b - a - 1 - 32));
  for (char& c : tail)
    if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
  return tail != "FFFFFFFF";
}

struct SearchSet {
  std::vector<Entry> entries;
  std::vector<std::unique_ptr<Cache>> caches;  // caches opened for entries and answers
  std::unordered_map<const Cache*, std::string> cache_files;  // the file each was opened from
  std::unordered_map<const Cache*, std::string> pe_files;     // the PE of the search set each answered
  std::size_t scans = 0;                       // passes over the whole set

  // Entry positions (in listing order) under a key. By lower-cased file name and by its stem:
  // built once from the listing. The others on the first query that needs them, each loading
  // the entries it covers once: by GUID (of a PE's CodeView entries, of a PDB's or cache's PDB
  // id), by MVID (PEs and caches), caches by their 20-byte PDB id. A query is then a lookup,
  // not a walk of the search set.
  using Index = std::unordered_map<std::string, std::vector<std::size_t>>;
  Index by_name, by_stem;
  std::optional<Index> by_guid, by_mvid, caches_by_id;

  static std::string key_of(std::span<const std::uint8_t> bytes) {
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  static void add_to(Index& ix, std::string key, std::size_t i) {
    std::vector<std::size_t>& v = ix[std::move(key)];
    if (v.empty() || v.back() != i) v.push_back(i);
  }
  static const std::vector<std::size_t>& at(const Index& ix, const std::string& key) {
    static const std::vector<std::size_t> kNone;
    const auto it = ix.find(key);
    return it == ix.end() ? kNone : it->second;
  }
  void index_names() {
    for (std::size_t i = 0; i < entries.size(); ++i) {
      by_name[entries[i].lname].push_back(i);
      by_stem[stem_of(entries[i].lname)].push_back(i);
    }
  }
  // An index built on the first query that needs it: one pass over the search set, in which
  // `add(ix, entry, i)` files entry i under its keys.
  template <class Add>
  const Index& lazy_index(std::optional<Index>& slot, Add add) {
    if (slot) return *slot;
    ++scans;
    Index ix;
    for (std::size_t i = 0; i < entries.size(); ++i) add(ix, entries[i], i);
    return *(slot = std::move(ix));
  }
  const Index& guid_index() {
    return lazy_index(by_guid, [&](Index& ix, Entry& e, std::size_t i) {
      load(e);
      if (e.bad) return;
      if (e.kind == Kind::kPe) {
        for (const CodeView& cv : e.codeview) add_to(ix, key_of(cv.guid), i);
      } else if (e.pdb_id) {
        add_to(ix, key_of(std::span(e.pdb_id->data(), 16)), i);
      }
    });
  }
  const Index& mvid_index() {
    return lazy_index(by_mvid, [&](Index& ix, Entry& e, std::size_t i) {
      if (e.kind == Kind::kPdb) return;
      load(e);
      if (!e.bad) add_to(ix, key_of(e.mvid), i);
    });
  }
  const Index& cache_index() {
    return lazy_index(caches_by_id, [&](Index& ix, Entry& e, std::size_t i) {
      if (e.kind != Kind::kCache) return;
      load(e);
      if (e.cache && e.pdb_id) add_to(ix, key_of(*e.pdb_id), i);
    });
  }


  Status list(const std::string& root) {
    std::error_code ec;
    const fs::file_status st = fs::status(platform::fs_path(root), ec);
    if (ec || !fs::exists(st)) return {Errc::kNotFound, "--search " + root + ": no such file or directory"};
    if (fs::is_regular_file(st)) {
      add_file(root);
      return {};
    }
    if (!fs::is_directory(st)) return {Errc::kUsage, "--search " + root + ": not a file or directory"};
    fs::recursive_directory_iterator it(platform::fs_path(root), fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      if (it.depth() > kMaxDepth) {
        it.disable_recursion_pending();
        continue;
      }
      const std::string name = platform::fs_string(it->path().filename());
      if (!name.empty() && name[0] == '.') {  // .ilmap-404, .ilmap-store.lock, temporaries
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_regular_file(ec)) add_file(platform::fs_string(it->path()));
      if (entries.size() >= kMaxFiles) break;
    }
    return {};
  }

  void add_file(const std::string& path) {
    std::string lname = ascii_lower(platform::fs_string(platform::fs_path(path).filename()));
    const auto k = kind_of(lname);
    if (!k) return;
    // Found (by_name), named in the cache directory and compiled as the .pdb it holds.
    if (lname.ends_with(".pdz")) lname.back() = 'b';
    Entry e;
    e.path = path;
    e.lname = std::move(lname);
    e.kind = *k;
    entries.push_back(std::move(e));
  }

  // Owns `c`; `file` is the file it was opened from ("" for one built in memory).
  const Cache* keep(Cache c, std::string file) {
    caches.push_back(std::make_unique<Cache>(std::move(c)));
    cache_files.emplace(caches.back().get(), std::move(file));
    return caches.back().get();
  }

  void load(Entry& e) {
    if (e.loaded) return;
    e.loaded = true;
    auto fail = [&](const std::string& why) {
      e.bad = true;
      e.error = e.path + ": " + why;
    };
    if (e.kind == Kind::kCache) {
      auto c = Cache::open(e.path);
      if (!c) return fail(c.error().message);
      const CacheIdentity id = c->identity();
      if (id.pdb_id) e.pdb_id = *id.pdb_id;
      if (!id.pe_name.empty()) e.pe_name = ascii_lower(std::string(id.pe_name));
      e.windows = !id.pdb_key.empty() && is_windows_key(std::string(id.pdb_key));
      if (auto m = c->mvid()) e.mvid = *m;
      e.cache = keep(std::move(*c), e.path);
      return;
    }
    auto file = FileBytes::open(e.path);
    if (!file) return fail(file.error().message);
    if (e.kind == Kind::kPdb) {  // only the id (a Windows PDB's symbols are not read)
      auto id = read_pdb_id(file->bytes());
      if (!id) return fail(id.error().message);
      e.pdb_id = id->id;
      e.windows = id->windows;
      return;
    }
    PeOptions po;
    po.embedded_pdb_errors_fatal = false;
    auto pe = PeFile::parse(file->bytes(), po);
    if (!pe) return fail(pe.error().message);
    e.mvid = pe->info().mvid;
    e.embedded_pdb = pe->info().embedded_pdb.has_value();
    e.managed = pe->info().managed;
    for (const CodeViewEntry& cv : pe->info().codeview)
      e.codeview.push_back({cv.guid, cv.age, cv.stamp, cv.portable(), cv.path});
  }
};

}  // namespace ilmap::symbols::search
