// ModuleIndex.cpp - answers by module identity over the search set (symbols/SearchSet.h), the
// cache directory (symbols/CacheDirectory.h) and the symbol path (symbols/ModuleResolver.h),
// memoized (symbols/AnswerMemo.h); see ModuleIndex.h.
#include "symbols/ModuleIndex.h"

#include <algorithm>
#include <filesystem>

#include "decode/DebugInput.h"
#include "decode/PeFile.h"
#include "decode/PortablePdb.h"
#include "decode/SymstoreKeys.h"
#include "decode/msf/MsfPdb.h"
#include "support/Ascii.h"
#include "support/FileBytes.h"
#include "support/Platform.h"
#include "symbols/AnswerMemo.h"
#include "symbols/CacheDirectory.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/ModuleResolver.h"
#include "symbols/SearchSet.h"

namespace ilmap::symbols {

namespace fs = std::filesystem;
using namespace search;

const char* miss_name(Miss m) noexcept {
  switch (m) {
    case Miss::kNone: return "resolved";
    case Miss::kModuleNotFound: return "module not found";
    case Miss::kPdbMismatch: return "PDB id mismatch";
    case Miss::kNoPdb: return "no PDB for the module";
    case Miss::kBadFile: return "unreadable debug file";
    case Miss::kBadPdbName: return "unusable PDB name";
  }
  return "?";
}

struct ModuleIndex::Impl : search::SearchSet {
  explicit Impl(ModuleIndexOptions options)
      : opt(std::move(options)),
        misses{opt.miss_ttl_s, opt.compiled_epoch},
        answers(misses, made),
        pe_answers(misses, made),
        dir({opt.cache_dir, opt.single_flight, opt.touch_reused, opt.embed_sources, opt.note}) {}

  ModuleIndexOptions opt;
  // Caches this index compiled or took from the symbol path (moves the shared epoch on).
  std::size_t made = 0;
  MissPolicy misses;
  AnswerMemo answers;     // by identity key
  AnswerMemo pe_answers;  // by PE path
  CacheDirectory dir;
  std::optional<std::vector<const Cache*>> with_names;
  std::optional<ModuleResolver> resolver;
  ModuleIndexStats stats;

  void note(const std::string& s) const {
    if (opt.note) opt.note(s);
  }

  // The --search paths, canonical (symlinks resolved), for outside_search.
  std::vector<fs::path> search_roots;
  std::unordered_map<const Cache*, std::string> outside_pdbs;  // outside_pdb_of

  // True when `pdb`, the PDB read for the PE `pe`, is neither beside the PE nor under (or one
  // of) the search paths: the absolute CodeView path of a build's obj/ folder, typically.
  bool outside_search(const std::string& pdb, const std::string& pe) const {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(platform::fs_path(pdb), ec);
    if (ec) return false;
    if (p.parent_path() == fs::weakly_canonical(platform::fs_path(pe), ec).parent_path() && !ec) return false;
    for (const fs::path& root : search_roots) {
      const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
      if (r == root.end()) return false;
    }
    return true;
  }
  ModuleAnswer with_outside(ModuleAnswer a, const std::string& pdb) {
    if (a.cache && !pdb.empty()) outside_pdbs.emplace(a.cache, pdb);
    return a;
  }
  // For a cache reused without reading a PDB: the PDB a compile would read from outside the
  // search set (open_debug_input tries the CodeView path as recorded, when absolute, first;
  // an embedded PDB comes before it), if that file is a Portable PDB with id `id`.
  std::string recorded_outside_pdb(const Entry& e, const CodeView& cv, const std::array<std::uint8_t, 20>& id) const {
    if (e.embedded_pdb || !cv.portable || !platform::fs_path(cv.path).is_absolute() || !outside_search(cv.path, e.path)) return {};
    std::error_code ec;
    if (!fs::is_regular_file(platform::fs_path(cv.path), ec)) return {};
    auto file = FileBytes::open(cv.path);
    if (!file) return {};
    auto pdb = PortablePdb::parse(file->bytes());
    if (!pdb || !pdb->has_pdb_stream() || pdb->id().bytes != id) return {};
    return cv.path;
  }

  // The answer for a module whose PDB name makes no valid cache key.
  ModuleAnswer bad_name(const std::string& what, const Error& e) const {
    ModuleAnswer a{nullptr, Miss::kBadPdbName, what + ": not a usable PDB file name: " + e.message};
    note(a.detail);
    return a;
  }

