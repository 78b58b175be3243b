// SourceProvider.cpp - embedded sources and checksum-verified local checkouts (SourceProvider.h).
//
// The low-level SHA*_Init/Update/Final functions, not EVP nor the one-shot SHA256()/SHA1() (which
// OpenSSL 3 implements over EVP_Q_digest), for the reason decode/PdbChecksum.cpp gives: EVP links
// the provider machinery of a static libcrypto into every program (the program doubled in size
// and `ilmap --version` touched 247 pages instead of under 200: meta.startup_cost).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "symbolicate/SourceProvider.h"


#include <openssl/sha.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "support/AtomicFile.h"
#include "support/Platform.h"
#include "support/TextEscape.h"

namespace ilmap {
namespace {

bool is_separator(char c) { return c == '/' || c == '\\'; }

// The canonical form of an existing path (symlinks resolved), or "" when it has none.
std::string canonical(const std::string& path) {
  return platform::real_path(path).value_or(std::string());
}

// `rest` (a document path after its source-root prefix) as a path relative to the root: its
// components joined with '/', either separator accepted (PDBs of Windows builds use '\').
// Empty when it must not be followed: absolute, or with an empty, `.` or `..` component or a
// NUL byte.
std::string relative_path(std::string_view rest) {
  if (rest.empty() || is_separator(rest.front())) return {};
  std::string out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = start;
    while (end < rest.size() && !is_separator(rest[end])) ++end;
    const std::string_view part = rest.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.find('\0') != std::string_view::npos) return {};
    if (!out.empty()) out += '/';
    out.append(part);
    if (end == rest.size()) return out;
    start = end + 1;
  }
}

bool read_file(int fd, std::uint64_t size, std::string& text) {
  text.assign(static_cast<std::size_t>(size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const long long n = platform::read_some(fd, text.data() + got, text.size() - got);
    if (n <= 0) return false;  // an error, or the file shrank: its hash would not be the one read
    got += std::size_t(n);
  }
  char extra;
  return platform::read_some(fd, &extra, 1) == 0;  // nor may it have grown
}

bool hash_matches(const std::string& text, const DocumentChecksum& sum) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  std::size_t size = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  if (sum.algorithm == DocumentHashAlgorithm::kSha256) {
    SHA256_CTX c;
    if (!SHA256_Init(&c) || !SHA256_Update(&c, data, text.size()) || !SHA256_Final(digest, &c)) return false;
    size = SHA256_DIGEST_LENGTH;
  } else if (sum.algorithm == DocumentHashAlgorithm::kSha1) {
    SHA_CTX c;
    if (!SHA1_Init(&c) || !SHA1_Update(&c, data, text.size()) || !SHA1_Final(digest, &c)) return false;
    size = SHA_DIGEST_LENGTH;
  } else {
    return false;
  }
  return sum.hash.size() == size && std::equal(sum.hash.begin(), sum.hash.end(), digest);
}

}  // namespace

Result<SourceRoot> parse_source_root(std::string_view spec) {
  // format(), not '+' on a quote literal: GCC 12 reports a false -Wrestrict there.
  const auto usage = [&](const char* why, const std::string& dir = {}) {
    return Error{Errc::kUsage, format("'%.*s': %s%s", int(spec.size()), spec.data(), dir.c_str(), why)};
  };
  const std::size_t eq = spec.find('=');
  if (eq == std::string_view::npos) return usage("expected PREFIX=DIR");
  SourceRoot r;
  r.prefix = std::string(spec.substr(0, eq));
  const std::string dir(spec.substr(eq + 1));
  if (r.prefix.empty()) return usage("the PREFIX is empty");
  if (dir.empty()) return usage("the DIR is empty");
  platform::FileInfo st;
  if (!platform::stat_path(dir, st) || !st.directory()) return usage(" is not a directory", dir);
  r.dir = canonical(dir);
  if (r.dir.empty()) return usage(" cannot be resolved", dir);
  if (r.dir.size() > 1 && platform::is_path_separator(r.dir.back())) r.dir.pop_back();
  return r;
}

