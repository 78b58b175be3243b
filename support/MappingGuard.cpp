// MappingGuard.cpp - the SIGBUS guard of include/ilmap/mapping_guard.h.
//
// The registry is a fixed array of slots (state, begin, end, changed), all atomics, so the
// handler can read it at any moment without locks or allocation. A slot is claimed by CAS on
// its state (free -> claiming), filled, then published (active); the handler only looks at
// active slots. mmap(MAP_FIXED) is a plain system call and safe to make from the handler.
//
// Read leases (GuardedRange::lease): a slot may also hold the descriptor of a leased file. The
// lease-break handler claims the slot (active -> breaking) so that its owner cannot unmap the
// range meanwhile, copies the mapping into anonymous memory and moves the copy over it
// (mremap MREMAP_FIXED: one atomic replacement of the pages; concurrent readers see the same
// bytes before and after), then releases the lease, which lets the writer go on. mmap, mremap,
// mprotect, memcpy, fstat and fcntl are all safe in a signal handler. The same work is done
// outside the handler, for every lease at once, when a host has replaced the handler
// (install_lease_handler_locked): the leases are handed back so that no writer waits on a
// notice only the host sees.
#include "ilmap/mapping_guard.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace ilmap {
namespace {

enum : int { kFree = 0, kClaiming = 1, kActive = 2, kBreaking = 3 };

struct Slot {
  std::atomic<int> state{kFree};
  std::atomic<std::uintptr_t> begin{0};  // 0: no range yet (a lease taken before mapping)
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> changed{false};
  std::atomic<int> lease_fd{-1};  // the leased descriptor while the lease is held
};

Slot g_slots[GuardedRange::kMaxRanges];
std::atomic<bool> g_installed{false};
std::uintptr_t g_page_size = 4096;
struct sigaction g_previous {};

// Hands a fault that is not ours to whoever had SIGBUS before.
void pass_on(int sig, siginfo_t* si, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
    g_previous.sa_sigaction(sig, si, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  // Default action: restore it; a hardware fault recurs when the instruction is retried and
  // kills the process as SIGBUS; a signal sent by kill() is raised again.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGBUS, &dfl, nullptr);
  if (si == nullptr || si->si_code <= 0) raise(SIGBUS);
}

void on_sigbus(int sig, siginfo_t* si, void* context) {
  const std::uintptr_t addr = si ? reinterpret_cast<std::uintptr_t>(si->si_addr) : 0;
  if (si && si->si_code > 0) {
    for (Slot& s : g_slots) {
      // kBreaking: the lease-break handler is copying this range (a lease broken by force
      // after the kernel's lease-break-time, the file already truncated).
      const int state = s.state.load(std::memory_order_acquire);
      if (state != kActive && state != kBreaking) continue;
      const std::uintptr_t b = s.begin.load(std::memory_order_relaxed);
      const std::uintptr_t e = s.end.load(std::memory_order_relaxed);
      if (addr < b || addr >= e) continue;
      void* page = reinterpret_cast<void*>(addr & ~(g_page_size - 1));
      void* p = mmap(page, g_page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (p == MAP_FAILED) break;
      s.changed.store(true, std::memory_order_release);
      return;
    }
  }
  pass_on(sig, si, context);
}

// Replaces the slot's mapping by a private copy of its bytes (the lease still blocks the
// writer, so they are the bytes the owner has been reading). `notified`: called by the
// lease-break notice, while the writer waits; otherwise (a handover to the host, whose handler
// may have let the kernel break the lease by force) only a lease with no break begun still
// vouches for the bytes (F_GETLEASE says F_UNLCK once a break has begun, forced or not).
// Without a copy, the slot is marked changed and zeros are mapped over the range, so that no
// read faults (a file already shorter than the mapping) or sees a writer's bytes; the owner
// then reports "changed" instead of answers.
void detach(Slot& s, int fd, bool notified) {
  const std::uintptr_t b = s.begin.load(std::memory_order_acquire);
  const std::uintptr_t e = s.end.load(std::memory_order_relaxed);
  if (b == 0 || e <= b) {  // leased but not mapped yet: the open in progress fails
    s.changed.store(true, std::memory_order_release);
    return;
  }
  const std::size_t size = e - b;
  struct stat st {};
  const bool intact = (notified || fcntl(fd, F_GETLEASE) == F_RDLCK) && fstat(fd, &st) == 0 &&
                      static_cast<std::uint64_t>(st.st_size) >= size;
  if (intact) {
    void* copy = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy != MAP_FAILED) {
      std::memcpy(copy, reinterpret_cast<const void*>(b), size);
      (void)mprotect(copy, size, PROT_READ);
      if (mremap(copy, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, reinterpret_cast<void*>(b)) != MAP_FAILED) return;
      munmap(copy, size);
    }
  }
  // The flag first: a reader that sees a zero afterwards finds it set when it checks.
  s.changed.store(true, std::memory_order_seq_cst);
  (void)mmap(reinterpret_cast<void*>(b), size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

struct sigaction g_lease_previous {};
std::atomic<bool> g_lease_installed{false};

// Detaches a leased slot and releases its lease: the lease-break handler's work, also done
// outside it when ilmap hands the signal over to the host (release_all_leases). False when the
// slot is not active (its owner is unregistering and releases the lease itself, or a handler
// on another thread is breaking it).
bool break_lease(Slot& s, int fd, bool notified) {
  int expected = kActive;
  if (!s.state.compare_exchange_strong(expected, kBreaking, std::memory_order_acq_rel)) return false;
  if (s.lease_fd.load(std::memory_order_acquire) == fd) {
    detach(s, fd, notified);
    (void)fcntl(fd, F_SETLEASE, F_UNLCK);
    s.lease_fd.store(-1, std::memory_order_release);
  }
  s.state.store(kActive, std::memory_order_release);
  return true;
}

void on_lease_break(int sig, siginfo_t* si, void* context) {
  const int saved_errno = errno;
  // POLL_MSG: the kernel's lease-break notice (kill() and sigqueue() give si_code <= 0).
  if (si && si->si_code == POLL_MSG) {
    const int fd = si->si_fd;
    for (Slot& s : g_slots) {
      if (s.lease_fd.load(std::memory_order_acquire) != fd) continue;
      (void)break_lease(s, fd, true);
      break;
    }
    // No slot: a notice queued for a lease released since (its cache was closed).
    errno = saved_errno;
    return;
  }
  if ((g_lease_previous.sa_flags & SA_SIGINFO) && g_lease_previous.sa_sigaction)
    g_lease_previous.sa_sigaction(sig, si, context);
  else if (g_lease_previous.sa_handler != SIG_DFL && g_lease_previous.sa_handler != SIG_IGN)
    g_lease_previous.sa_handler(sig);
  errno = saved_errno;
}

// Every lease held: each range becomes a private copy of its bytes, then the lease goes. A
// range still being set up (leased, not yet mapped) is flagged changed and its open fails.
void release_all_leases() noexcept {
  for (Slot& s : g_slots) {
    const int fd = s.lease_fd.load(std::memory_order_acquire);
    if (fd < 0) continue;
    // A handler on another thread may hold the slot for a moment: wait for it, as reset() does.
    while (s.lease_fd.load(std::memory_order_acquire) == fd && !break_lease(s, fd, false)) {
      if (s.state.load(std::memory_order_acquire) == kFree) break;  // unregistered meanwhile
      sched_yield();
    }
  }
}

std::mutex g_install_mutex;

bool is_ours(const struct sigaction& sa) {
  return (sa.sa_flags & SA_SIGINFO) && sa.sa_sigaction == on_lease_break;
}

// Installs on_lease_break for the lease signal unless the host uses that signal already.
// Called with g_install_mutex held. Once installed, each call checks that the handler is still
// ours (one sigaction call per mapped open): a host that installed its own since then gets the
// signal to itself. Every lease is released (the caches keep answering from private copies) and
// no more are taken, since their breaks would reach the host's handler, not ours, and a writer
// would wait the kernel's lease-break-time, then change the bytes under the mapping.
bool install_lease_handler_locked() noexcept {
  const int sig = mapping_lease_signal();
  struct sigaction current {};
  if (sigaction(sig, nullptr, &current) != 0) return false;
  if (g_lease_installed.load()) {
    if (is_ours(current)) return true;
    release_all_leases();
    g_lease_installed.store(false);
    return false;
  }
  if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler != SIG_DFL) return false;
  if ((current.sa_flags & SA_SIGINFO) && !is_ours(current)) return false;
  struct sigaction sa {};
  sa.sa_sigaction = on_lease_break;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (sigaction(sig, &sa, &g_lease_previous) != 0) return false;
  g_lease_installed.store(true);
  return true;
}

}  // namespace

int mapping_lease_signal() noexcept { return SIGRTMIN + 6; }

bool install_mapping_guard() noexcept {
  std::lock_guard<std::mutex> lock(g_install_mutex);
  if (g_installed.load()) return true;
  const long ps = sysconf(_SC_PAGESIZE);
  if (ps > 0) g_page_size = static_cast<std::uintptr_t>(ps);
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGBUS, &sa, &g_previous) != 0) return false;
  g_installed.store(true);
  return true;
}

