// Socket.cpp - see Socket.h (POSIX sockets).
#include "support/Socket.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace ilmap {

bool send_final_answer(int fd, std::string_view bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    sent += std::size_t(n);
  }
  ::shutdown(fd, SHUT_WR);
  return sent > 0;
}

std::size_t drain_input(int fd, std::chrono::milliseconds limit, std::size_t max_bytes) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end = Clock::now() + limit;
  std::size_t dropped = 0;
  char buf[16384];
  while (dropped < max_bytes) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, int(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    dropped += std::size_t(n);
  }
  return dropped;
}

void shutdown_socket(int fd) { ::shutdown(fd, SHUT_RDWR); }

}  // namespace ilmap
