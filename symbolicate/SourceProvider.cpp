// SourceProvider.cpp - embedded sources and checksum-verified local checkouts (SourceProvider.h).
//
// The low-level SHA*_Init/Update/Final functions, not EVP nor the one-shot SHA256()/SHA1() (which
// OpenSSL 3 implements over EVP_Q_digest), for the reason decode/PdbChecksum.cpp gives: EVP links
// the provider machinery of a static libcrypto into every program (the program doubled in size
// and `ilmap --version` touched 247 pages instead of under 200: meta.startup_cost).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "symbolicate/SourceProvider.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/sha.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "support/AtomicFile.h"

namespace ilmap {
namespace {

bool is_separator(char c) { return c == '/' || c == '\\'; }

// The canonical form of an existing path (symlinks resolved), or "" when it has none.
std::string canonical(const std::string& path) {
  char* p = ::realpath(path.c_str(), nullptr);
  if (!p) return {};
  std::string out(p);
  std::free(p);
  return out;
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
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // an error, or the file shrank: its hash would not be the one read
    got += std::size_t(n);
  }
  char extra;
  return ::read(fd, &extra, 1) == 0;  // nor may it have grown
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
  struct stat st{};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return usage(" is not a directory", dir);
  r.dir = canonical(dir);
  if (r.dir.empty()) return usage(" cannot be resolved", dir);
  if (r.dir.size() > 1 && r.dir.back() == '/') r.dir.pop_back();
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
                               std::string& text) {
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
    note("not looked up under " + root.dir + ": the path after " + root.prefix + " is absolute or has '.', '..' or empty components");
    return false;
  }
  const std::string mapped = root.dir + "/" + relative;
  const std::string real = canonical(mapped);
  if (real.empty()) {
    note(mapped + ": " + std::strerror(errno));
    return false;
  }
  const std::string inside = root.dir == "/" ? root.dir : root.dir + "/";
  if (real.compare(0, inside.size(), inside) != 0) {
    note(mapped + " leads outside " + root.dir + " (to " + real + "): not read");
    return false;
  }
  if (!read_regular(real, text, [&](const std::string& why) { note(mapped + ": " + why); })) return false;
  if (!hash_matches(text, sum)) {
    note(mapped + ": its hash differs from the document checksum the PDB records (another revision?): not shown");
    return false;
  }
  return true;
}

// `file` (no symlink) into `text` when it is a regular file within max_source_bytes.
bool SourceProvider::read_regular(const std::string& file, std::string& text,
                                  const std::function<void(const std::string&)>& note) {
  // O_NONBLOCK: a FIFO put there must not hang the run (it is refused below).
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) {
    note(std::strerror(errno));
    return false;
  }
  struct stat st{};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!ok) note("not a regular file");
  if (ok && std::uint64_t(st.st_size) > options_.max_source_bytes) {
    note(std::to_string(st.st_size) + " bytes, more than the limit of " + std::to_string(options_.max_source_bytes));
    ok = false;
  }
  if (ok && !read_file(fd, std::uint64_t(st.st_size), text)) {
    note("read failed or the file changed while read");
    ok = false;
  }
  ::close(fd);
  return ok;
}

bool SourceProvider::from_url(std::string_view url, std::string_view path, const DocumentChecksum& sum,
                              std::string& text) {
  const auto note = [&](const std::string& why) {
    if (options_.note) options_.note("source " + std::string(path) + ": " + why);
  };
  std::string kept;
  if (!options_.download_dir.empty()) {
    static const char* const kHex = "0123456789abcdef";
    kept = options_.download_dir + (sum.algorithm == DocumentHashAlgorithm::kSha1 ? "/sha1/" : "/sha256/");
    for (std::uint8_t b : sum.hash) kept += kHex[b >> 4], kept += kHex[b & 15];
    std::error_code ec;
    if (std::filesystem::exists(kept, ec)) {
      if (read_regular(kept, text, [](const std::string&) {}) && hash_matches(text, sum)) return true;
      note(kept + ": kept download unreadable or changed: fetched again");
    }
  }
  auto body = options_.fetch(std::string(url), options_.max_source_bytes);
  if (!body) {
    note(body.error().message);
    return false;
  }
  if (!hash_matches(*body, sum)) {
    note(std::string(url) + ": its hash differs from the document checksum the PDB records: not shown");
    return false;
  }
  text = std::move(*body);
  if (!kept.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(kept).parent_path(), ec);
    const Status s = write_file_atomically(kept, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()}, false);
    if (!s) note("cannot keep the download: " + s.error().message);
  }
  return true;
}

const SourceLines* SourceProvider::find(const Cache& cache, std::uint32_t document) {
  const std::pair<const Cache*, std::uint32_t> key{&cache, document};
  if (auto it = found_.find(key); it != found_.end()) return it->second.get();
  std::unique_ptr<SourceLines>& slot = found_[key];
  std::string text;
  bool have = false;
  if (auto embedded = cache.embedded_source(document, options_.max_source_bytes)) {
    text = std::move(*embedded);
    have = true;
  } else if (!options_.roots.empty() || options_.fetch) {
    const std::string_view path = cache.document_path(document);
    const std::string_view url = cache.document_source_url(document);
    const bool fetchable = options_.fetch && (url.starts_with("https://") || url.starts_with("http://"));
    auto sum = cache.document_checksum(document);
    if (sum && (sum->algorithm == DocumentHashAlgorithm::kSha1 || sum->algorithm == DocumentHashAlgorithm::kSha256)) {
      for (const SourceRoot& root : options_.roots) {
        if (path.size() <= root.prefix.size() || path.compare(0, root.prefix.size(), root.prefix) != 0) continue;
        if ((have = from_root(root, path, *sum, text))) break;
      }
      if (!have && fetchable) have = from_url(url, path, *sum, text);
    } else if (options_.note && (fetchable || std::any_of(options_.roots.begin(), options_.roots.end(), [&](const SourceRoot& r) {
                                   return path.compare(0, r.prefix.size(), r.prefix) == 0;
                                 }))) {
      options_.note("source " + std::string(path) + ": the PDB records no SHA-1 or SHA-256 checksum to verify a file against");
    }
  }
  if (have) {
    auto lines = std::make_unique<SourceLines>(SourceLines::split(std::move(text)));
    if (lines->count() > 0) slot = std::move(lines);
  }
  return slot.get();
}

}  // namespace ilmap
