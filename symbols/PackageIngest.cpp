// PackageIngest.cpp - see PackageIngest.h.
#include "symbols/PackageIngest.h"
#include "support/Ascii.h"


#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "support/AtomicFile.h"
#include "support/Platform.h"
#include "decode/PortablePdb.h"
#include "support/TextEscape.h"

namespace ilmap::symbols {
namespace {


bool ends_with_nocase(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && ascii_lower(s.substr(s.size() - n)) == suffix;
}

bool is_module_name(const std::string& name) {
  return ends_with_nocase(name, ".dll") || ends_with_nocase(name, ".exe") || ends_with_nocase(name, ".pdb");
}

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '/' || c == '\\') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

bool equal_nocase(const std::string& a, const std::string& b) { return a.size() == b.size() && ascii_lower(a) == ascii_lower(b); }

std::size_t common_suffix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::size_t k = 0;
  while (k < a.size() && k < b.size() && equal_nocase(a[a.size() - 1 - k], b[b.size() - 1 - k])) ++k;
  return k;
}

// The best of `cands` (indices into `paths`/`split`) for `doc` (PackageIngest.h's rule).
int best_match(const std::vector<std::string>& doc, const std::vector<std::string>& paths,
               const std::vector<std::vector<std::string>>& split, const std::vector<int>& cands) {
  int best = -1;
  std::size_t best_k = 0;
  for (int c : cands) {
    const std::size_t k = common_suffix(doc, split[c]);
    if (k == 0) continue;
    bool better = best < 0 || k > best_k;
    if (!better && k == best_k) {
      if (split[c].size() != split[best].size()) better = split[c].size() < split[best].size();
      else better = paths[c] < paths[best];
    }
    if (better) {
      best = c;
      best_k = k;
    }
  }
  return best;
}

// Writes `bytes` to root/rel (rel already validated: relative, no "."/".." components), never
// through a symlink: every directory below root is created or checked with lstat, and the
// final file is created by write_file_atomically only when nothing is there.
Result<PutOutcome> put_source(const std::string& root, const std::string& rel, std::span<const std::uint8_t> bytes) {
  std::error_code ec;
  std::filesystem::create_directories(platform::fs_path(root), ec);
  if (ec) return Error{Errc::kIo, root + ": cannot create the source store: " + ec.message()};
  const std::vector<std::string> parts = components(rel);
  std::string cur = root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    cur += "/" + parts[i];
    if (platform::make_directory(cur) != 0 && errno != EEXIST)
      return Error{Errc::kIo, cur + ": cannot create: " + std::strerror(errno)};
    platform::FileInfo st;
    if (!platform::stat_path(cur, st, false) || !st.directory())
      return Error{Errc::kIo, cur + ": not a directory (sources are never written through symlinks)"};
  }
  const std::string target = cur + "/" + parts.back();
  platform::FileInfo st;
  if (platform::stat_path(target, st, false)) {
    if (!st.regular()) return Error{Errc::kIo, target + ": exists and is not a regular file"};
    auto have = read_plain_file(target, bytes.size());
    if (!have && have.error().code != Errc::kTooLarge) return have.error();
    const std::vector<std::uint8_t> h = have ? std::move(*have) : std::vector<std::uint8_t>{};
    if (h.size() == bytes.size() && std::equal(h.begin(), h.end(), bytes.begin())) return PutOutcome::kAlreadyPresent;
    return Error{Errc::kMismatch, target + ": holds other bytes than the package's source (a package version is published once)"};
  }
  if (Status s = write_file_atomically(target, bytes, true); !s) return s.error();
  return PutOutcome::kAdded;
}

}  // namespace

Result<std::vector<std::uint8_t>> read_plain_file(const std::string& path, std::uint64_t max) {
  const int fd = platform::open_read(path, platform::kNoFollow | platform::kNonBlock);
  if (fd < 0) return Error{Errc::kIo, path + ": cannot open: " + std::strerror(errno)};
  platform::FileInfo st;
  if (!platform::stat_fd(fd, st) || !st.regular()) {
    platform::close_fd(fd);
    return Error{Errc::kIo, path + ": not a regular file"};
  }
  if (st.size > max) {
    platform::close_fd(fd);
    return Error{Errc::kTooLarge, path + ": larger than expected"};
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(st.size));
  std::size_t got = 0;
  while (got < out.size()) {
    const long long k = platform::read_some(fd, out.data() + got, out.size() - got);
    if (k <= 0) break;
    got += static_cast<std::size_t>(k);
  }
  platform::close_fd(fd);
  if (got != out.size()) return Error{Errc::kIo, path + ": cannot read (it changed size?)"};
  return out;
}

