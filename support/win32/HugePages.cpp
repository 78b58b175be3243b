// HugePages.cpp (win-x64) - support/HugePages.h on Windows: plain committed memory. Large pages
// need the SeLockMemoryPrivilege, which a build agent's account rarely holds.
#include "support/HugePages.h"

#include <windows.h>

#include <cstdint>

namespace ilmap {

std::size_t huge_mapping_size(std::size_t n) noexcept {
  if (n > SIZE_MAX - kHugePageBytes) return 0;
  return (n + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
}

std::uint8_t* map_huge(std::size_t size) noexcept {
  if (size == 0 || size % kHugePageBytes) return nullptr;
  return static_cast<std::uint8_t*>(VirtualAlloc(nullptr, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE));
}

void unmap_huge(void* p, std::size_t) noexcept {
  if (p) VirtualFree(p, 0, MEM_RELEASE);
}

void prefault_for_write(void*, std::size_t) noexcept {}

}  // namespace ilmap
