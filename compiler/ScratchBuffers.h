// ScratchBuffers.h - the large buffers of a build (point blocks, the FlatBuffers builder's
// buffer), kept per thread between builds.
//
// Memory only: nothing here changes a byte of a cache (SPEC.md section 8). glibc maps a large
// block anew on every malloc, so a build that allocated its point blocks and its FlatBuffer
// afresh would page-fault every page of both; a pool of spare blocks per thread lets the next
// build of the same thread reuse the pages, and huge-page advice on a new block turns 512 faults
// per 2 MiB into one where the kernel offers them on request.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ilmap {

// A malloc'd block and its size.
struct ScratchBlock {
  std::uint8_t* p = nullptr;
  std::size_t size = 0;
};

// Up to two spare blocks of at most 64 MiB each (the larger ones win).
class ScratchPool {
 public:
  ScratchPool() = default;
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;
  ~ScratchPool();
  // A block of at least n bytes: a kept one when one is large enough, else a new one. Throws
  // std::bad_alloc when malloc fails.
  ScratchBlock take(std::size_t n);
  // Keeps `b` for a later take, or frees it.
  void give(ScratchBlock b);

 private:
  ScratchBlock spare_[2];
};

// The calling thread's pool.
ScratchPool& scratch_pool();

// FlatBufferBuilder memory from the thread's scratch pool.
class ScratchAllocator : public flatbuffers::Allocator {
 public:
  std::uint8_t* allocate(std::size_t size) override;
  void deallocate(std::uint8_t* p, std::size_t) override;

 private:
  std::vector<std::pair<std::uint8_t*, std::size_t>> sizes_;  // blocks handed out, by address
};

// A growable byte buffer from the scratch pool that does not zero what it hands out
// (std::vector::resize would). Not copyable, not movable.
class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ~ByteBuffer() { scratch_pool().give({data_, cap_}); }
  std::uint8_t* data() { return data_; }
  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Makes room for n more bytes after size() and returns a pointer to them.
  std::uint8_t* room(std::size_t n) {
    if (cap_ - size_ < n) grow(n);
    return data_ + size_;
  }
  void set_size(std::size_t n) { size_ = n; }
  void reserve(std::size_t n) {
    if (n > cap_) grow(n - size_);
  }

 private:
  void grow(std::size_t n);  // room for n more bytes after size_
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0, cap_ = 0;
};

}  // namespace ilmap