bool is_package_name(const std::string& name) { return ends_with_nocase(name, ".nupkg") || ends_with_nocase(name, ".snupkg"); }

std::string url_encode_path(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
        c == '~' || c == '/') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

int match_document(const std::string& document, const std::vector<std::string>& candidates) {
  std::vector<std::vector<std::string>> split;
  std::vector<int> all;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    split.push_back(components(candidates[i]));
    all.push_back(static_cast<int>(i));
  }
  return best_match(components(document), candidates, split, all);
}

Status add_package(Store& store, const std::string& path, const PackageAddOptions& options,
                   const std::function<void(const PackageEvent&)>& on_event) {
  auto pkg = PackageReader::open(path, options.limits);
  if (!pkg) return pkg.error();
  const std::string base = platform::fs_string(platform::fs_path(path).filename());

  // Sources under src/ (legacy symbols packages), indexed by lower-cased file name.
  std::vector<const PackageEntry*> sources;
  std::vector<std::string> rel;                   // path under src/
  std::vector<std::vector<std::string>> split;    // its components
  std::map<std::string, std::vector<int>> by_name;
  const bool publish = !options.sources_dir.empty();
  if (publish) {
    for (const PackageEntry& e : pkg->entries()) {
      if (e.name.size() > 4 && ascii_lower(e.name.substr(0, 4)) == "src/") {
        sources.push_back(&e);
        rel.push_back(e.name.substr(4));
        split.push_back(components(rel.back()));
        by_name[ascii_lower(split.back().back())].push_back(static_cast<int>(rel.size() - 1));
      }
    }
  }
  const std::string prefix = pkg->id() + "/" + pkg->version() + "/";
  std::string root = options.source_url_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  for (std::size_t i = 0; i < sources.size(); ++i) {
    auto bytes = pkg->read(*sources[i]);
    if (!bytes) return bytes.error();
    auto r = put_source(options.sources_dir, prefix + rel[i], *bytes);
    if (!r) return r.error();
    PackageEvent ev;
    ev.kind = PackageEvent::kSource;
    ev.source = prefix + rel[i];
    ev.source_outcome = *r;
    on_event(ev);
  }

  std::vector<const PackageEntry*> modules;
  for (const PackageEntry& e : pkg->entries())
    if (is_module_name(e.name)) modules.push_back(&e);
  std::stable_sort(modules.begin(), modules.end(), [](const PackageEntry* a, const PackageEntry* b) { return a->name < b->name; });
  for (const PackageEntry* e : modules) {
    auto bytes = pkg->read(*e);
    if (!bytes) return bytes.error();
    AddOptions ao;
    std::size_t matched = 0, documents = 0;
    bool matching = false;
    if (!sources.empty()) {
      ao.document_urls = [&](const PortablePdb& pdb) -> Result<std::vector<std::string>> {
        std::vector<std::string> urls;
        auto sl = pdb.source_link();
        if (!sl) return sl.error();
        if (*sl && !(*sl)->empty()) return urls;  // SourceLink wins: no package URLs
        auto docs = pdb.documents();
        if (!docs) return docs.error();
        matching = true;
        documents = docs->size();
        for (const Document& d : *docs) {
          const std::vector<std::string> dc = components(d.name);
          int m = -1;
          if (!dc.empty())
            if (auto it = by_name.find(ascii_lower(dc.back())); it != by_name.end()) m = best_match(dc, rel, split, it->second);
          if (m >= 0) {
            ++matched;
            urls.push_back(root + "/" + url_encode_path(prefix + rel[static_cast<std::size_t>(m)]));
          } else {
            urls.emplace_back();
          }
        }
        return urls;
      };
    }
    auto r = add_bytes_to_store(store, e->name, base + ": " + e->name, *bytes, ao);
    if (!r) return r.error();
    for (const StoredFile& s : *r) {
      PackageEvent ev;
      ev.kind = PackageEvent::kStored;
      ev.stored = s;
      on_event(ev);
    }
    if (matching) {
      PackageEvent ev;
      ev.kind = PackageEvent::kMatched;
      ev.source = r->front().key;
      ev.matched = matched;
      ev.documents = documents;
      on_event(ev);
    }
  }
  return {};
}

}  // namespace ilmap::symbols
