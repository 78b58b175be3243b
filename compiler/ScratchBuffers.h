// ScratchBuffers.h - the large buffers of a build (point blocks, line points, the line index's
// sort, the FlatBuffers builder's buffer), kept per thread between builds.
//
// Memory only: nothing here changes a byte of a cache (SPEC.md section 8). Two costs of fresh
// memory are avoided. glibc maps a large block anew on every malloc, so a build that allocated
// its buffers afresh would page-fault every page of them: a pool of spare blocks per thread lets
// the next build of the same thread reuse the pages. And a short-lived process (one `ilmap
// compile`) faults every page it touches once; on a virtual machine with shadow page tables a
// fault costs 10-20 us, which made page faults 90% of compiling a 100,000-point PDB as a whole
// process. Blocks of kScratchMapMin bytes or more are therefore mapped on their own at a 2 MiB
// boundary, in whole 2 MiB units, with huge-page advice: where the kernel offers transparent
// huge pages on request ("madvise" mode), one fault maps 2 MiB instead of 4 KiB.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace ilmap {

// A block from the pool and its size (scratch_block_size of what was asked).
struct ScratchBlock {
  std::uint8_t* p = nullptr;
  std::size_t size = 0;
};

// Requests of at least this many bytes get a mapped block in whole 2 MiB units; smaller ones a
// malloc'd block of the size asked. Under AddressSanitizer every block is malloc'd, so its
// bounds stay checked.
extern const std::size_t kScratchMapMin;

// The size of the block that a request of n bytes gets: n below kScratchMapMin, else n rounded
// up to 2 MiB. scratch_block_size(scratch_block_size(n)) == scratch_block_size(n).
std::size_t scratch_block_size(std::size_t n);

// Spare mapped blocks of one thread, kept for its next build: at most eight, at most 64 MiB in
// all (the larger ones win; a process with many compiling threads keeps at most that much per
// thread); adjacent spares are joined. A take that no spare can serve frees them all before it
// maps a new block, so that spares never sit beside a build's largest buffers.
class ScratchPool {
 public:
  ScratchPool() = default;
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;
  ~ScratchPool();
  // A block of scratch_block_size(n) bytes: a spare one when one is large enough (cut to size),
  // else a new one. Throws std::bad_alloc when memory runs out.
  ScratchBlock take(std::size_t n);
  // Keeps `b` (a block from any thread's take, its size as take gave it) for a later take, or
  // frees it.
  void give(ScratchBlock b);
  // Frees every spare block now.
  void trim() noexcept;
  // Bytes of the spare blocks kept now.
  std::size_t kept_bytes() const noexcept {
    std::size_t n = 0;
    for (const ScratchBlock& b : spare_) n += b.size;
    return n;
  }

 private:
  static constexpr int kSpares = 8;
  ScratchBlock spare_[kSpares];
};

// The calling thread's pool.
ScratchPool& scratch_pool();

// FlatBufferBuilder memory from the thread's scratch pool. A buffer released from the builder
// (ReleaseRaw) goes back with scratch_pool().give({p, scratch_block_size(reserved)}).
class ScratchAllocator : public flatbuffers::Allocator {
 public:
  std::uint8_t* allocate(std::size_t size) override;
  void deallocate(std::uint8_t* p, std::size_t size) override;
};

// A std::vector allocator for vectors that may grow large: below kScratchMapMin bytes
// std::allocator, from there blocks of the scratch pool.
template <class T>
struct ScratchVectorAllocator {
  using value_type = T;
  ScratchVectorAllocator() = default;
  template <class U>
  ScratchVectorAllocator(const ScratchVectorAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kScratchMapMin) return std::allocator<T>().allocate(n);
    return reinterpret_cast<T*>(scratch_pool().take(bytes).p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kScratchMapMin) {
      std::allocator<T>().deallocate(p, n);
      return;
    }
    scratch_pool().give({reinterpret_cast<std::uint8_t*>(p), scratch_block_size(bytes)});
  }
  template <class U>
  bool operator==(const ScratchVectorAllocator<U>&) const noexcept {
    return true;
  }
};

// A vector whose large storage comes from the scratch pool.
template <class T>
using ScratchVector = std::vector<T, ScratchVectorAllocator<T>>;

// A growable byte buffer from the scratch pool that does not zero what it hands out
// (std::vector::resize would). Movable (a vector of chunks grows), not copyable.
class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(ByteBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), cap_(std::exchange(o.cap_, 0)) {}
  ByteBuffer& operator=(ByteBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }
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
  // Frees the storage now (a mapped block goes back to the system, not to the pool: its pages
  // leave the process at once) and leaves the buffer empty.
  void release() noexcept;

 private:
  void grow(std::size_t n);  // room for n more bytes after size_
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0, cap_ = 0;
};

}  // namespace ilmap
