// MappingGuard.cpp - the SIGBUS guard of include/ilmap/mapping_guard.h.
//
// The registry is a fixed array of slots (state, begin, end, changed), all atomics, so the
// handler can read it at any moment without locks or allocation. A slot is claimed by CAS on
// its state (free -> claiming), filled, then published (active); the handler only looks at
// active slots. mmap(MAP_FIXED) is a plain system call and safe to make from the handler.
#include "ilmap/mapping_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace ilmap {
namespace {

enum : int { kFree = 0, kClaiming = 1, kActive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> changed{false};
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
      if (s.state.load(std::memory_order_acquire) != kActive) continue;
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

std::mutex g_install_mutex;

}  // namespace

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
    return;
  }
}

GuardedRange::GuardedRange(GuardedRange&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }

GuardedRange& GuardedRange::operator=(GuardedRange&& o) noexcept {
  if (this != &o) {
    reset();
    slot_ = o.slot_;
    o.slot_ = -1;
  }
  return *this;
}

GuardedRange::~GuardedRange() { reset(); }

bool GuardedRange::changed() const noexcept {
  return slot_ >= 0 && g_slots[slot_].changed.load(std::memory_order_acquire);
}

void GuardedRange::reset() noexcept {
  if (slot_ < 0) return;
  Slot& s = g_slots[slot_];
  s.state.store(kClaiming, std::memory_order_release);
  s.begin.store(0, std::memory_order_relaxed);
  s.end.store(0, std::memory_order_relaxed);
  s.state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

}  // namespace ilmap