SourceLines SourceLines::split(std::string text) {
  SourceLines s;
  s.bytes = std::move(text);
  std::size_t b = s.bytes.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  for (std::size_t i = b; i < s.bytes.size(); ++i) {
    if (s.bytes[i] != '\n' && s.bytes[i] != '\r') continue;
    s.lines.emplace_back(b, i);
    if (s.bytes[i] == '\r' && i + 1 < s.bytes.size() && s.bytes[i + 1] == '\n') ++i;
    b = i + 1;
  }
  if (b < s.bytes.size()) s.lines.emplace_back(b, s.bytes.size());
  return s;
}

SourceProvider::SourceProvider(SourceOptions options) : options_(std::move(options)) {}

// `path` under `root` into `text` when it is a regular file inside the root whose hash is `sum`.
bool SourceProvider::from_root(const SourceRoot& root, std::string_view path, const DocumentChecksum& sum,
                               std::string& text, Found& f) {
  const auto note = [&](const std::string& why) {
    if (options_.note) options_.note("source " + std::string(path) + ": " + why);
  };
  std::string_view rest = path.substr(root.prefix.size());
  // A prefix that does not end in a separator matches whole components only ("/src" is not a
  // prefix of "/srcx/a.cs").
  if (!is_separator(root.prefix.back())) {
    if (rest.empty() || !is_separator(rest.front())) return false;
    rest.remove_prefix(1);
  }
  const std::string relative = relative_path(rest);
  if (relative.empty()) {
    worse(f, SourceMiss::kFileUnreadable, "under " + root.dir + ": the path after " + root.prefix + " is absolute or has '.', '..' or empty components");
    note("not looked up under " + root.dir + ": the path after " + root.prefix + " is absolute or has '.', '..' or empty components");
    return false;
  }
  const std::string mapped = root.dir + "/" + relative;
  const std::string real = canonical(mapped);
  if (real.empty()) {
    const int err = errno;
    worse(f, err == ENOENT || err == ENOTDIR ? SourceMiss::kFileMissing : SourceMiss::kFileUnreadable,
          mapped + ": " + std::strerror(err));
    note(mapped + ": " + std::strerror(err));
    return false;
  }
  // Inside: the root itself followed by a separator ('\\' too on Windows, whose canonical
  // paths use it), or anything under the root "/".
  const bool inside = real.size() > root.dir.size() && real.compare(0, root.dir.size(), root.dir) == 0 &&
                      (platform::is_path_separator(real[root.dir.size()]) || platform::is_path_separator(root.dir.back()));
  if (!inside) {
    worse(f, SourceMiss::kFileUnreadable, mapped + " leads outside " + root.dir);
    note(mapped + " leads outside " + root.dir + " (to " + real + "): not read");
    return false;
  }
  if (!read_regular(real, text, [&](const std::string& why) {
        worse(f, SourceMiss::kFileUnreadable, mapped + ": " + why);
        note(mapped + ": " + why);
      }))
    return false;
  if (!hash_matches(text, sum)) {
    worse(f, SourceMiss::kHashMismatch, mapped);
    note(mapped + ": its hash differs from the document checksum the PDB records (another revision?): not shown");
    return false;
  }
  return true;
}

// `file` (no symlink) into `text` when it is a regular file within max_source_bytes.
bool SourceProvider::read_regular(const std::string& file, std::string& text,
                                  const std::function<void(const std::string&)>& note) {
  // O_NONBLOCK: a FIFO put there must not hang the run (it is refused below).
  const int fd = platform::open_read(file, platform::kNonBlock | platform::kNoFollow);
  if (fd < 0) {
    note(std::strerror(errno));
    return false;
  }
  platform::FileInfo st;
  bool ok = platform::stat_fd(fd, st) && st.regular();
  if (!ok) note("not a regular file");
  if (ok && st.size > options_.max_source_bytes) {
    note(std::to_string(st.size) + " bytes, more than the limit of " + std::to_string(options_.max_source_bytes));
    ok = false;
  }
  if (ok && !read_file(fd, st.size, text)) {
    note("read failed or the file changed while read");
    ok = false;
  }
  platform::close_fd(fd);
  return ok;
}

