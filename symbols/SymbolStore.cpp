// SymbolStore.cpp - see SymbolStore.h.
#include "symbols/SymbolStore.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "support/AtomicFile.h"
#include "support/FileBytes.h"
#include "support/Platform.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/MsymIngest.h"  // is_msym_name
#include "symbols/PackageIngest.h"  // read_plain_file
#include "decode/MsymFile.h"

namespace ilmap::symbols {
namespace {

namespace fs = std::filesystem;

// Holds an exclusive flock on STORE/.ilmap-store.lock while alive.
// (Opened first and locked later by a writer that prepares its file meanwhile.)
class StoreLock {
 public:
  static Result<StoreLock> open(const std::string& root) {
    const std::string path = root + "/.ilmap-store.lock";
    const int fd = platform::open_lock_file(path, 0644);
    if (fd < 0) return Error{Errc::kIo, format("%s: cannot open the store lock: %s", path.c_str(), std::strerror(errno))};
    return StoreLock(fd, path);
  }
  static Result<StoreLock> take(const std::string& root) {
    auto l = open(root);
    if (!l) return l.error();
    if (Status s = l->lock(); !s) return s.error();
    return l;
  }
  Status lock() {
    if (!platform::lock_file(fd_, true))
      return {Errc::kIo, format("%s: cannot lock: %s", path_.c_str(), std::strerror(errno))};
    return {};
  }
  StoreLock(StoreLock&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  StoreLock& operator=(StoreLock&&) = delete;
  ~StoreLock() {
    if (fd_ >= 0) platform::close_fd(fd_);  // releases the lock
  }

 private:
  StoreLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
};

bool same_bytes(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::error_code ec;
  const fs::path p = platform::fs_path(path);  // UTF-16 on Windows
  if (fs::file_size(p, ec) != bytes.size() || ec) return false;
  std::ifstream in(p, std::ios::binary);
  char buf[65536];
  std::size_t at = 0;
  while (in && at < bytes.size()) {
    in.read(buf, static_cast<std::streamsize>(std::min(sizeof buf, bytes.size() - at)));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0 || std::memcmp(buf, bytes.data() + at, n) != 0) return false;
    at += n;
  }
  return at == bytes.size();
}

// Same size and bytes.
bool same_files(const std::string& a, const std::string& b) {
  std::error_code ec1, ec2;
  const fs::path pa = platform::fs_path(a), pb = platform::fs_path(b);  // UTF-16 on Windows
  if (fs::file_size(pa, ec1) != fs::file_size(pb, ec2) || ec1 || ec2) return false;
  std::ifstream x(pa, std::ios::binary), y(pb, std::ios::binary);
  char bx[65536], by[65536];
  while (x && y) {
    x.read(bx, sizeof bx);
    y.read(by, sizeof by);
    if (x.gcount() != y.gcount() || std::memcmp(bx, by, static_cast<std::size_t>(x.gcount())) != 0) return false;
  }
  return x.eof() && y.eof();
}

bool ascii_lower_equal(const std::string& a, const std::string& b) { return key_equal(a, b); }

}  // namespace

SymbolStore::SymbolStore(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

bool SymbolStore::two_tier() const {
  std::error_code ec;
  return fs::is_regular_file(platform::fs_path(root_ + "/index2.txt"), ec);
}

std::string SymbolStore::relative_path(std::string_view key) const {
  if (!two_tier()) return std::string(key);
  const std::string_view file = key.substr(0, key.find('/'));
  const std::size_t n = file.size() >= 2 && file[1] != '.' ? 2 : 1;
  return std::string(file.substr(0, n)) + "/" + std::string(key);
}

Result<std::string> SymbolStore::find(std::string_view key) const {
  if (Status s = validate_key(key); !s) return s.error();
  const std::string rel = relative_path(key);
  std::error_code ec;
  std::string exact = root_ + "/" + rel;
  if (fs::is_regular_file(platform::fs_path(exact), ec)) return exact;
  // Case-insensitive walk, component by component.
  std::string at = root_;
  std::size_t start = 0;
  while (start <= rel.size()) {
    const std::size_t slash = rel.find('/', start);
    const std::string part = rel.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    std::string next = at + "/" + part;
    if (!fs::exists(platform::fs_path(next), ec)) {
      next.clear();
      for (fs::directory_iterator it(platform::fs_path(at), ec), end; !ec && it != end; it.increment(ec))
        if (ascii_lower_equal(platform::fs_string(it->path().filename()), part)) {
          next = platform::fs_string(it->path());
          break;
        }
      if (next.empty()) break;
    }
    at = next;
    if (slash == std::string::npos) {
      if (fs::is_regular_file(platform::fs_path(at), ec)) return at;
      break;
    }
    start = slash + 1;
  }
  return Error{Errc::kNotFound, format("%s: no file under key %.*s", root_.c_str(), static_cast<int>(key.size()), key.data())};
}

Result<PutOutcome> SymbolStore::put(std::string_view key, std::span<const std::uint8_t> bytes,
                                    const std::function<bool(const std::string&)>& replace_existing) {
  if (Status s = validate_key(key); !s) return s.error();
  // The same bytes already there need no lock (nor a writable store): files under a key are
  // only ever replaced by a complete rename, so what is read here is a whole file.
  auto present = find(key);
  if (present && same_bytes(*present, bytes)) return PutOutcome::kAlreadyPresent;
  if (!present && present.error().code == Errc::kNotFound) return put_new(key, bytes, replace_existing);
  return place(
      key, [&](const std::string& existing) { return same_bytes(existing, bytes); },
      [&](const std::string& target) { return write_file_atomically(target, bytes, true); }, replace_existing);
}

Result<PutOutcome> SymbolStore::put_new(std::string_view key, std::span<const std::uint8_t> bytes,
                                        const std::function<bool(const std::string&)>& replace_existing) {
  // The slow part of a write (the bytes and their fsync) happens before the lock, so that
  // writers of different keys (store add --jobs, several processes) overlap; under the lock
  // only the check and the rename remain.
  std::error_code ec;
  fs::create_directories(platform::fs_path(root_), ec);
  if (ec) return Error{Errc::kIo, format("%s: cannot create the store: %s", root_.c_str(), ec.message().c_str())};
  auto lock = StoreLock::open(root_);
  if (!lock) return lock.error();
  const std::string target = root_ + "/" + relative_path(key);
  fs::create_directories(platform::fs_path(target).parent_path(), ec);
  if (ec) return Error{Errc::kIo, format("%s: cannot create the key directory: %s", target.c_str(), ec.message().c_str())};
  auto tmp = TempFile::create(target);
  if (!tmp) return tmp.error();
  int err = tmp->append(bytes);
  if (err == 0 && platform::sync_fd(tmp->fd()) != 0) err = errno;
  if (err != 0) return Error{Errc::kIo, format("%s: write failed: %s", target.c_str(), std::strerror(err))};
  if (Status s = lock->lock(); !s) return s.error();
  return place_locked(
      key, [&](const std::string& existing) { return same_bytes(existing, bytes); },
      [&](const std::string& to) { return tmp->commit(to, false); }, replace_existing);
}

Result<PutOutcome> SymbolStore::put_file(std::string_view key, TempFile& file,
                                         const std::function<bool(const std::string&)>& replace_existing) {
  if (Status s = validate_key(key); !s) return s.error();
  return place(
      key, [&](const std::string& existing) { return same_files(existing, file.path()); },
      [&](const std::string& target) { return file.commit(target, true); }, replace_existing);
}

Result<PutOutcome> SymbolStore::place(std::string_view key, const std::function<bool(const std::string&)>& same,
                                      const std::function<Status(const std::string&)>& write,
                                      const std::function<bool(const std::string&)>& replace_existing) {
  std::error_code ec;
  fs::create_directories(platform::fs_path(root_), ec);
  if (ec) return Error{Errc::kIo, format("%s: cannot create the store: %s", root_.c_str(), ec.message().c_str())};
  auto lock = StoreLock::take(root_);
  if (!lock) return lock.error();
  return place_locked(key, same, write, replace_existing);
}

Result<PutOutcome> SymbolStore::place_locked(std::string_view key, const std::function<bool(const std::string&)>& same,
                                             const std::function<Status(const std::string&)>& write,
                                             const std::function<bool(const std::string&)>& replace_existing) {
  std::error_code ec;
  auto existing = find(key);
  PutOutcome outcome = PutOutcome::kAdded;
  std::string target = root_ + "/" + relative_path(key);
  if (existing) {
    if (same(*existing)) return PutOutcome::kAlreadyPresent;
    if (!replace_existing || !replace_existing(*existing))
      return Error{Errc::kMismatch, format("%s: a different file is already stored under key %.*s", existing->c_str(),
                                           static_cast<int>(key.size()), key.data())};
    target = *existing;
    outcome = PutOutcome::kReplaced;
  }
  fs::create_directories(platform::fs_path(target).parent_path(), ec);
  if (ec) return Error{Errc::kIo, format("%s: cannot create the key directory: %s", target.c_str(), ec.message().c_str())};
  if (Status s = write(target); !s) return s.error();
  return outcome;
}

Result<StoredBytes> SymbolStore::read(std::string_view key) const {
  auto p = find(key);
  if (!p) return p.error();
  if (is_msym_name(key)) {  // a Mono .msym has no magic FileBytes knows: read as it is
    auto b = read_plain_file(*p, MsymFile::kMaxFileSize);
    if (!b) return b.error();
    return StoredBytes(std::move(*b), *p);
  }
  auto f = FileBytes::open(*p);
  if (!f) return f.error();
  return StoredBytes(std::move(*f), *p);
}

Result<PutOutcome> SymbolStore::write(std::string_view key, std::span<const std::uint8_t> bytes,
                                      const ReplaceCheck& replace_existing) {
  if (!replace_existing) return put(key, bytes);
  return put(key, bytes, [&](const std::string& existing) {
    auto f = FileBytes::open(existing);
    return replace_existing(f ? StoredBytes(std::move(*f), existing) : StoredBytes(std::vector<std::uint8_t>(), existing));
  });
}

Status SymbolStore::remove(std::string_view key) {
  auto p = find(key);
  if (!p) return p.error().code == Errc::kNotFound ? Status() : Status(p.error().code, p.error().message);
  std::error_code ec;
  fs::remove(platform::fs_path(*p), ec);
  if (ec) return {Errc::kIo, *p + ": cannot remove: " + ec.message()};
  return {};
}

Result<std::vector<std::string>> SymbolStore::list() const {
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path root = platform::fs_path(root_);
  for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) out.push_back(platform::fs_generic_string(it->path().lexically_relative(root)));
  if (ec) return Error{Errc::kIo, root_ + ": cannot list: " + ec.message()};
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ilmap::symbols
