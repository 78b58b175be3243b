// AtomicFile.cpp - output classification, temp file + (fsync) + rename(2), write-through,
// temporary-file cleanup on signals and after a SIGKILL.
//
// Test hooks (environment):
//   ILMAP_FAIL_WRITE_AFTER=N          writes fail with ENOSPC after N bytes, as a full disk would.
//   ILMAP_TEST_PAUSE_BEFORE_RENAME=S  sleep S seconds after writing the temporary file and
//                                     before renaming it, so a test can kill the process there.
#include "support/AtomicFile.h"
#include "support/Platform.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#ifdef _WIN32
// Temporaries are renamed over their target while open: opened so that Windows allows that
// (support/win32/include/posix_compat.h).
#define open ilmap_win_open
#endif

namespace ilmap {
namespace {

std::size_t env_number(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return (end && *end == 0) ? static_cast<std::size_t>(n) : fallback;
}

// ---- live temporary files, for the signal handler -------------------------------------------
// Fixed slots (no allocation, lock-free atomics) so that the handler only reads memory that is
// always valid. state: 0 free, 1 being filled, 2 live. constinit and every member initialized:
// the table is zero-filled .bss, untouched until used (a dynamic initializer would write each
// slot's state at start-up: 256 pages faulted in by every process, a third of `ilmap --version`).
constexpr int kSlots = 256;
struct Slot {
  std::atomic<int> state{0};
  char path[PATH_MAX]{};
};
constinit Slot g_slots[kSlots];

int register_temp(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].state.store(2, std::memory_order_release);
      return i;
    }
  }
  return -1;  // all slots busy: a later run's remove_stale_temps still cleans up
}

void unregister_temp(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0, std::memory_order_release);
}

extern "C" void on_fatal_signal(int sig) {
  const int saved = errno;
  for (int i = 0; i < kSlots; ++i)
    if (g_slots[i].state.load(std::memory_order_acquire) == 2) ::unlink(g_slots[i].path);
  errno = saved;
  // SA_RESETHAND restored the default action; the signal is blocked until we return, then the
  // default action (terminate) runs, so the parent sees the usual "killed by SIGx" status.
  ::raise(sig);
}

// Six characters of [A-Za-z0-9], as mkstemp uses.
std::string random_suffix() {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}() ^
                                   (static_cast<std::uint64_t>(::getpid()) << 32) ^
                                   std::hash<std::thread::id>{}(std::this_thread::get_id())};
  std::string s(6, 'X');
  for (char& c : s) c = kChars[rng() % (sizeof kChars - 1)];
  return s;
}

// ---- paths ----------------------------------------------------------------------------------
// The last separator ('/', and '\\' on Windows), or npos.
std::size_t last_separator(const std::string& path) {
  for (std::size_t i = path.size(); i-- > 0;)
    if (platform::is_path_separator(path[i])) return i;
  return std::string::npos;
}

std::string dir_of(const std::string& path) {
  const std::size_t cut = last_separator(path);
  if (cut == std::string::npos) return {};
  // The root keeps its separator: "/" and, on Windows, "C:\\".
  if (cut == 0 || (cut == 2 && path[1] == ':')) return path.substr(0, cut + 1);
  return path.substr(0, cut);
}

std::string base_of(const std::string& path) {
  const std::size_t cut = last_separator(path);
  return cut == std::string::npos ? path : path.substr(cut + 1);
}

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return platform::is_path_separator(dir.back()) ? dir + name : dir + "/" + name;
}

