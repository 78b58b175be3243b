// AtomicFile.cpp - temp file + (fsync) + rename(2).
//
// Fault injection for tests: when the environment variable ILMAP_FAIL_WRITE_AFTER=N is set,
// writes fail with ENOSPC after N bytes, as a full disk would.
#include "AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ilmap {
namespace {

std::size_t fault_limit() {
  const char* v = std::getenv("ILMAP_FAIL_WRITE_AFTER");
  if (!v || !*v) return SIZE_MAX;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return (end && *end == 0) ? static_cast<std::size_t>(n) : SIZE_MAX;
}

}  // namespace

Status write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes, bool fsync) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return {Errc::kIo, format("%s: is a directory", path.c_str())};
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return {Errc::kIo, format("%s: cannot create a temporary file beside it: %s", path.c_str(), std::strerror(errno))};
  ::fchmod(fd, 0644);
  const std::size_t limit = fault_limit();
  std::size_t done = 0;
  int err = 0;
  while (done < bytes.size()) {
    std::size_t chunk = std::min<std::size_t>(bytes.size() - done, 1u << 20);
    if (done + chunk > limit) {
      if (done >= limit) {
        err = ENOSPC;
        break;
      }
      chunk = limit - done;
    }
    const ssize_t n = ::write(fd, bytes.data() + done, chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (err == 0 && fsync && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return {Errc::kIo, format("%s: write failed: %s (existing file left unchanged)", path.c_str(), std::strerror(err))};
  }
  return {};
}

}  // namespace ilmap
