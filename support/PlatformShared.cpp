// PlatformShared.cpp - the calls of support/Platform.h made of its other calls alone, the same
// on Linux and Windows (Platform.cpp and win32/Platform.cpp give those).
#include <cerrno>

#include "support/Platform.h"

namespace ilmap::platform {

long long read_head(const std::string& path, void* dst, std::size_t n) {
  const int fd = open_read(path, kNonBlock);
  if (fd < 0) return -1;
  std::size_t got = 0;
  long long r = 0;
  while (got < n && (r = read_some(fd, static_cast<char*>(dst) + got, n - got)) > 0) got += std::size_t(r);
  const int err = errno;
  close_fd(fd);
  if (r < 0) return errno = err, -1;
  return static_cast<long long>(got);
}

}  // namespace ilmap::platform