// ---- writing --------------------------------------------------------------------------------
// Writes all bytes to fd, honouring ILMAP_FAIL_WRITE_AFTER. Returns 0 or an errno value.
int write_all(int fd, std::span<const std::uint8_t> bytes) {
  const std::size_t limit = env_number("ILMAP_FAIL_WRITE_AFTER", SIZE_MAX);
  std::size_t done = 0;
  while (done < bytes.size()) {
    std::size_t chunk = std::min<std::size_t>(bytes.size() - done, 1u << 20);
    if (done + chunk > limit) {
      if (done >= limit) return ENOSPC;
      chunk = limit - done;
    }
    const ssize_t n = ::write(fd, bytes.data() + done, chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

// Reserves the file's blocks before writing: a full disk fails here, before any byte is
// written, and on ext4 the rename that replaces an existing cache then has no delayed
// allocation to force (its auto_da_alloc flushes a delalloc file's pages synchronously inside
// rename(2), which cost more than the compile itself: the figure is in docs/benchmarks-history.md,
// "rename(2) over an existing cache flushed the new file"). File systems without
// fallocate are written as before. Returns 0 or an errno value.
int preallocate(int fd, std::size_t size) {
  if (size == 0) return 0;
  int rc;
  do rc = ::fallocate(fd, 0, 0, static_cast<off_t>(size));
  while (rc != 0 && errno == EINTR);
  if (rc == 0 || errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL) return 0;
  return errno;
}

Status write_through(const OutputTarget& t, std::span<const std::uint8_t> bytes) {
  const bool is_stdout = t.kind == OutputKind::kStdout;
  const std::string name = is_stdout ? std::string("standard output") : t.path;
  int fd = 1;
  if (!is_stdout) {
    // No O_CREAT (it exists), no O_TRUNC (meaningless or harmful on devices and FIFOs).
    const int trunc = S_ISREG(t.st.st_mode) ? O_TRUNC : 0;  // a file named through /dev/fd/N
    do fd = ::open(t.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | trunc);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) return {Errc::kIo, format("%s: cannot open for writing: %s", name.c_str(), std::strerror(errno))};
  }
  int err = write_all(fd, bytes);
  if (!is_stdout && ::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) return {Errc::kIo, format("%s: write failed: %s", name.c_str(), std::strerror(err))};
  return {};
}

// Creates, locks and registers a temporary of `path`'s naming in its directory; sets `tmp`,
// `fd` and `slot`. Returns 0 or an errno value (EEXIST after 100 names taken).
int open_temp(const std::string& path, std::string& tmp, int& fd, int& slot) {
  const std::string dir = dir_of(path);
  const std::string prefix = temp_name_prefix(path);
  fd = -1;
  slot = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    // The name is registered BEFORE the file exists (mkstemp would create it first), so that
    // a signal arriving at any moment finds every temporary file that exists.
    tmp = join(dir, prefix + random_suffix());
    slot = register_temp(tmp);
    fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      const int e = errno;
      unregister_temp(slot);
      if (e == EEXIST) continue;
      return e;
    }
    // Hold the lock while the file lives. A cleaner that locked it first unlinks it: then the
    // link count is 0 once we hold the lock, and we start again with a new name.
    int rc;
    do rc = ::flock(fd, LOCK_EX);
    while (rc != 0 && errno == EINTR);
    struct stat st {};
    if (rc == 0 && ::fstat(fd, &st) == 0 && st.st_nlink == 0) {
      ::close(fd);
      unregister_temp(slot);
      fd = -1;
    }
  }
  return fd < 0 ? EEXIST : 0;
}

Status write_replacing(const OutputTarget& t, std::span<const std::uint8_t> bytes, bool fsync) {
  const std::string& path = t.path;
  remove_stale_temps(path);
  std::string tmp;
  int fd = -1;
  int slot = -1;
  if (const int e = open_temp(path, tmp, fd, slot); e != 0)
    return {Errc::kIo, format("%s: cannot create a temporary file beside it: %s", path.c_str(), std::strerror(e))};
  const mode_t mode = t.kind == OutputKind::kRegular ? (t.st.st_mode & 07777) : new_file_mode();
  // A file system without modes refuses fchmod: the file then keeps mkstemp's 0600, which is
  // never looser than asked, so that is not an error.
  (void)::fchmod(fd, mode);
  int err = preallocate(fd, bytes.size());
  if (err == 0) err = write_all(fd, bytes);
  if (err == 0 && fsync && ::fsync(fd) != 0) err = errno;
  if (err == 0) {
    if (const std::size_t pause = env_number("ILMAP_TEST_PAUSE_BEFORE_RENAME", 0); pause > 0)
      ::sleep(static_cast<unsigned>(pause));
  }
  // Rename while the lock is held, so that no cleaner can take the temporary in between.
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) ::unlink(tmp.c_str());
  unregister_temp(slot);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0)
    return {Errc::kIo, format("%s: write failed: %s (existing file left unchanged)", path.c_str(), std::strerror(err))};
  return {};
}