  // A ready cache recording `id` (with names when `need_names`, with embedded sources when
  // asked for): the cache directory's, else a .ilmap of the search set.
  const Cache* ready_cache(const std::string& path, const std::array<std::uint8_t, 20>& id, bool need_names) {
    if (auto c = dir.reuse(path, id, need_names)) {
      ++stats.reused;
      return keep(std::move(*c), path);
    }
    for (std::size_t i : at(cache_index(), key_of(id))) {
      Entry& e = entries[i];
      if (e.cache && e.pdb_id == id && (!need_names || e.cache->has_method_names()) && dir.has_sources_wanted(*e.cache)) {
        ++stats.reused;
        return e.cache;
      }
    }
    return nullptr;
  }

  // Compiles `in` (names from `pe_bytes` when given) into `path` and opens it.
  ModuleAnswer compile(const DebugInput& in, std::span<const std::uint8_t> pe_bytes, const std::string& path) {
    auto c = dir.compile(in, pe_bytes, path);
    if (!c) return {nullptr, Miss::kBadFile, c.error().message};
    ++stats.compiled;
    ++made;
    return {keep(std::move(c->cache), std::move(c->file)), Miss::kNone, {}};
  }

  // A PDB of the search set (or of the symbol path) named like `cv` whose id is `id`; sets
  // `mismatch` when one of that name has another id.
  // A cache the symbol path had where no PDB was beside it (set by find_pdb).
  std::string resolved_cache;

  std::string find_pdb(const CodeView& cv, const std::array<std::uint8_t, 20>& id, bool& mismatch) {
    resolved_cache.clear();
    const std::string want = symstore_file_name(cv.path);
    for (std::size_t i : at(by_name, want)) {
      Entry& e = entries[i];
      if (e.kind != Kind::kPdb) continue;
      load(e);
      if (e.pdb_id == id) return e.path;
      if (e.pdb_id) mismatch = true;
    }
    if (resolver) {
      ModuleIdentity mi;
      mi.file_name = want;
      if (cv.portable) {
        mi.kind = ModuleKind::kPortablePdb;
        mi.key = ssqp_portable_pdb_key(want, cv.guid);
        mi.pdb_id = id;
      } else {  // the key names GUID + age; the resolver checks the PDB's own
        mi.kind = ModuleKind::kWindowsPdb;
        mi.key = ssqp_windows_pdb_key(want, cv.guid, cv.age);
      }
      auto r = resolver->resolve(mi);
      if (r && !r->is_cache) return r->path;
      if (r && r->is_cache) {  // a store holds the PDB beside its cache: compile with names from it
        std::error_code ec;
        const fs::path pdb = platform::fs_path(r->path).parent_path() / platform::fs_path(want);
        if (fs::is_regular_file(pdb, ec)) return platform::fs_string(pdb);
        resolved_cache = r->path;
      }
      if (!r && r.error().code == Errc::kMismatch) mismatch = true;
      if (!r) note(want + " via --symbol-path: " + r.error().message);
    }
    return {};
  }

