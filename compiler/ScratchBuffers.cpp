// ScratchBuffers.cpp - the per-thread pool of large build buffers (see ScratchBuffers.h).
//
// Memory only: no byte of a cache depends on it (SPEC.md section 8).
#include "compiler/ScratchBuffers.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ilmap {
namespace {

// Blocks larger than this are freed rather than kept for the next build.
constexpr std::size_t kKeepScratch = std::size_t(64) << 20;

// Large buffers are filled once, front to back: transparent huge pages (where the kernel offers
// them on request, "madvise" mode) turn 512 page faults per 2 MiB into one. Only advice: it
// changes no result, and kernels without THP ignore it.
constexpr std::size_t kHugePageAdviceMin = std::size_t(4) << 20;
void advise_huge_pages(void* p, std::size_t n) {
#if defined(MADV_HUGEPAGE)
  if (n < kHugePageAdviceMin) return;
  constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
  const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(kHuge - 1);
  if (e > b) (void)::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

}  // namespace

ScratchPool::~ScratchPool() {
  for (ScratchBlock& b : spare_) std::free(b.p);
}

ScratchBlock ScratchPool::take(std::size_t n) {
  for (ScratchBlock& b : spare_) {
    if (b.p && b.size >= n) {
      ScratchBlock r = b;
      b = {};
      return r;
    }
  }
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  advise_huge_pages(p, n);
  return {static_cast<std::uint8_t*>(p), n};
}

void ScratchPool::give(ScratchBlock b) {
  if (!b.p) return;
  if (b.size <= kKeepScratch) {
    for (ScratchBlock& s : spare_) {
      if (!s.p) {
        s = b;
        return;
      }
    }
    // Keep the larger ones.
    ScratchBlock& small = spare_[0].size < spare_[1].size ? spare_[0] : spare_[1];
    if (small.size < b.size) std::swap(small, b);
  }
  std::free(b.p);
}

ScratchPool& scratch_pool() {
  thread_local ScratchPool pool;
  return pool;
}

std::uint8_t* ScratchAllocator::allocate(std::size_t size) {
  ScratchBlock b = scratch_pool().take(size);
  sizes_.push_back({b.p, b.size});
  return b.p;
}

void ScratchAllocator::deallocate(std::uint8_t* p, std::size_t) {
  for (auto it = sizes_.begin(); it != sizes_.end(); ++it) {
    if (it->first == p) {
      scratch_pool().give({p, it->second});
      sizes_.erase(it);
      return;
    }
  }
}

void ByteBuffer::grow(std::size_t n) {
  const std::size_t cap = std::max<std::size_t>({cap_ * 2, size_ + n, 4096});
  ScratchBlock b = scratch_pool().take(cap);
  if (size_) std::memcpy(b.p, data_, size_);
  scratch_pool().give({data_, cap_});
  data_ = b.p;
  cap_ = b.size;
}

}  // namespace ilmap