bool mapping_guard_installed() noexcept { return g_installed.load(); }

GuardedRange::GuardedRange(const void* begin, std::size_t size) noexcept {
  for (int i = 0; i < kMaxRanges; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kClaiming, std::memory_order_acq_rel)) continue;
    const auto b = reinterpret_cast<std::uintptr_t>(begin);
    g_slots[i].begin.store(b, std::memory_order_relaxed);
    g_slots[i].end.store(b + size, std::memory_order_relaxed);
    g_slots[i].changed.store(false, std::memory_order_relaxed);
    g_slots[i].state.store(kActive, std::memory_order_release);
    slot_ = i;
    changed_ = &g_slots[i].changed;
    return;
  }
}

GuardedRange GuardedRange::lease(int fd) noexcept {
  GuardedRange r;
  if (fd < 0) return r;
  // Under the mutex: a lease is never taken while another open hands the signal to the host.
  std::lock_guard<std::mutex> lock(g_install_mutex);
  if (!install_lease_handler_locked()) return r;
  r = GuardedRange(nullptr, 0);  // a slot with no range yet
  if (!r.valid()) return r;
  Slot& s = g_slots[r.slot_];
  // The descriptor is published before the lease exists, so a break at any moment finds it.
  s.lease_fd.store(fd, std::memory_order_release);
  if (fcntl(fd, F_SETSIG, mapping_lease_signal()) != 0 || fcntl(fd, F_SETLEASE, F_RDLCK) != 0) {
    s.lease_fd.store(-1, std::memory_order_release);
    r.reset();
  }
  return r;
}

void GuardedRange::set_range(const void* begin, std::size_t size) noexcept {
  if (slot_ < 0) return;
  Slot& s = g_slots[slot_];
  const auto b = reinterpret_cast<std::uintptr_t>(begin);
  // `end` before `begin`: a handler that sees the begin sees the end too.
  s.end.store(b + size, std::memory_order_relaxed);
  s.begin.store(b, std::memory_order_release);
}

// Moves and the destructor: MappingGuardShared.cpp.

void GuardedRange::reset() noexcept {
  if (slot_ < 0) return;
  Slot& s = g_slots[slot_];
  // Wait out a lease-break handler running on another thread (it may be copying the range).
  for (;;) {
    int expected = kActive;
    if (s.state.compare_exchange_weak(expected, kClaiming, std::memory_order_acq_rel)) break;
    sched_yield();
  }
  const int fd = s.lease_fd.exchange(-1, std::memory_order_acq_rel);
  if (fd >= 0) (void)fcntl(fd, F_SETLEASE, F_UNLCK);
  s.begin.store(0, std::memory_order_relaxed);
  s.end.store(0, std::memory_order_relaxed);
  s.state.store(kFree, std::memory_order_release);
  slot_ = -1;
  changed_ = nullptr;
}

}  // namespace ilmap
