// ilmap/mapping_guard.h - survive a mapped file that shrinks or is rewritten while in use.
//
// A read from a mapped page past the end of a file that was truncated in place (truncate,
// `cp` over it, `rsync --inplace`) raises SIGBUS, which kills the process. The guard is an
// opt-in, process-wide SIGBUS handler: when the faulting address lies inside a mapping that
// ilmap registered (a Cache or a compiler input), it maps an anonymous zero page over the
// faulting page (MAP_FIXED), marks that mapping "changed" and returns, so the read goes on and
// sees zeros. Every read of ilmap's is bounds-checked, so zeros give no answer or a decode
// error, never a wild read; the owner then asks `changed()` and reports "changed while in use"
// instead of the answer. A SIGBUS anywhere else goes to the handler installed before (or the
// default action: the process dies by SIGBUS as it would have). No longjmp, no allocation in
// the handler: the registry is a fixed array of atomics.
//
// Without the guard (a host that installs none, or handles SIGBUS itself), mappings behave as
// before; such hosts can open caches with CacheOpenOptions::read_into_memory instead.
#pragma once

#include <cstddef>

namespace ilmap {

// Installs the handler (idempotent, thread-safe). Returns false if sigaction failed.
bool install_mapping_guard() noexcept;
bool mapping_guard_installed() noexcept;

// One registered mapping (move-only RAII). `begin`..`begin + size` must be a page-aligned
// mapping start. Registration can fail when the registry is full (valid() is then false and
// the mapping is unguarded: callers that need the guard read the file instead).
class GuardedRange {
 public:
  GuardedRange() = default;
  GuardedRange(const void* begin, std::size_t size) noexcept;
  GuardedRange(GuardedRange&& o) noexcept;
  GuardedRange& operator=(GuardedRange&& o) noexcept;
  GuardedRange(const GuardedRange&) = delete;
  GuardedRange& operator=(const GuardedRange&) = delete;
  ~GuardedRange();

  bool valid() const noexcept { return slot_ >= 0; }
  // True once the guard replaced a page of this range (the file shrank under it).
  bool changed() const noexcept;
  // Unregisters (before the owner unmaps the range).
  void reset() noexcept;

  static constexpr int kMaxRanges = 1024;

 private:
  int slot_ = -1;
};

}  // namespace ilmap