// Directory listings for remove_stale_temps, read once per directory and process: only names
// that can be temporaries are kept.
std::mutex g_listing_mutex;
std::map<std::string, std::vector<std::string>> g_listings;

std::vector<std::string> temp_candidates(const std::string& dir) {
  std::lock_guard<std::mutex> lock(g_listing_mutex);
  auto it = g_listings.find(dir);
  if (it != g_listings.end()) return it->second;
  std::vector<std::string> names;
  // std::filesystem rather than readdir: on Windows, mingw's readdir gives names in the ANSI
  // code page, so a folder such as C:\Users\Zoë\... was never listed.
  std::error_code ec;
  for (std::filesystem::directory_iterator it(platform::fs_path(dir.empty() ? "." : dir), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = platform::fs_string(it->path().filename());
    if (n.find(".tmp-") != std::string::npos || n.starts_with(".ilmap-tmp-")) names.push_back(n);
  }
  return g_listings.emplace(dir, std::move(names)).first->second;
}

}  // namespace

mode_t new_file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return static_cast<mode_t>(0666 & ~mask);
  }();
  return mode;
}

void install_temp_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP,
#ifdef SIGBREAK
                                SIGBREAK,  // Ctrl+Break on Windows
#endif
    };
    for (int sig : kSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
      struct sigaction sa {};
      sa.sa_handler = on_fatal_signal;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESETHAND;
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

std::string temp_name_prefix(const std::string& final_path) {
  const std::string base = base_of(final_path);
  const std::string readable = base + ".tmp-";
  if (readable.size() + 6 <= NAME_MAX) return readable;
  // Too long for one directory entry: a fixed prefix and a hash of the output's name.
  return format(".ilmap-tmp-%016llx-", static_cast<unsigned long long>(XXH3_64bits(base.data(), base.size())));
}

std::size_t remove_stale_temps(const std::string& final_path) {
  const std::string dir = dir_of(final_path);
  const std::string prefix = temp_name_prefix(final_path);
  std::size_t removed = 0;
  for (const std::string& name : temp_candidates(dir)) {
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string p = join(dir, name);
    const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    // Only a regular file nobody holds, and still the same file under that name. The platform's
    // identity (device and inode; on Windows volume serial and file index: the C runtime's
    // st_ino is always 0 there and its st_dev differs between stat and fstat).
    platform::FileInfo held, now;
    if (platform::stat_fd(fd, held) && held.regular() && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        platform::stat_path(p, now, /*follow=*/false) && now.same_file(held) && ::unlink(p.c_str()) == 0)
      ++removed;
    ::close(fd);
  }
  return removed;
}

Result<OutputTarget> resolve_output(const std::string& path) {
  OutputTarget t;
  if (path == "-") {
    t.kind = OutputKind::kStdout;
    t.path = path;
    return t;
  }
  // Standard output under another name (/dev/stdout, /proc/self/fd/1) is written to fd 1
  // itself, so that a redirection's offset or append mode is honoured.
  struct stat followed {}, out {};
  const bool exists = ::stat(path.c_str(), &followed) == 0;
  if (exists && ::fstat(1, &out) == 0 && out.st_dev == followed.st_dev && out.st_ino == followed.st_ino) {
    t.kind = OutputKind::kStdout;
    t.path = path;
    t.st = followed;
    return t;
  }
  // Devices, FIFOs and sockets, whatever names them, are written through. So is anything
  // reached through /dev or /proc (magic links such as /dev/fd/N must not be renamed over).
  if (exists && !S_ISDIR(followed.st_mode) &&
      (!S_ISREG(followed.st_mode) || path.starts_with("/dev/") || path.starts_with("/proc/"))) {
    t.kind = OutputKind::kWriteThrough;
    t.path = path;
    t.st = followed;
    return t;
  }
  std::string p = path;
  for (int hops = 0;; ++hops) {
    if (hops > 40) return Error{Errc::kIo, format("%s: too many levels of symbolic links", path.c_str())};
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) return Error{Errc::kIo, format("%s: cannot write there: %s", path.c_str(), std::strerror(errno))};
      t.kind = OutputKind::kMissing;
      t.path = p;
      return t;
    }
    if (S_ISLNK(st.st_mode)) {
      std::vector<char> buf(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : PATH_MAX) + 1);
      const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size());
      if (n < 0 || static_cast<std::size_t>(n) >= buf.size())
        return Error{Errc::kIo, format("%s: cannot read symbolic link", path.c_str())};
      const std::string target(buf.data(), static_cast<std::size_t>(n));
      p = (target.starts_with('/') || dir_of(p).empty()) ? target : join(dir_of(p), target);
      continue;
    }
    t.path = p;
    t.st = st;
    if (S_ISREG(st.st_mode)) t.kind = OutputKind::kRegular;
    else if (S_ISDIR(st.st_mode)) t.kind = OutputKind::kDirectory;
    else t.kind = OutputKind::kWriteThrough;
    return t;
  }
}

