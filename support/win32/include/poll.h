// poll.h for win-x64 (support/win32/include/posix_compat.h): waiting on pipes and consoles is
// not what Windows' poll (WSAPoll, sockets only) does; this poll reports every descriptor ready
// to read at once, so callers fall through to their blocking read.
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
#define POLLIN 1
#define POLLOUT 4
#define POLLERR 8
#define POLLHUP 16
struct pollfd { int fd; short events; short revents; };
typedef unsigned long nfds_t;
static inline int poll(struct pollfd* fds, nfds_t n, int timeout) {
  (void)timeout;
  for (nfds_t i = 0; i < n; ++i) fds[i].revents = (short)(fds[i].events & POLLIN);
  return (int)n;
}
#ifdef __cplusplus
}
#endif
