// ModuleResolver.cpp - see ModuleResolver.h.
#include "symbols/ModuleResolver.h"

#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "support/AtomicFile.h"
#include "support/FileBytes.h"
#include "support/Platform.h"
#include "symbols/FilePointer.h"
#include "symbols/PackageIngest.h"  // read_plain_file
#include "decode/MsymFile.h"
#include "decode/SymstoreKeys.h"
#include "decode/PdbChecksum.h"
#include "decode/PortablePdb.h"
#include "symbols/StoreIngest.h"
#include "symbols/S3Store.h"
#include "symbols/SymbolStore.h"
#include "ilmap/cache.h"

namespace ilmap::symbols {
namespace {

namespace fs = std::filesystem;

// Keeps the most telling failure: mismatch over I/O over not found; the last of equals.
void note_failure(std::optional<Error>& worst, Error e) {
  auto rank = [](Errc c) { return c == Errc::kMismatch || c == Errc::kChecksum ? 3 : c == Errc::kNotFound ? 1 : 2; };
  if (!worst || rank(e.code) >= rank(worst->code)) worst = std::move(e);
}

std::string negative_marker(const std::string& cache, const std::string& server, const std::string& key) {
  const std::string what = server + "\n" + key;
  return cache + "/.ilmap-404/" + format("%016llx", static_cast<unsigned long long>(XXH3_64bits(what.data(), what.size())));
}

bool negative_fresh(const std::string& marker, long ttl_s) {
  std::error_code ec;
  const auto t = fs::last_write_time(platform::fs_path(marker), ec);
  if (ec) return false;
  const auto age = fs::file_time_type::clock::now() - t;
  return age < std::chrono::seconds(ttl_s) && age > -std::chrono::seconds(60);
}

// The bytes of a file to check: mapped (FileBytes first checks that they begin as a PE, a PDB or
// a cache does), or, for an .msym, which has no magic number of its own, read whole.
class FileToCheck {
 public:
  // `msym`: the file should be an .msym (read whole), else a PE, a PDB or a cache (mapped).
  static Result<FileToCheck> open(const std::string& path, bool msym, std::uint64_t max = FileBytes::kDefaultMaxSize) {
    FileToCheck f;
    if (msym) {
      auto plain = read_plain_file(path, std::min(max, MsymFile::kMaxFileSize));
      if (!plain) return plain.error();
      f.plain_ = std::move(*plain);
    } else {
      auto mapped = FileBytes::open(path, max);
      if (!mapped) return mapped.error();
      f.mapped_ = std::move(*mapped);
    }
    return f;
  }
  std::span<const std::uint8_t> bytes() const { return mapped_ ? mapped_->bytes() : std::span<const std::uint8_t>(plain_); }