bool SourceProvider::from_url(std::string_view url, std::string_view path, const DocumentChecksum& sum,
                              std::string& text, Found& f) {
  const auto note = [&](const std::string& why) {
    if (options_.note) options_.note("source " + std::string(path) + ": " + why);
  };
  std::string kept;
  if (!options_.download_dir.empty()) {
    static const char* const kHex = "0123456789abcdef";
    kept = options_.download_dir + (sum.algorithm == DocumentHashAlgorithm::kSha1 ? "/sha1/" : "/sha256/");
    for (std::uint8_t b : sum.hash) kept += kHex[b >> 4], kept += kHex[b & 15];
    std::error_code ec;
    if (std::filesystem::exists(platform::fs_path(kept), ec)) {
      if (read_regular(kept, text, [](const std::string&) {}) && hash_matches(text, sum)) return true;
      note(kept + ": kept download unreadable or changed: fetched again");
    }
  }
  auto body = options_.fetch(std::string(url), options_.max_source_bytes);
  if (!body) {
    worse(f, SourceMiss::kDownloadFailed, body.error().message);
    note(body.error().message);
    return false;
  }
  if (!hash_matches(*body, sum)) {
    worse(f, SourceMiss::kDownloadFailed, std::string(url) + ": its hash differs from the document checksum the PDB records");
    note(std::string(url) + ": its hash differs from the document checksum the PDB records: not shown");
    return false;
  }
  text = std::move(*body);
  if (!kept.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(platform::fs_path(kept).parent_path(), ec);
    const Status s = write_file_atomically(kept, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}, false);
    if (!s) note("cannot keep the download: " + s.error().message);
  }
  return true;
}

void SourceProvider::worse(Found& f, SourceMiss why, std::string detail) {
  if (why < f.why) return;
  f.why = why;
  f.detail = std::move(detail);
}

SourceProvider::Found& SourceProvider::lookup(const Cache& cache, std::uint32_t document) {
  const std::pair<const Cache*, std::uint32_t> key{&cache, document};
  if (auto it = found_.find(key); it != found_.end()) return it->second;
  Found& slot = found_[key];
  std::string text;
  bool have = false;
  const std::string_view path = cache.document_path(document);
  const auto starts = [&](const SourceRoot& r) {
    return path.size() > r.prefix.size() && path.compare(0, r.prefix.size(), r.prefix) == 0;
  };
  if (auto embedded = cache.embedded_source(document, options_.max_source_bytes)) {
    text = std::move(*embedded);
    have = true;
  } else if (!options_.roots.empty() || options_.fetch) {
    const std::string_view url = cache.document_source_url(document);
    const bool fetchable = options_.fetch && (url.starts_with("https://") || url.starts_with("http://"));
    const bool matched = std::any_of(options_.roots.begin(), options_.roots.end(), starts);
    if (!matched && !fetchable) {
      if (options_.roots.empty()) {
        worse(slot, SourceMiss::kNoEmbeddedSource, "no SourceLink URL to fetch");
      } else {
        std::string tried;
        for (const SourceRoot& r : options_.roots) tried += (tried.empty() ? "" : ", ") + r.prefix;
        worse(slot, SourceMiss::kNoRootMatched, "prefixes tried: " + tried);
      }
    }
    auto sum = cache.document_checksum(document);
    if (sum && (sum->algorithm == DocumentHashAlgorithm::kSha1 || sum->algorithm == DocumentHashAlgorithm::kSha256)) {
      for (const SourceRoot& root : options_.roots) {
        if (!starts(root)) continue;
        if ((have = from_root(root, path, *sum, text, slot))) break;
      }
      if (!have && fetchable) have = from_url(url, path, *sum, text, slot);
    } else if (matched || fetchable) {
      worse(slot, SourceMiss::kNoChecksum, {});
      if (options_.note)
        options_.note("source " + std::string(path) + ": the PDB records no SHA-1 or SHA-256 checksum to verify a file against");
    }
  } else {
    worse(slot, SourceMiss::kNoEmbeddedSource, {});
  }
  if (have) {
    auto lines = std::make_unique<SourceLines>(SourceLines::split(std::move(text)));
    if (lines->count() > 0) {
      slot.lines = std::move(lines);
      slot.why = SourceMiss::kNone;
    } else {
      worse(slot, SourceMiss::kLineBeyondEnd, "the source is empty");
    }
  }
  return slot;
}