  ModuleAnswer answer_pe_uncached(Entry& e) {
    load(e);
    if (e.bad) return {nullptr, Miss::kBadFile, e.error};
    // A Portable CodeView entry first; else (no embedded PDB either) a Windows one.
    const CodeView* cv = nullptr;
    for (const CodeView& c : e.codeview)
      if (c.portable) {
        cv = &c;
        break;
      }
    if (!cv && !e.embedded_pdb && e.managed && !e.codeview.empty()) cv = &e.codeview.front();
    if (!cv && !e.embedded_pdb) return {nullptr, Miss::kNoPdb, e.path + ": the PE names no PDB"};
    auto file = FileBytes::open(e.path);
    if (!file) return {nullptr, Miss::kBadFile, file.error().message};
    std::string path;
    std::array<std::uint8_t, 20> id{};
    KeyedLocks::Guard held;
    if (cv) {
      id = make_pdb_id(cv->guid, cv->portable ? cv->stamp : cv->age);
      auto p = cv->portable ? dir.portable_path(cv->path, cv->guid) : dir.windows_path(cv->path, cv->guid, cv->age);
      if (!p) return bad_name(e.path + ": its CodeView entry names the PDB '" + cv->path + "'", p.error());
      path = std::move(*p);
      held = dir.hold(path);
      if (const Cache* c = ready_cache(path, id, true))
        return with_outside({c, Miss::kNone, {}}, recorded_outside_pdb(e, *cv, id));
    }
    DebugInputOptions input_options;
    input_options.windows_pdbs = true;  // a PE naming a Windows PDB: accepted when its GUID + DBI age match
    auto in = open_debug_input(e.path, input_options);
    if (!in && cv && (in.error().code == Errc::kNotFound || in.error().code == Errc::kMismatch)) {
      bool mismatch = in.error().code == Errc::kMismatch;
      const std::string other = find_pdb(*cv, id, mismatch);
      if (!other.empty()) {
        input_options.pdb = other;
        in = open_debug_input(e.path, input_options);
      } else if (!resolved_cache.empty()) {  // verified by the resolver (id and checksums)
        auto c = Cache::open(resolved_cache);
        if (c) {
          ++stats.reused;
          ++made;
          note("from the symbol path: " + resolved_cache);
          return {keep(std::move(*c), resolved_cache), Miss::kNone, {}};
        }
      } else if (mismatch) {
        return {nullptr, Miss::kPdbMismatch, e.path + ": " + in.error().message};
      }
    }
    if (!in) {
      const Miss m = in.error().code == Errc::kMismatch ? Miss::kPdbMismatch
                     : in.error().code == Errc::kNotFound ? Miss::kNoPdb
                                                          : Miss::kBadFile;
      return {nullptr, m, e.path + ": " + in.error().message};
    }
    const DebugInput& d = **in;
    if (!d.has_pdb()) return {nullptr, Miss::kNoPdb, e.path + ": no PDB"};
    if (d.msf && (!cv || cv->portable || make_pdb_id(d.msf->guid(), d.msf->age()) != id))
      return {nullptr, Miss::kPdbMismatch, e.path + ": the Windows PDB used is not the one the CodeView entry names"};
    if (!cv) {
      const PdbId pid = d.pdb->id();
      auto p = dir.portable_path(platform::fs_string(platform::fs_path(e.path).replace_extension(".pdb")), pid.guid());
      if (!p) return bad_name(e.path, p.error());
      path = std::move(*p);
      held = dir.hold(path);
      if (const Cache* c = ready_cache(path, pid.bytes, true)) return {c, Miss::kNone, {}};
    }
    const bool outside = input_options.pdb.empty() && d.source == PdbSource::kSibling && outside_search(d.pdb_path, e.path);
    if (outside) note(e.path + ": its PDB is read from outside the search set, where its CodeView entry records it: " + d.pdb_path);
    return with_outside(compile(d, file->bytes(), path), outside ? d.pdb_path : std::string());
  }

  const ModuleAnswer& answer_pe(Entry& e) {
    const ModuleAnswer& a = pe_answers.get(e.path, [&] { return answer_pe_uncached(e); });
    if (a.cache) pe_files.emplace(a.cache, e.path);  // the first PE answered by a cache names it
    return a;
  }

  // A standalone PDB with id `id` (no PE known): compiled without method names.
  ModuleAnswer answer_pdb(Entry& e) {
    load(e);
    if (e.bad || !e.pdb_id) return {nullptr, Miss::kBadFile, e.error};
    Guid g{};
    std::copy(e.pdb_id->begin(), e.pdb_id->begin() + 16, g.begin());
    auto p = e.windows ? dir.windows_path(e.lname, g, tail_of(*e.pdb_id)) : dir.portable_path(e.lname, g);
    if (!p) return bad_name(e.path, p.error());
    const std::string path = std::move(*p);
    const KeyedLocks::Guard held = dir.hold(path);
    if (const Cache* c = ready_cache(path, *e.pdb_id, false)) return {c, Miss::kNone, {}};
    DebugInputOptions input_options;
    input_options.windows_pdbs = true;
    auto in = open_debug_input(e.path, input_options);
    if (!in) return {nullptr, Miss::kBadFile, in.error().message};
    return compile(**in, {}, path);
  }

  // The best answer among candidates: the first success, else the most telling miss.
  static void prefer(ModuleAnswer& best, const ModuleAnswer& a) {
    if (best.miss == Miss::kNone) return;
    if (a.miss == Miss::kNone || best.miss == Miss::kModuleNotFound ||
        (a.miss == Miss::kPdbMismatch && best.miss != Miss::kPdbMismatch))
      best = a;
  }

