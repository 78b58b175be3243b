// HugePages.cpp - large mappings at a 2 MiB boundary with huge-page advice (HugePages.h).
#include "support/HugePages.h"

#include <sys/mman.h>

#include <cstdint>

namespace ilmap {

std::size_t huge_mapping_size(std::size_t n) noexcept {
  if (n > SIZE_MAX - kHugePageBytes) return 0;
  return (n + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
}

std::uint8_t* map_huge(std::size_t size) noexcept {
  if (size == 0 || size % kHugePageBytes || size > SIZE_MAX - kHugePageBytes) return nullptr;
  // Map one unit more than asked, then unmap the slack before and after the aligned range.
  void* m = ::mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  const auto base = reinterpret_cast<std::uintptr_t>(m);
  const std::uintptr_t begin = (base + kHugePageBytes - 1) & ~std::uintptr_t(kHugePageBytes - 1);
  if (begin > base) ::munmap(m, begin - base);
  if (const std::uintptr_t tail = base + size + kHugePageBytes - (begin + size))
    ::munmap(reinterpret_cast<void*>(begin + size), tail);
#if defined(MADV_HUGEPAGE)
  (void)::madvise(reinterpret_cast<void*>(begin), size, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<std::uint8_t*>(begin);
}

void unmap_huge(void* p, std::size_t size) noexcept {
  if (p) ::munmap(p, size);
}

void prefault_for_write(void* p, std::size_t n) noexcept {
#if !defined(MADV_POPULATE_WRITE)
  constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; older headers lack the name
#endif
  if (p == nullptr || n < kPrefaultMin) return;
  constexpr std::uintptr_t kPage = 4096;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(kPage - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
}

}  // namespace ilmap
