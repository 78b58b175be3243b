/* cmake/glibc231-compat.c - the two glibc symbols newer than 2.31 that Debian 12's static
 * libstdc++.a references, defined for the glibc 2.31 floor build
 * (cmake/glibc231-toolchain.cmake; scripts/sysroot-bullseye.sh compiles this file
 * against the sysroot and the toolchain links the object into every program and shared library).
 *
 * Both are hidden: they satisfy libstdc++.a's references inside our own binary only, so
 * libilmap.so exports neither and never stands in for glibc's own where glibc has them.
 *
 * The third one the issue lists, _dl_find_object (glibc 2.35, from libgcc_eh's unwinder), has no
 * safe stand-in (libgcc treats "not found" as "no unwind tables", so every exception would
 * terminate); the toolchain links libgcc shared instead (-shared-libgcc), whose unwinder on
 * glibc 2.31 walks the loaded objects with dl_iterate_phdr. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
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