  // Calls `f` on the entries that may record GUID `guid` until it returns true. Entries named
  // `hint` are read and tried first (often the answer, found without reading the
  // rest of the set); then the others that record the GUID, from the id index.
  // `hint`: an assembly name ("Asm.Core") or a file name ("Asm.Core.pdb").
  template <class F>
  bool each_with_guid(const Guid& guid, std::string_view hint, F&& f) {
    std::string h = ascii_lower(hint);
    if (kind_of(h)) h = stem_of(h);
    if (!h.empty())
      for (std::size_t i : at(by_stem, h)) {
        load(entries[i]);
        if (!entries[i].bad && f(&entries[i])) return true;
      }
    for (std::size_t i : at(guid_index(), key_of(guid)))
      if ((h.empty() || stem_of(entries[i].lname) != h) && f(&entries[i])) return true;
    return false;
  }

  ModuleAnswer find_by_id(const Guid& guid, std::optional<std::uint32_t> stamp, std::optional<std::uint32_t> age,
                          std::string_view hint) {
    ModuleAnswer best;
    best.detail = "no PE, PDB or cache of the search set has PDB id " + guid_to_text(guid);
    // True once `best` is an answer.
    auto consider = [&](Entry* e) {
      if (e->kind == Kind::kPe) {
        for (const CodeView& cv : e->codeview)
          if (cv.guid == guid && (!stamp || (cv.portable && cv.stamp == *stamp)) &&
              (!age || cv.portable || cv.age == *age)) {
            prefer(best, answer_pe(*e));
            if (best.miss == Miss::kNone) return true;
          }
      } else if (e->pdb_id && std::equal(guid.begin(), guid.end(), e->pdb_id->begin()) &&
                 (!stamp || make_pdb_id(guid, *stamp) == *e->pdb_id) &&
                 (!age || !e->windows || tail_of(*e->pdb_id) == *age)) {
        if (e->kind == Kind::kCache) best = {e->cache, Miss::kNone, {}};
        else prefer(best, answer_pdb(*e));
        if (best.miss == Miss::kNone) return true;
      }
      return false;
    };
    if (each_with_guid(guid, hint, consider)) return best;
    if (best.miss == Miss::kModuleNotFound && resolver && !hint.empty()) {
      prefer(best, from_symbol_path(guid, stamp, std::nullopt, hint));
      // A CodeView GUID + age (ProductionStackTrace) may name a Windows PDB.
      if (age && best.miss == Miss::kModuleNotFound) prefer(best, from_symbol_path(guid, std::nullopt, age, hint));
    }
    return best;
  }

