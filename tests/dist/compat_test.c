/* compat_test.c - what cmake/glibc231-compat.c's definitions do, linked into this program as into
 * the released binaries (its hidden definitions take the place of glibc's here too):
 *   pthread_cond_clockwait  a CLOCK_MONOTONIC deadline that passes unsignalled gives ETIMEDOUT,
 *                           and not before the deadline; one already past gives ETIMEDOUT at
 *                           once; a signal before the deadline gives 0 well before it; a
 *                           CLOCK_REALTIME deadline works; another clock is EINVAL
 *   arc4random              not the same value 64 times in a row
 *   __libc_single_threaded  0 ("maybe several threads": always correct)
 * Exit 0 pass, 1 fail (each failure printed). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int pthread_cond_clockwait(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
uint32_t arc4random(void);
extern char __libc_single_threaded;

static int fails;
static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) fails++;
}
static long long now_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
static struct timespec at_ns(long long ns) {
  struct timespec t = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
  return t;
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int signalled;
static void *signal_later(void *arg) {
  (void)arg;
  usleep(20000);
  pthread_mutex_lock(&mutex);
  signalled = 1;
  pthread_cond_signal(&cond);
  pthread_mutex_unlock(&mutex);
  return NULL;
}

int main(void) {
  pthread_mutex_lock(&mutex);
  long long deadline = now_ns(CLOCK_MONOTONIC) + 50000000LL;  /* 50 ms */
  struct timespec until = at_ns(deadline);
  int rc;
  do {  /* a spurious wakeup may end a wait early; the caller waits again, as libstdc++ does */
    rc = pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &until);
  } while (rc == 0 && now_ns(CLOCK_MONOTONIC) < deadline);
  check(rc == ETIMEDOUT, "an unsignalled monotonic wait ends with ETIMEDOUT");
  check(now_ns(CLOCK_MONOTONIC) >= deadline, "and not before its deadline");

  struct timespec past = at_ns(now_ns(CLOCK_MONOTONIC) - 1000000LL);
  long long before = now_ns(CLOCK_MONOTONIC);
  check(pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &past) == ETIMEDOUT,
        "a deadline already past gives ETIMEDOUT");
  check(now_ns(CLOCK_MONOTONIC) - before < 1000000000LL, "at once");

  pthread_t thread;
  pthread_create(&thread, NULL, signal_later, NULL);
  deadline = now_ns(CLOCK_MONOTONIC) + 10000000000LL;  /* 10 s */
  until = at_ns(deadline);
  rc = 0;
  while (!signalled && rc == 0) rc = pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &until);
  check(rc == 0 && signalled, "a signal before the deadline ends the wait with 0");
  check(now_ns(CLOCK_MONOTONIC) < deadline - 5000000000LL, "well before the deadline");
  pthread_mutex_unlock(&mutex);
  pthread_join(thread, NULL);

  pthread_mutex_lock(&mutex);
  struct timespec real = at_ns(now_ns(CLOCK_REALTIME) + 10000000LL);
  do {
    rc = pthread_cond_clockwait(&cond, &mutex, CLOCK_REALTIME, &real);
  } while (rc == 0);
  check(rc == ETIMEDOUT, "a realtime deadline ends with ETIMEDOUT");
  check(pthread_cond_clockwait(&cond, &mutex, CLOCK_PROCESS_CPUTIME_ID, &real) == EINVAL, "another clock is EINVAL");
  pthread_mutex_unlock(&mutex);

  uint32_t first = arc4random();
  int differs = 0;
  for (int i = 0; i < 64; i++) differs |= arc4random() != first;
  check(differs, "arc4random gives more than one value");
  check(__libc_single_threaded == 0, "__libc_single_threaded is 0");
  return fails == 0 ? 0 : 1;
}