 private:
  std::optional<FileBytes> mapped_;
  std::vector<std::uint8_t> plain_;
};

Status check_file(const std::string& path, const ModuleIdentity& want, bool cache) {
  auto f = FileToCheck::open(path, !cache && want.kind == ModuleKind::kMsym);
  if (!f) return f.error();
  Status s = cache ? check_cache_bytes(f->bytes(), want) : check_pdb_bytes(f->bytes(), want);
  if (!s) return Status(s.code(), path + ": " + s.message());
  return s;
}

// The URL of `key` under `server`, each component percent-encoded.
std::string key_url(const std::string& server, const std::string& key) {
  std::string url = server;
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t slash = key.find('/', start);
    url += '/';
    url += url_escape_segment(key.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return url;
}

// The bytes of a local file.ptr (at most one line's worth more than the cap, so that an
// oversized one is recognised as such).
Result<std::vector<std::uint8_t>> read_pointer_file(const std::string& path) {
  std::ifstream in(platform::fs_path(path), std::ios::binary);  // UTF-16 on Windows
  if (!in) return Error{Errc::kIo, path + ": cannot open"};
  std::vector<std::uint8_t> out(kMaxFilePointerBytes + 1);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

}  // namespace

std::optional<std::string> msfz_key_for(const ModuleIdentity& want) {
  if (want.kind != ModuleKind::kWindowsPdb) return std::nullopt;
  const std::size_t last = want.key.rfind('/');
  if (last == std::string::npos || std::count(want.key.begin(), want.key.end(), '/') != 2) return std::nullopt;
  return want.key.substr(0, last + 1) + kMsfzKeyKind + want.key.substr(last);
}

Status check_cache_bytes(std::span<const std::uint8_t> bytes, const ModuleIdentity& want) {
  auto origin = read_cache_origin(bytes);
  if (!origin) return origin.error();
  if (!want.pdb_id || *want.pdb_id != origin->pdb_id)
    return {Errc::kMismatch, "the cache was compiled from PDB id " + hex_lower(origin->pdb_id) +
                                 (want.pdb_id ? ", wanted " + hex_lower(*want.pdb_id) : std::string())};
  // The id is public: with PdbChecksum entries, the PE names its PDB's bytes, and only a cache
  // recording the same SHA-256 of its PDB stands for them (else the PDB itself is checked).
  if (!want.checksums.empty()) {
    const bool named = !origin->pdb_sha256.empty() &&
                       std::any_of(want.checksums.begin(), want.checksums.end(), [&](const PdbChecksum& c) {
                         return c.algorithm == "SHA256" && c.hash == origin->pdb_sha256;
                       });
    if (!named)
      return {Errc::kChecksum, origin->pdb_sha256.empty()
                                   ? "the cache records no SHA-256 of its PDB, so it cannot match the PE's PdbChecksum (" + want.symbol_checksum + ")"
                                   : "the cache was compiled from a PDB with SHA-256 " + hex_lower(origin->pdb_sha256) +
                                         ", which no PdbChecksum entry of the PE (" + want.symbol_checksum + ") names"};
  }
  return {};
}

Status check_pdb_bytes(std::span<const std::uint8_t> bytes, const ModuleIdentity& want) {
  // An .msym records nothing of its assembly (docs/msym.md): its key names it; it must decode.
  if (want.kind == ModuleKind::kMsym) {
    if (auto f = MsymFile::parse(bytes); !f) return f.error();
    return {};
  }
  auto id = identify_file(want.file_name, bytes);
  if (!id) return id.error();
  if (id->kind != want.kind || !key_equal(id->key, want.key))
    return {Errc::kMismatch, "the file's key is " + id->key + ", wanted " + want.key};
  if (want.pdb_id && id->pdb_id && *want.pdb_id != *id->pdb_id)
    return {Errc::kMismatch, "PDB id " + hex_lower(*id->pdb_id) + ", wanted " + hex_lower(*want.pdb_id)};
  if (!want.checksums.empty() && want.kind == ModuleKind::kPortablePdb) {
    auto pdb = PortablePdb::parse(bytes);
    if (!pdb) return pdb.error();
    const ChecksumVerdict v = verify_pdb_checksums(want.checksums, bytes, pdb->metadata().pdb_stream_offset());
    if (v == ChecksumVerdict::kMismatch)
      return {Errc::kChecksum, "no PdbChecksum entry of the PE (" + want.symbol_checksum + ") matches the PDB"};
  }
  return {};
}

Result<ModuleResolver> ModuleResolver::create(std::vector<SymbolPathEntry> path, ResolveOptions options) {
  // A server named without a download cache (srv*URL) downloads into the default cache
  // directory's symbols/, as symbolicate compiles into that directory.
  const std::string fallback = default_cache_dir().empty() ? std::string() : default_cache_dir() + "/symbols";
  for (SymbolPathEntry& e : path)
    if (e.kind == SymbolPathEntry::Kind::kServer && e.remote() && e.caches.empty()) {
      if (fallback.empty())
        return Error{Errc::kUsage, "symbol path server " + e.location + " has no local cache to download into (srv*CACHE*URL, or a cache*DIR entry before it; without either, HOME or XDG_CACHE_HOME names the default)"};
      e.caches.push_back(fallback);
    }
  return ModuleResolver(std::move(path), std::move(options));
}

namespace {

// One resolve(): the wanted files, best first (the cache of a Portable PDB, then the PDB or PE
// itself), and the worst failure seen so far (reported when nothing is found).
class ResolveRun {
 public:
  ResolveRun(const ModuleIdentity& want, const ResolveOptions& options) : want(want), options_(options) {
    if (options_.want_cache && want.kind == ModuleKind::kPortablePdb && want.pdb_id) wants.push_back({cache_key_for(want.key), true});
    wants.push_back({want.key, false});
    // A Windows PDB may be kept as a .pdz only: asked under its msfz0 key after the plain one.
    if (auto z = msfz_key_for(want)) {
      msfz_want = want;
      msfz_want->key = *z;
      wants.push_back({*z, false, true});
    }
  }

  struct Want {
    std::string key;
    bool cache;
    bool msfz = false;  // the msfz0 key: the file must be the wanted PDB in an MSFZ container
  };
  const ModuleIdentity& want;
  const ResolveOptions& options_;
  std::vector<Want> wants;
  std::optional<ModuleIdentity> msfz_want;  // `want` keyed as its .pdz, when that is asked too
  std::optional<Error> worst;

  // What the file under `w.key` must be.
  const ModuleIdentity& expected(const Want& w) const { return w.msfz ? *msfz_want : want; }

  void note(const std::string& s) const {
    if (options_.note) options_.note(s);
  }

  // The SymbolChecksum header of a PDB request; none when the value (from the PE) is not made
  // of header tokens, ':' and ';' only (symbol_checksum_header leaves such entries out).
  std::vector<std::string> checksum_headers() {
    if (want.symbol_checksum.empty()) return {};
    for (char c : want.symbol_checksum)
      if (c != ':' && c != ';' && !is_header_token(std::string_view(&c, 1))) {
        note("SymbolChecksum not sent: the PE's checksum names are not header tokens");
        return {};
      }
    return {"SymbolChecksum: " + want.symbol_checksum};
  }

  // The file a local file.ptr at `ptr` points to: PATH:<local path> (relative to the pointer's
  // directory); MSG:, a URL or a UNC path is not something found here.
  static Result<std::string> local_pointer_target(const std::string& ptr) {
    auto raw = read_pointer_file(ptr);
    if (!raw) return raw.error();
    auto fp = parse_file_pointer(*raw);
    if (!fp) return Error{fp.error().code, ptr + ": " + fp.error().message};
    if (fp->kind == FilePointer::Kind::kMessage) return Error{Errc::kNotFound, ptr + ": the store says: " + fp->value};
    if (fp->url() || fp->unc() || fp->drive())
      return Error{Errc::kNotFound, ptr + ": points to " + fp->value + ", which a local store does not follow"};
    fs::path target = platform::fs_path(fp->value);
    if (target.is_relative()) target = platform::fs_path(ptr).parent_path() / target;
    std::error_code ec;
    if (!fs::exists(target, ec)) return Error{Errc::kNotFound, ptr + ": points to " + fp->value + ", which does not exist"};
    return platform::fs_string(target.lexically_normal());
  }

  // Fetches what a server's file.ptr for `key` points to into `out`; nullopt when the server has
  // none (404).
  std::optional<Status> http_pointer_target(const std::string& server, const std::string& key, std::string& source,
                                            TempFile& out) {
    const std::string ptr_url = key_url(server, file_pointer_key(key));
    HttpOptions small = options_.http;
    small.max_bytes = kMaxFilePointerBytes;
    auto raw = http_get(ptr_url, {}, small);
    if (!raw && raw.error().code == Errc::kNotFound) return std::nullopt;
    if (!raw) return Error{raw.error().code == Errc::kTooLarge ? Errc::kMalformed : raw.error().code, raw.error().message};
    auto fp = parse_file_pointer(*raw);
    if (!fp) return Error{fp.error().code, ptr_url + ": " + fp.error().message};
    if (fp->kind == FilePointer::Kind::kMessage) return Error{Errc::kNotFound, ptr_url + ": the server says: " + fp->value};
    source = ptr_url + " -> " + fp->value;
    note("following " + source);
    if (fp->url()) return http_get_to_file(fp->value, checksum_headers(), options_.http, out);
    std::error_code ec;
    if (fp->unc() || fp->drive() || platform::fs_path(fp->value).is_relative() || !fs::exists(platform::fs_path(fp->value), ec))
      return Error{Errc::kNotFound, ptr_url + ": points to " + fp->value + ", which is not reachable from here"};
    auto f = FileBytes::open(fp->value, options_.http.max_bytes);
    if (!f) return Error{f.error().code, source + ": " + f.error().message};
    int err = out.clear();
    if (err == 0) err = out.append(f->bytes());
    if (err != 0)
      return Error{Errc::kIo, format("%s: cannot copy to %s: %s", source.c_str(), out.path().c_str(), std::strerror(err))};
    return Status{};
  }

  std::optional<Resolved> try_store(const std::string& dir) {
    SymbolStore store(dir);
    for (const Want& w : wants) {
      auto p = store.find(w.key);
      if (!p && !w.cache) {
        // No file: a file.ptr in its place may point to it (a local path, read in place).
        auto ptr = store.find(file_pointer_key(w.key));
        if (!ptr) continue;
        auto target = local_pointer_target(*ptr);
        if (!target) {
          note(target.error().message);
          note_failure(worst, target.error());
          continue;
        }
        p = *target;
      }
      if (!p) continue;
      if (Status s = check_file(*p, expected(w), w.cache); !s) {
        note("refused " + *p + ": " + s.message());
        note_failure(worst, s.error());
        continue;
      }
      return Resolved{w.key, *p, w.cache};
    }
    return std::nullopt;
  }

  // The object under `key` of the bucket store `location` (S3Store: settings from the
  // environment), into `out`; `url` becomes its s3:// URL. Read whole into memory (at most
  // max_bytes), not streamed as an HTTP download is.
  Status s3_get_to_file(const std::string& location, const std::string& key, std::string& url, TempFile& out) {
    auto config = S3Config::from_environment("", "");
    if (!config) return config.error();
    config->max_bytes = options_.http.max_bytes;
    config->connect_timeout_ms = options_.http.connect_timeout_ms;
    config->timeout_s = options_.http.total_timeout_s > 0 ? options_.http.total_timeout_s : config->timeout_s;
    config->attempts = options_.http.attempts;
    auto store = S3Store::open(location, std::move(*config));
    if (!store) return store.error();
    auto got = store->read(key);
    if (!got) return got.error();
    url = got->where();
    if (const int e = out.clear(); e != 0) return {Errc::kIo, out.path() + ": " + std::strerror(e)};
    if (const int e = out.append(got->bytes()); e != 0) return {Errc::kIo, out.path() + ": " + std::strerror(e)};
    if (options_.http.counter) options_.http.counter->bytes.fetch_add(got->bytes().size(), std::memory_order_relaxed);
    return {};
  }

  // The server of `e`: each wanted file not answered 404 recently is downloaded into the entry's
  // first cache, checked, and stored there; nullopt when none comes.
  std::optional<Result<Resolved>> try_server(const SymbolPathEntry& e) {
    const std::string& cache = e.caches.front();
    for (const Want& w : wants) {
      const std::string marker = negative_marker(cache, e.location, w.key);
      if (negative_fresh(marker, options_.negative_ttl_s)) {
        note("not asking " + e.location + " for " + w.key + ": it answered 404 less than " + std::to_string(options_.negative_ttl_s) + " s ago");
        note_failure(worst, {Errc::kNotFound, e.location + "/" + w.key + ": not found (cached 404)"});
        continue;
      }
      std::string url = key_url(e.location, w.key);
      // The body goes to a temporary file in the cache (bounded by max_bytes, never held in
      // memory), is checked there, and is renamed into place; the temporary goes on any failure.
      std::error_code dir_ec;
      fs::create_directories(platform::fs_path(cache), dir_ec);
      auto tmp = TempFile::create(cache + "/.ilmap-download");
      if (!tmp) {
        note_failure(worst, tmp.error());
        continue;
      }
      Status body = e.s3() ? s3_get_to_file(e.location, w.key, url, *tmp)
                           : http_get_to_file(url, w.cache ? std::vector<std::string>{} : checksum_headers(), options_.http, *tmp);
      if (!body && body.code() == Errc::kNotFound && !w.cache && !e.s3()) {
        // No file: the server may hold a file.ptr in its place.
        std::string via;
        if (auto target = http_pointer_target(e.location, w.key, via, *tmp)) {
          body = std::move(*target);
          url = via;
        }
      }
      Result<FileToCheck> got =
          body ? FileToCheck::open(tmp->path(), !w.cache && want.kind == ModuleKind::kMsym, options_.http.max_bytes) : Result<FileToCheck>(body.error());
      if (body && !got) {  // named by its URL, not by the temporary's name
        std::string m = got.error().message;
        if (m.starts_with(tmp->path() + ": ")) m.erase(0, tmp->path().size() + 2);
        got = Error{got.error().code, url + ": " + m};
      }
      if (!got) {
        if (got.error().code == Errc::kNotFound) {
          std::error_code ec;
          fs::create_directories(platform::fs_path(marker).parent_path(), ec);
          const std::uint8_t nl = '\n';
          (void)write_file_atomically(marker, {&nl, 1}, false);
        }
        note_failure(worst, got.error());
        continue;
      }
      Status s = w.cache ? check_cache_bytes(got->bytes(), want) : check_pdb_bytes(got->bytes(), expected(w));
      if (!s) {
        note("refused " + url + ": " + s.message());
        note_failure(worst, {s.code(), url + ": " + s.message()});
        continue;
      }
      got = Error{Errc::kIo, "unmapped"};  // the checked bytes are not read again
      SymbolStore store(cache);
      auto put = store.put_file(w.key, *tmp, [&](const std::string& existing) { return !check_file(existing, expected(w), w.cache); });
      if (!put) {
        note_failure(worst, put.error());
        continue;
      }
      auto p = store.find(w.key);
      if (!p) return Result<Resolved>(p.error());
      if (!w.cache && want.kind == ModuleKind::kPortablePdb && options_.want_cache) {
        // A downloaded Portable PDB gets its cache compiled beside it in the local cache.
        auto added = add_to_store(store, *p);
        if (!added) {
          note("cannot compile the cache of " + *p + ": " + added.error().message);
        } else if (auto c = store.find(cache_key_for(w.key)); c && check_file(*c, want, true)) {
          return Resolved{cache_key_for(w.key), *c, true};
        }
      }
      return Resolved{w.key, *p, w.cache};
    }
    return std::nullopt;
  }
};

}  // namespace

Result<Resolved> ModuleResolver::resolve(const ModuleIdentity& want) const {
  // The key comes from the module (its file or CodeView name): one a store cannot hold is bad
  // input, not a usage error.
  if (Status s = validate_key(want.key); !s) return Error{Errc::kMalformed, s.message()};
  ResolveRun run(want, options_);
  for (const SymbolPathEntry& e : path_) {
    if (!e.remote()) {
      if (auto r = run.try_store(e.location)) return *r;
      continue;
    }
    for (const std::string& c : e.caches)
      if (auto r = run.try_store(c)) return *r;
    if (auto r = run.try_server(e)) return std::move(*r);
  }
  // A miss names every key asked: the plain one, and the msfz0 one when it was asked too.
  const std::string asked = run.msfz_want ? want.key + " (nor " + run.msfz_want->key + ")" : want.key;
  const std::optional<Error>& worst = run.worst;
  if (!worst) return Error{Errc::kNotFound, asked + ": not found"};
  return Error{worst->code, asked + ": " + worst->message};
}

}  // namespace ilmap::symbols
