// Platform.cpp - support/Platform.h on Linux: the POSIX calls themselves, errno as they set it.
// The Windows side is win32/Platform.cpp.
#include "support/Platform.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>

#include "support/StatTime.h"

namespace ilmap::platform {

namespace {

std::int64_t nanoseconds(const struct timespec& t) noexcept {
  return std::int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

void fill(const struct stat& st, FileInfo& out) noexcept {
  out.type = S_ISREG(st.st_mode) ? FileType::kRegular
           : S_ISDIR(st.st_mode) ? FileType::kDirectory
           : S_ISLNK(st.st_mode) ? FileType::kSymlink
                                 : FileType::kOther;
  out.size = std::uint64_t(st.st_size);
  out.device = std::uint64_t(st.st_dev);
  out.inode = std::uint64_t(st.st_ino);
  out.mtime_ns = nanoseconds(stat_mtime(st));
  out.ctime_ns = nanoseconds(stat_ctime(st));
}

}  // namespace

int open_read(const std::string& path, unsigned flags) {
  int how = O_RDONLY | O_CLOEXEC;
  if (flags & kNoFollow) how |= O_NOFOLLOW;
  if (flags & kNonBlock) how |= O_NONBLOCK;
  const int fd = ::open(path.c_str(), how);
  if (fd >= 0 && (flags & kNonBlock)) {
    const int fl = ::fcntl(fd, F_GETFL);
    if (fl >= 0) (void)::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  }
  return fd;
}

int open_lock_file(const std::string& path, unsigned mode) { return ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, mode_t(mode)); }

long long read_some(int fd, void* dst, std::size_t n) {
  for (;;) {
    const ssize_t r = ::read(fd, dst, n);
    if (r < 0 && errno == EINTR) continue;
    return r;
  }
}

long long read_at(int fd, void* dst, std::size_t n, std::uint64_t offset) {
  for (;;) {
    const ssize_t r = ::pread(fd, dst, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    return r;
  }
}

int close_fd(int fd) { return ::close(fd); }
int sync_fd(int fd) { return ::fsync(fd); }

bool stat_path(const std::string& path, FileInfo& out, bool follow) {
  struct stat st {};
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) return false;
  fill(st, out);
  return true;
}

bool stat_fd(int fd, FileInfo& out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return false;
  fill(st, out);
  return true;
}

const void* map_read(int fd, std::size_t n, bool populate) {
  void* p = ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void unmap(const void* p, std::size_t n) {
  if (p) ::munmap(const_cast<void*>(p), n);
}

void release_pages(const void* p, std::size_t n) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + page - 1) / page * page;
  const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + n) / page * page;
  // A private mapping never written to: the pages go, and the file gives them again.
  if (p && e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
}

bool lock_file(int fd, bool wait) {
  for (;;) {
    if (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) == 0) return true;
    if (errno != EINTR) return false;
  }
}

int make_directory(const std::string& path) { return ::mkdir(path.c_str(), 0777); }
int rename_no_replace(const std::string& from, const std::string& to) {
  return ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE);
}

int truncate_file(const std::string& path, std::uint64_t size) { return ::truncate(path.c_str(), off_t(size)); }

int remove_file(const std::string& path) { return ::unlink(path.c_str()); }

std::optional<std::string> real_path(const std::string& path) {
  char* p = ::realpath(path.c_str(), nullptr);
  if (!p) return std::nullopt;
  std::string r(p);
  std::free(p);
  return r;
}

bool is_path_separator(char c) noexcept { return c == '/'; }

std::optional<std::string> make_temp_directory(const std::string& prefix) {
  std::string dir = prefix + "XXXXXX";
  if (!::mkdtemp(dir.data())) return std::nullopt;
  return dir;
}

std::filesystem::path fs_path(std::string_view utf8) { return std::filesystem::path(utf8); }
std::string fs_string(const std::filesystem::path& p) { return p.string(); }
std::string fs_generic_string(const std::filesystem::path& p) { return p.generic_string(); }

bool glob_match(const char* pattern, const char* text) noexcept { return ::fnmatch(pattern, text, 0) == 0; }

std::vector<std::string> utf8_arguments(int argc, char** argv) { return {argv, argv + argc}; }

std::optional<std::string> environment(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

bool is_terminal(int fd) noexcept { return ::isatty(fd) == 1; }

bool input_waiting(int fd) noexcept {
  struct pollfd p {fd, POLLIN, 0};
  for (;;) {
    const int n = ::poll(&p, 1, 0);
    if (n >= 0) return n > 0;
    if (errno != EINTR) return true;
  }
}

void utf8_console() noexcept {}

void handle_stop_signals(void (*handler)(int)) noexcept {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

std::size_t page_size() noexcept { return std::size_t(::sysconf(_SC_PAGESIZE)); }

void kill_self() noexcept {
  std::raise(SIGKILL);
  std::_Exit(137);
}

}  // namespace ilmap::platform