  // The PDB `hint`(.pdb) with id GUID `guid` from the symbol path (no PE known: the trace names
  // the PDB's id itself). The resolver verifies what it returns against the key's GUID (and the
  // full id when the stamp is known).
  // With `windows_age`, the Windows PDB of that GUID + age instead.
  ModuleAnswer from_symbol_path(const Guid& guid, std::optional<std::uint32_t> stamp,
                                std::optional<std::uint32_t> windows_age, std::string_view hint) {
    std::string name = ascii_lower(hint);
    if (name.size() < 4 || name.substr(name.size() - 4) != ".pdb") {
      if (kind_of(name)) name = stem_of(name);
      name += ".pdb";
    }
    ModuleIdentity mi;
    mi.kind = windows_age ? ModuleKind::kWindowsPdb : ModuleKind::kPortablePdb;
    mi.file_name = name;
    mi.key = windows_age ? ssqp_windows_pdb_key(name, guid, *windows_age) : ssqp_portable_pdb_key(name, guid);
    if (stamp) mi.pdb_id = make_pdb_id(guid, *stamp);
    const auto target = windows_age ? dir.windows_path(name, guid, *windows_age) : dir.portable_path(name, guid);
    const KeyedLocks::Guard held = dir.hold(target ? *target : std::string());
    if (target && stamp)  // made already (by another worker while this one waited, or before)
      if (const Cache* c = ready_cache(*target, *mi.pdb_id, false)) return {c, Miss::kNone, {}};
    auto r = resolver->resolve(mi);
    if (!r) {
      const Miss m = r.error().code == Errc::kMismatch ? Miss::kPdbMismatch
                     : r.error().code == Errc::kNotFound ? Miss::kModuleNotFound
                                                         : Miss::kBadFile;
      return {nullptr, m, name + " via --symbol-path: " + r.error().message};
    }
    if (r->is_cache) {
      auto c = Cache::open(r->path);
      if (!c) return {nullptr, Miss::kBadFile, r->path + ": " + c.error().message};
      ++stats.reused;
      ++made;
      note("from the symbol path: " + r->path);
      return {keep(std::move(*c), r->path), Miss::kNone, {}};
    }
    DebugInputOptions input_options;
    input_options.windows_pdbs = windows_age.has_value();
    auto in = open_debug_input(r->path, input_options);
    if (!in) return {nullptr, Miss::kBadFile, in.error().message};
    if (windows_age) {
      const auto& m = (*in)->msf;
      if (!m || m->guid() != guid || m->age() != *windows_age)
        return {nullptr, Miss::kPdbMismatch, r->path + ": another PDB id"};
      if (!target) return bad_name(name, target.error());
      if (const Cache* c = ready_cache(*target, make_pdb_id(guid, *windows_age), false)) return {c, Miss::kNone, {}};
      return compile(**in, {}, *target);
    }
    if (!(*in)->pdb || (*in)->pdb->id().guid() != guid) return {nullptr, Miss::kPdbMismatch, r->path + ": another PDB id"};
    if (!target) return bad_name(name, target.error());
    if (const Cache* c = ready_cache(*target, (*in)->pdb->id().bytes, false)) return {c, Miss::kNone, {}};
    return compile(**in, {}, *target);
  }
};

ModuleIndex::ModuleIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ModuleIndex::~ModuleIndex() = default;

Result<std::unique_ptr<ModuleIndex>> ModuleIndex::create(ModuleIndexOptions options) {
  auto impl = std::make_unique<Impl>(std::move(options));
  for (const std::string& root : impl->opt.search)
    if (Status s = impl->list(root); !s) return s.error();
  if (!impl->opt.symbol_path.empty()) {
    ResolveOptions ro;
    ro.note = impl->opt.note;
    ro.http = impl->opt.http;
    auto r = ModuleResolver::create(impl->opt.symbol_path, ro);
    if (!r) return r.error();
    impl->resolver.emplace(std::move(*r));
  }
  impl->stats.files = impl->entries.size();
  for (const std::string& root : impl->opt.search) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(platform::fs_path(root), ec);
    if (!ec) impl->search_roots.push_back(std::move(p));
  }
  impl->index_names();
  return std::unique_ptr<ModuleIndex>(new ModuleIndex(std::move(impl)));
}

const ModuleIndexStats& ModuleIndex::stats() const {
  impl_->stats.scans = impl_->scans;
  impl_->stats.open = impl_->caches.size();
  return impl_->stats;
}

const ModuleAnswer& ModuleIndex::by_file_name(std::string_view module_file) {
  std::string key = "f:" + ascii_lower(module_file);
  const std::string want = key.substr(2);
  return impl_->answers.get(std::move(key), [&] {
    ModuleAnswer best;
    best.detail = "no file named " + std::string(module_file) + " in the search set";
    for (std::size_t i : Impl::at(impl_->by_name, want)) {
      Entry& e = impl_->entries[i];
      if (e.kind != Kind::kPe) continue;
      Impl::prefer(best, impl_->answer_pe(e));
      if (best.miss == Miss::kNone) break;
    }
    if (best.miss == Miss::kModuleNotFound) {
      for (std::size_t i : Impl::at(impl_->by_stem, stem_of(want))) {
        Entry& e = impl_->entries[i];
        if (e.kind == Kind::kCache) {
          impl_->load(e);
          if (e.cache && e.pe_name == want) {
            best = {e.cache, Miss::kNone, {}};
            break;
          }
        }
      }
    }
    return best;
  });
}

const ModuleAnswer& ModuleIndex::by_mvid(const Guid& mvid) {
  std::string key = "m:" + guid_to_n(mvid);
  return impl_->answers.get(std::move(key), [&] {
    ModuleAnswer best;
    best.detail = "no PE or cache of the search set has MVID " + guid_to_n(mvid);
    for (std::size_t i : Impl::at(impl_->mvid_index(), Impl::key_of(mvid))) {
      Entry& e = impl_->entries[i];
      if (e.kind == Kind::kCache) {
        if (e.cache->has_method_names()) Impl::prefer(best, {e.cache, Miss::kNone, {}});
      } else {
        Impl::prefer(best, impl_->answer_pe(e));
      }
      if (best.miss == Miss::kNone) break;
    }
    return best;
  });
}