Status write_output(const OutputTarget& target, std::span<const std::uint8_t> bytes, bool fsync) {
  switch (target.kind) {
    case OutputKind::kStdout:
    case OutputKind::kWriteThrough:
      return write_through(target, bytes);
    case OutputKind::kDirectory:
      return {Errc::kIo, format("%s: is a directory", target.path.c_str())};
    case OutputKind::kMissing:
    case OutputKind::kRegular:
      break;
  }
  return write_replacing(target, bytes, fsync);
}

Status write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes, bool fsync) {
  auto t = resolve_output(path);
  if (!t) return t.error();
  return write_output(*t, bytes, fsync);
}

Result<TempFile> TempFile::create(const std::string& final_path) {
  remove_stale_temps(final_path);
  std::string tmp;
  int fd = -1, slot = -1;
  if (const int e = open_temp(final_path, tmp, fd, slot); e != 0)
    return Error{Errc::kIo, format("%s: cannot create a temporary file beside it: %s", final_path.c_str(), std::strerror(e))};
  return TempFile(std::move(tmp), fd, slot);
}

TempFile::TempFile(TempFile&& o) noexcept
    : path_(std::move(o.path_)), fd_(o.fd_), slot_(o.slot_), committed_(o.committed_) {
  o.fd_ = -1;
  o.slot_ = -1;
}

TempFile::~TempFile() {
  if (fd_ < 0) return;
  if (!committed_) ::unlink(path_.c_str());
  unregister_temp(slot_);
  ::close(fd_);
}

int TempFile::append(std::span<const std::uint8_t> bytes) {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return errno;
  // write_all's ILMAP_FAIL_WRITE_AFTER counts from the start of the file.
  const std::size_t limit = env_number("ILMAP_FAIL_WRITE_AFTER", SIZE_MAX);
  const std::size_t at = static_cast<std::size_t>(st.st_size);
  if (limit != SIZE_MAX && at + bytes.size() > limit) return ENOSPC;
  return write_all(fd_, bytes);
}

int TempFile::clear() {
  if (::ftruncate(fd_, 0) != 0) return errno;
  if (::lseek(fd_, 0, SEEK_SET) != 0) return errno;
  return 0;
}

Status TempFile::commit(const std::string& target, bool fsync) {
  (void)::fchmod(fd_, new_file_mode());
  int err = 0;
  if (fsync && ::fsync(fd_) != 0) err = errno;
  if (err == 0 && ::rename(path_.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) return {Errc::kIo, format("%s: cannot move the download into place: %s", target.c_str(), std::strerror(err))};
  committed_ = true;
  return {};
}

Status check_writable_directory(const std::string& dir) {
  // One component at a time, so the error names the part that could not be made and why
  // (std::filesystem::create_directories reports only the last step's error).
  std::string path;
  for (std::size_t at = 0; at <= dir.size();) {
    const std::size_t slash = dir.find('/', at + 1);
    path = dir.substr(0, slash == std::string::npos ? dir.size() : slash);
    at = slash == std::string::npos ? dir.size() + 1 : slash;
    if (path.empty() || path == "/") continue;
    if (::mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
      return {Errc::kIo, "cannot create directory " + path + ": " + std::strerror(errno)};
  }
  std::string probe = dir + "/.ilmap-probe-XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return {Errc::kIo, "cannot write in " + dir + ": " + std::strerror(errno)};
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

}  // namespace ilmap
