/* cmake/glibc231-compat.c - the glibc symbols newer than 2.28 that Debian 12's static
 * libstdc++.a and its headers reference, defined for the released builds (glibc 2.31 sysroot;
 * the binaries then need 2.28)
 * (cmake/glibc231-toolchain.cmake; scripts/sysroot-bullseye.sh compiles this file
 * against the sysroot and the toolchain links the object into every program and shared library).
 *
 * All are hidden: they satisfy libstdc++.a's references inside our own binary only, so
 * libilmap.so exports none of them and never stands in for glibc's own in another program.
 * tests/dist/compat_test.c checks what each does.
 *
 * _dl_find_object (glibc 2.35, from libgcc_eh's unwinder) has no
 * safe stand-in (libgcc treats "not found" as "no unwind tables", so every exception would
 * terminate); the toolchain links libgcc shared instead (-shared-libgcc), whose unwinder on
 * glibc 2.31 walks the loaded objects with dl_iterate_phdr. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define ILMAP_HIDDEN __attribute__((visibility("hidden")))

/* glibc 2.32: nonzero while the process has only one thread, letting libstdc++ use plain
 * instead of atomic reference counts. Always 0 here: "maybe several threads" is always true
 * enough to be correct, and costs only the atomic operations glibc < 2.32 users had anyway. */
ILMAP_HIDDEN char __libc_single_threaded = 0;

/* glibc 2.36: libstdc++ uses it as std::random_device's default source. 4 bytes from the
 * kernel's getrandom (glibc 2.25); if the kernel has no getrandom (before Linux 3.17), from
 * /dev/urandom. arc4random cannot report failure, so if neither works the process aborts
 * rather than return predictable numbers. */
ILMAP_HIDDEN uint32_t arc4random(void);
uint32_t arc4random(void) {
  uint32_t value;
  unsigned char *out = (unsigned char *)&value;
  size_t have = 0;
  while (have < sizeof value) {
    ssize_t n = getrandom(out + have, sizeof value - have, 0);
    if (n > 0) {
      have += (size_t)n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  if (have == sizeof value) return value;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) abort();
  have = 0;
  while (have < sizeof value) {
    ssize_t n = read(fd, out + have, sizeof value - have);
    if (n > 0) {
      have += (size_t)n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      abort();
    }
  }
  close(fd);
  return value;
}

/* glibc 2.30: libstdc++'s headers call it for std::condition_variable::wait_for and wait_until
 * on the steady clock (serve's drain and watcher loops, the progress ticks of fetch and store),
 * so the program would need 2.30 for it alone; with this definition it needs 2.28 (RHEL 8).
 * A wait until a CLOCK_MONOTONIC deadline becomes a wait until the CLOCK_REALTIME time that is
 * as far away now. If the wall clock jumps during the wait, it ends early or late; libstdc++
 * reads the steady clock again after every return and waits again when the deadline has not
 * passed, so an early end is a spurious wakeup, which its callers already expect, and a late one
 * is late by the jump, as with glibc's own pthread_cond_timedwait. */
ILMAP_HIDDEN int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                                        const struct timespec *deadline);
int pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *mutex, clockid_t clock,
                           const struct timespec *deadline) {
  if (clock == CLOCK_REALTIME) return pthread_cond_timedwait(cond, mutex, deadline);
  if (clock != CLOCK_MONOTONIC) return EINVAL;
  struct timespec mono, real;
  if (clock_gettime(CLOCK_MONOTONIC, &mono) != 0 || clock_gettime(CLOCK_REALTIME, &real) != 0) return EINVAL;
  long long left_ns = (long long)(deadline->tv_sec - mono.tv_sec) * 1000000000LL + (deadline->tv_nsec - mono.tv_nsec);
  if (left_ns <= 0) return ETIMEDOUT;
  long long end_ns = (long long)real.tv_nsec + left_ns % 1000000000LL;
  struct timespec until;
  until.tv_sec = real.tv_sec + (time_t)(left_ns / 1000000000LL) + (time_t)(end_ns / 1000000000LL);
  until.tv_nsec = (long)(end_ns % 1000000000LL);
  return pthread_cond_timedwait(cond, mutex, &until);
}
