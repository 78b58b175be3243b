// ScratchBuffers.cpp - the per-thread pool of large build buffers (see ScratchBuffers.h).
//
// Memory only: no byte of a cache depends on it (SPEC.md section 8).
#include "compiler/ScratchBuffers.h"

#include "support/HugePages.h"
#include "support/ThreadLocal.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define ILMAP_SCRATCH_MALLOC_ONLY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ILMAP_SCRATCH_MALLOC_ONLY 1
#endif
#endif

namespace ilmap {

namespace {

// The pool's bound on the spare blocks of one thread, in bytes.
constexpr std::size_t kKeepTotal = std::size_t(64) << 20;

void free_block(ScratchBlock b) {
  if (!b.p) return;
  if (b.size < kScratchMapMin) {
    std::free(b.p);
  } else {
    unmap_huge(b.p, b.size);
  }
}

}  // namespace

#if defined(ILMAP_SCRATCH_MALLOC_ONLY)
const std::size_t kScratchMapMin = SIZE_MAX;
#else
const std::size_t kScratchMapMin = kHugeMappingMin;
#endif

std::size_t scratch_block_size(std::size_t n) {
  if (n < kScratchMapMin) return n;
  const std::size_t size = huge_mapping_size(n);
  if (size == 0) throw std::bad_alloc();
  return size;
}

ScratchPool::~ScratchPool() {
  // Emptied, not just freed: a block given back during the thread's exit after this (a static
  // object's destructor) then joins no block that is gone.
  for (ScratchBlock& b : spare_) free_block(std::exchange(b, ScratchBlock{}));
}

ScratchBlock ScratchPool::take(std::size_t n) {
  const std::size_t size = scratch_block_size(n);
  if (size < kScratchMapMin) {
    void* p = std::malloc(size ? size : 1);
    if (!p) throw std::bad_alloc();
    return {static_cast<std::uint8_t*>(p), size};
  }
  // The smallest spare that is large enough (its pages are already faulted in), cut to size;
  // the rest (whole 2 MiB units, at a 2 MiB boundary) stays a spare.
  ScratchBlock* best = nullptr;
  for (ScratchBlock& b : spare_)
    if (b.p && b.size >= size && (!best || b.size < best->size)) best = &b;
  if (best) {
    ScratchBlock r = std::exchange(*best, ScratchBlock{});
    if (r.size > size) give({r.p + size, r.size - size});
    r.size = size;
    return r;
  }
  // No spare is large enough: they are all smaller than what this build now needs, so they go
  // before the new block is mapped, and a process never holds both (docs/architecture.md,
  // "Memory").
  trim();
  std::uint8_t* p = map_huge(size);
  if (!p) throw std::bad_alloc();
  return {p, size};
}

void ScratchPool::give(ScratchBlock b) {
  if (!b.p) return;
  if (b.size < kScratchMapMin) {
    std::free(b.p);
    return;
  }
  // Spares next to b join it, so that the pieces of a block cut by take() become one again.
  for (bool joined = true; joined;) {
    joined = false;
    for (ScratchBlock& s : spare_) {
      if (!s.p) continue;
      if (s.p + s.size == b.p) {
        b = {s.p, s.size + b.size};
      } else if (b.p + b.size == s.p) {
        b.size += s.size;
      } else {
        continue;
      }
      s = {};
      joined = true;
    }
  }
  std::size_t kept = 0;
  ScratchBlock* slot = nullptr;  // an empty slot, else the smallest spare
  for (ScratchBlock& s : spare_) {
    kept += s.size;
    if (!s.p) {
      if (!slot || slot->p) slot = &s;
    } else if (!slot || (slot->p && s.size < slot->size)) {
      slot = &s;
    }
  }
  if (slot->p) {  // no empty slot: keep the larger of the smallest spare and b
    if (slot->size >= b.size) return free_block(b);
    kept -= slot->size;
    free_block(std::exchange(*slot, ScratchBlock{}));
  }
  if (kept + b.size > kKeepTotal) return free_block(b);
  *slot = b;
}

void ScratchPool::trim() noexcept {
  for (ScratchBlock& b : spare_) free_block(std::exchange(b, ScratchBlock{}));
}

ScratchPool& scratch_pool() { return per_thread<ScratchPool>(); }

std::uint8_t* ScratchAllocator::allocate(std::size_t size) { return scratch_pool().take(size).p; }

void ScratchAllocator::deallocate(std::uint8_t* p, std::size_t size) {
  scratch_pool().give({p, scratch_block_size(size)});
}

void ByteBuffer::release() noexcept {
  if (cap_ < kScratchMapMin) {
    scratch_pool().give({data_, cap_});
  } else {
    free_block({data_, cap_});
  }
  data_ = nullptr;
  size_ = cap_ = 0;
}

void ByteBuffer::grow(std::size_t n) {
  const std::size_t cap = std::max<std::size_t>({cap_ * 2, size_ + n, 4096});
  ScratchBlock b = scratch_pool().take(cap);
  if (size_) std::memcpy(b.p, data_, size_);
  // The old block is freed, not kept as a spare: a buffer that grows is larger than any spare
  // would serve during this build, and a spare would stay resident beside it.
  const std::size_t size = size_;
  release();
  size_ = size;
  data_ = b.p;
  cap_ = b.size;
}

}  // namespace ilmap