const SourceLines* SourceProvider::find(const Cache& cache, std::uint32_t document) {
  return lookup(cache, document).lines.get();
}

const SourceLines* SourceProvider::find_line(const Cache& cache, std::uint32_t document, std::uint32_t line,
                                             SourceMiss* why) {
  Found& f = lookup(cache, document);
  SourceMiss miss = f.why;
  if (f.lines && (line == 0 || line > f.lines->count())) miss = SourceMiss::kLineBeyondEnd;
  if (why) *why = miss;
  if (miss == SourceMiss::kNone) return f.lines.get();
  SourceMissStats::PerReason& r = stats_.by_reason[std::size_t(miss)];
  ++r.frames;
  // A document misses for one reason only (its own, or, when it has lines, beyond-end).
  if (!f.counted) {
    f.counted = true;
    if (r.documents++ == 0) {
      r.first_path = std::string(cache.document_path(document));
      r.first_detail = f.lines ? "line " + std::to_string(line) + " of " + std::to_string(f.lines->count()) : f.detail;
    }
  }
  return nullptr;
}

const char* source_miss_name(SourceMiss m) noexcept {
  switch (m) {
    case SourceMiss::kNone: return "none";
    case SourceMiss::kNoEmbeddedSource: return "no_embedded_source";
    case SourceMiss::kNoRootMatched: return "no_source_root_matched";
    case SourceMiss::kNoChecksum: return "no_checksum";
    case SourceMiss::kDownloadFailed: return "download_failed";
    case SourceMiss::kFileMissing: return "file_missing";
    case SourceMiss::kFileUnreadable: return "file_unreadable";
    case SourceMiss::kHashMismatch: return "hash_mismatch";
    case SourceMiss::kLineBeyondEnd: return "line_beyond_end";
    case SourceMiss::kCount: break;
  }
  return "?";
}

std::string SourceProvider::miss_summary(std::string_view lead) const {
  std::string out;
  for (std::size_t i = 1; i < stats_.by_reason.size(); ++i) {
    const SourceMissStats::PerReason& r = stats_.by_reason[i];
    if (!r.frames) continue;
    const char* why = "";
    const char* hint = "";
    switch (SourceMiss(i)) {
      case SourceMiss::kNoEmbeddedSource:
        why = "the PDB embeds no source and no --source-root was given";
        hint = "; try --source-root PREFIX=DIR (DIR a checkout of the sources, PREFIX the start of the document path to replace by it)";
        break;
      case SourceMiss::kNoRootMatched:
        why = "no --source-root PREFIX starts the document path";
        hint = "; try --source-root PREFIX=DIR with a PREFIX that does";
        break;
      case SourceMiss::kNoChecksum: why = "the PDB records no SHA-1 or SHA-256 checksum to verify a file against"; break;
      case SourceMiss::kDownloadFailed: why = "the SourceLink download failed or is not the PDB's revision"; break;
      case SourceMiss::kFileMissing: why = "no file at the path --source-root maps the document to"; break;
      case SourceMiss::kFileUnreadable: why = "the file --source-root maps the document to was not read"; break;
      case SourceMiss::kHashMismatch:
        why = "the file --source-root maps the document to is not the revision the PDB was built from (its hash differs from the PDB's checksum)";
        break;
      case SourceMiss::kLineBeyondEnd: why = "the source has no line of that number"; break;
      default: break;
    }
    out.append(lead);
    out += format("no source context for %llu frame%s (%llu document%s): %s (first: %s", static_cast<unsigned long long>(r.frames),
                  r.frames == 1 ? "" : "s", static_cast<unsigned long long>(r.documents), r.documents == 1 ? "" : "s", why,
                  escape_text(r.first_path).c_str());
    if (!r.first_detail.empty()) out += "; " + escape_text(r.first_detail);
    out += ')';
    out += hint;
    out += '\n';
  }
  return out;
}

}  // namespace ilmap