const ModuleAnswer& ModuleIndex::by_codeview(const Guid& guid, std::uint32_t age, std::string_view name_hint) {
  std::string key = "c:" + guid_to_n(guid) + "/" + std::to_string(age);
  return impl_->answers.get(std::move(key),
                         [&] { return impl_->find_by_id(guid, std::nullopt, age, name_hint); });
}

const ModuleAnswer& ModuleIndex::by_pdb_id(const std::array<std::uint8_t, 20>& pdb_id, std::string_view name_hint) {
  std::string key = "p:" + hex_lower(pdb_id) + "/" + ascii_lower(name_hint);
  Guid g{};
  std::copy(pdb_id.begin(), pdb_id.begin() + 16, g.begin());
  return impl_->answers.get(std::move(key),
                         [&] { return impl_->find_by_id(g, tail_of(pdb_id), std::nullopt, name_hint); });
}

std::optional<DebugId> parse_debug_id(std::string_view text) noexcept {
  // "<guid D>-<1 to 8 hex digits>", or the same without dashes ("<32 hex digits><1 to 8>", as
  // Sentry and symbolicator also accept): no sign, space, braces or "0x" anywhere.
  std::string_view guid_text, tail;
  if (text.size() >= 38 && text.size() <= 45 && text[36] == '-') {
    guid_text = text.substr(0, 36);
    tail = text.substr(37);
  } else if (text.size() >= 33 && text.size() <= 40 && text.find('-') == std::string_view::npos) {
    guid_text = text.substr(0, 32);  // N form
    tail = text.substr(32);
  } else {
    return std::nullopt;
  }
  if (guid_text[0] == '{') return std::nullopt;
  const auto g = parse_guid_text(guid_text);
  if (!g) return std::nullopt;
  DebugId id;
  id.guid = *g;
  for (char c : tail) {
    const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (v < 0) return std::nullopt;
    id.tail = id.tail << 4 | std::uint32_t(v);
  }
  id.portable = tail.size() == 8;
  return id;
}

const ModuleAnswer& ModuleIndex::by_debug_id(std::string_view debug_id, std::string_view name_hint) {
  static const ModuleAnswer kBad{nullptr, Miss::kModuleNotFound, "not a debug id"};
  const auto id = parse_debug_id(debug_id);
  if (!id) return kBad;
  if (id->portable) return by_pdb_id(make_pdb_id(id->guid, id->tail), name_hint);
  return by_codeview(id->guid, id->tail, name_hint);
}

const std::vector<const Cache*>& ModuleIndex::all_with_names() {
  if (impl_->with_names) return *impl_->with_names;
  ++impl_->scans;
  std::vector<const Cache*> v;
  for (Entry& e : impl_->entries) {
    if (e.kind == Kind::kPdb) continue;
    const Cache* c = nullptr;
    if (e.kind == Kind::kCache) {
      impl_->load(e);
      c = e.cache;
    } else {
      c = impl_->answer_pe(e).cache;
    }
    if (c && c->has_method_names() && std::find(v.begin(), v.end(), c) == v.end()) v.push_back(c);
  }
  impl_->with_names = std::move(v);
  return *impl_->with_names;
}

const ModuleAnswer& ModuleIndex::by_path(const std::string& path) {
  std::string key = "p:" + path;
  return impl_->answers.get(std::move(key), [&] {
    ModuleAnswer a{nullptr, Miss::kModuleNotFound, path + ": not in the search set"};
    for (Entry& e : impl_->entries) {
      if (e.path != path) continue;
      if (e.kind == Kind::kPe) {
        a = impl_->answer_pe(e);
      } else if (e.kind == Kind::kPdb) {
        a = impl_->answer_pdb(e);
      } else {
        impl_->load(e);
        a = e.cache ? ModuleAnswer{e.cache, Miss::kNone, {}} : ModuleAnswer{nullptr, Miss::kBadFile, e.error};
      }
      break;
    }
    return a;
  });
}

std::string ModuleIndex::file_of(const Cache* cache) const {
  const auto it = impl_->cache_files.find(cache);
  return it == impl_->cache_files.end() ? std::string() : it->second;
}

const std::string& ModuleIndex::outside_pdb_of(const Cache* cache) const {
  static const std::string kNone;
  const auto it = impl_->outside_pdbs.find(cache);
  return it == impl_->outside_pdbs.end() ? kNone : it->second;
}

std::string ModuleIndex::pe_of(const Cache* cache) const {
  const auto it = impl_->pe_files.find(cache);
  return it == impl_->pe_files.end() ? std::string() : it->second;
}

}  // namespace ilmap::symbols
