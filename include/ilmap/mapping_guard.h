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
//
// The SIGBUS guard alone cannot see a file truncated inside its last mapped page (the tail of
// that page reads as zeros, no fault) or rewritten in place (the mapping shows the new bytes):
// hence read leases. GuardedRange::lease takes a Linux read lease (fcntl F_SETLEASE F_RDLCK,
// F_SETSIG mapping_lease_signal()) on the file a Cache maps. Any open of the file for writing
// and any truncate(2) then waits in the kernel until the lease holder releases the lease; the
// lease-break handler first replaces the mapping with a private copy of its bytes, so the Cache
// keeps answering from the bytes it opened, then releases the lease. When that copy cannot be
// made (no memory), the range is marked changed() before the writer can go on; lookups check
// changed() after their reads, so none returns what a writer wrote. The lease handler is
// installed on first use, only when the signal's disposition is the default one (a host that
// uses mapping_lease_signal() itself gets no leases: Cache::open then reads the file into
// memory). A host that installs its own handler for the signal after a Cache was mapped must
// pass the kernel's notices (si_code POLL_MSG) on to the handler it replaced; if it does not,
// the next mapped open sees the handler is no longer ilmap's, releases every lease (each range
// becomes a private copy, or zeros and changed() when a break had already begun) and takes
// none from then on. A thread that blocks the signal does not stop other threads from taking it; a
// process that blocks it in every thread makes writers wait for the kernel's lease-break-time
// (/proc/sys/fs/lease-break-time, 45 s by default), after which the kernel breaks the lease
// by force and the guarantee is lost.
#pragma once

#include <atomic>
#include <cstddef>

namespace ilmap {

// Installs the handler (idempotent, thread-safe). Returns false if sigaction failed.
bool install_mapping_guard() noexcept;
bool mapping_guard_installed() noexcept;

// The real-time signal that lease breaks are delivered with (SIGRTMIN + 6).
int mapping_lease_signal() noexcept;

// One registered mapping (move-only RAII). `begin`..`begin + size` must be a page-aligned
// mapping start. Registration can fail when the registry is full (valid() is then false and
// the mapping is unguarded: callers that need the guard read the file instead).
class GuardedRange {
 public:
  GuardedRange() = default;
  GuardedRange(const void* begin, std::size_t size) noexcept;
  // Registers `fd` (an open, read-only descriptor of a regular file, which must stay open while
  // the range is valid) with no range yet and takes a read lease on it. Invalid when no lease
  // can be taken: the file is open for writing somewhere (EAGAIN), the caller neither owns it
  // nor has CAP_LEASE (EACCES), its file system has no leases (NFS, FUSE: EINVAL), the lease
  // signal is the host's, or the registry is full.
  static GuardedRange lease(int fd) noexcept;
  // Sets the range of a leased slot (the file's mapping, once made).
  void set_range(const void* begin, std::size_t size) noexcept;
  GuardedRange(GuardedRange&& o) noexcept;
  GuardedRange& operator=(GuardedRange&& o) noexcept;
  GuardedRange(const GuardedRange&) = delete;
  GuardedRange& operator=(const GuardedRange&) = delete;
  ~GuardedRange();

  bool valid() const noexcept { return slot_ >= 0; }
  // True once the guard replaced a page of this range (the file shrank under it), or a lease
  // break could not copy the range (or came before it was set). Sequentially consistent with
  // the reads before it: a reader that reads the range, then finds changed() false, read no
  // byte that a writer blocked by the lease wrote.
  // Inline: every lookup calls it. The fence orders the caller's earlier reads of the range
  // before the flag's load (the re-check of a seqlock): if they saw a writer's byte, the flag,
  // set before the lease was released, is seen too.
  bool changed() const noexcept {
    std::atomic_thread_fence(std::memory_order_acquire);
    return changed_ && changed_->load(std::memory_order_acquire);
  }
  // Unregisters and releases the lease (before the owner unmaps the range and closes `fd`).
  void reset() noexcept;

  static constexpr int kMaxRanges = 1024;

 private:
  int slot_ = -1;
  const std::atomic<bool>* changed_ = nullptr;  // the slot's flag while slot_ >= 0
};

}  // namespace ilmap
