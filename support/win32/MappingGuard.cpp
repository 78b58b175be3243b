// MappingGuard.cpp (win-x64) - include/ilmap/mapping_guard.h on Windows: a vectored exception
// handler over the registered ranges.
//
// On Linux a file truncated while mapped faults as SIGBUS. On Windows a mapped file cannot be
// truncated by another Windows process (SetEndOfFile fails with ERROR_USER_MAPPED_FILE), but a
// page that cannot be read in raises EXCEPTION_IN_PAGE_ERROR: a network drive whose server went
// away, a removable disk pulled out, a read error. Wine raises EXCEPTION_ACCESS_VIOLATION (a
// read) for a file shortened by a Linux process under it. For either fault at an address inside
// a registered range, the handler replaces the whole view by zeroed read-only memory at the same
// address (UnmapViewOfFile, then VirtualAlloc there: a view starts on the 64 KiB allocation
// granularity, which VirtualAlloc needs), marks the range changed and lets the read run again.
// Every read of ilmap's is bounds-checked, so zeros give a decode error or no answer; the owner
// then reports "changed while in use" (FileBytes::check), as on Linux.
//
// Unlike mmap(MAP_FIXED), the replacement is two calls: a thread that reads the range between
// them faults too (an access violation); the handler sees the slot being replaced and waits for
// it, then retries the read. If the address was taken in between (another thread's allocation),
// the fault goes on to the next handler: the process ends as it would have without the guard.
// No leases on Windows: the reader reads caches into memory (docs/library.md), so only the
// compiler's inputs (support/FileBytes.cpp) are mapped and registered.
#include "ilmap/mapping_guard.h"

#include <windows.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace ilmap {
namespace {

enum : int { kFree = 0, kClaiming = 1, kActive = 2, kReplacing = 3 };

struct Slot {
  std::atomic<int> state{kFree};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> changed{false};
  std::atomic<bool> zeroed{false};  // the view was replaced: a fault there now is not a file's
};

Slot g_slots[GuardedRange::kMaxRanges];
std::atomic<bool> g_installed{false};
std::mutex g_install_mutex;

// A fault the guard may answer: a page that could not be read in, or a read (not a write or an
// execution) that found no page. ExceptionInformation[0] is 0 for a read, [1] the address.
bool guarded_fault(const EXCEPTION_RECORD& r, std::uintptr_t& addr) {
  if (r.NumberParameters < 2) return false;
  if (r.ExceptionCode != EXCEPTION_IN_PAGE_ERROR &&
      !(r.ExceptionCode == EXCEPTION_ACCESS_VIOLATION && r.ExceptionInformation[0] == 0))
    return false;
  addr = static_cast<std::uintptr_t>(r.ExceptionInformation[1]);
  return true;
}

// Zeroed read-only memory in place of the view at [b, e). False when the address was taken.
bool replace_with_zeros(std::uintptr_t b, std::uintptr_t e) {
  void* at = reinterpret_cast<void*>(b);
  if (!UnmapViewOfFile(at)) return false;
  return VirtualAlloc(at, e - b, MEM_RESERVE | MEM_COMMIT, PAGE_READONLY) == at;
}

LONG CALLBACK on_exception(EXCEPTION_POINTERS* info) {
  std::uintptr_t addr = 0;
  if (!info || !info->ExceptionRecord || !guarded_fault(*info->ExceptionRecord, addr)) return EXCEPTION_CONTINUE_SEARCH;
  for (Slot& s : g_slots) {
    int state = s.state.load(std::memory_order_acquire);
    if (state != kActive && state != kReplacing) continue;
    const std::uintptr_t b = s.begin.load(std::memory_order_relaxed);
    const std::uintptr_t e = s.end.load(std::memory_order_relaxed);
    if (addr < b || addr >= e) continue;
    if (state == kActive && s.zeroed.load(std::memory_order_acquire)) return EXCEPTION_CONTINUE_SEARCH;
    if (state == kActive && s.state.compare_exchange_strong(state, kReplacing, std::memory_order_acq_rel)) {
      // The flag first: a reader that sees a zero afterwards finds it set when it checks.
      s.changed.store(true, std::memory_order_seq_cst);
      const bool ok = replace_with_zeros(b, e);
      s.zeroed.store(ok, std::memory_order_release);
      s.state.store(kActive, std::memory_order_release);
      return ok ? EXCEPTION_CONTINUE_EXECUTION : EXCEPTION_CONTINUE_SEARCH;
    }
    // Another thread is replacing this range: wait, then read again.
    while (s.state.load(std::memory_order_acquire) == kReplacing) SwitchToThread();
    return s.zeroed.load(std::memory_order_acquire) ? EXCEPTION_CONTINUE_EXECUTION : EXCEPTION_CONTINUE_SEARCH;
  }
  return EXCEPTION_CONTINUE_SEARCH;
}

}  // namespace

// No lease signal on Windows (leases are a Linux feature).
int mapping_lease_signal() noexcept { return 0; }

bool install_mapping_guard() noexcept {
  std::lock_guard<std::mutex> lock(g_install_mutex);
  if (g_installed.load()) return true;
  // First in the chain: a host's own handler still sees every fault outside ilmap's ranges.
  if (!AddVectoredExceptionHandler(1, on_exception)) return false;
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
    g_slots[i].zeroed.store(false, std::memory_order_relaxed);
    g_slots[i].state.store(kActive, std::memory_order_release);
    slot_ = i;
    changed_ = &g_slots[i].changed;
    return;
  }
}

// Windows has no read leases: never valid (Cache::open reads the file, docs/library.md).
GuardedRange GuardedRange::lease(int) noexcept { return {}; }
void GuardedRange::set_range(const void*, std::size_t) noexcept {}

// Moves and the destructor: MappingGuardShared.cpp.

void GuardedRange::reset() noexcept {
  if (slot_ < 0) return;
  Slot& s = g_slots[slot_];
  // Wait out a handler on another thread that is replacing the range.
  for (;;) {
    int expected = kActive;
    if (s.state.compare_exchange_weak(expected, kClaiming, std::memory_order_acq_rel)) break;
    SwitchToThread();
  }
  s.begin.store(0, std::memory_order_relaxed);
  s.end.store(0, std::memory_order_relaxed);
  s.state.store(kFree, std::memory_order_release);
  slot_ = -1;
  changed_ = nullptr;
}

}  // namespace ilmap
