// HugePages.h - anonymous mappings for large, short-lived buffers, at a 2 MiB boundary and in
// whole 2 MiB units, with huge-page advice.
//
// A short-lived process faults in every page it touches once. On a virtual machine with shadow
// page tables a fault costs 10-20 us, so a whole-process compile of a 100,000-point PDB spent
// 90% of its time in page faults. Where the kernel offers transparent huge pages on request
// ("madvise" mode), one fault of such a mapping maps 2 MiB instead of 4 KiB. Only advice: kernels
// without transparent huge pages ignore it, and no result depends on it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ilmap {

inline constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;

// From this size on a large buffer is worth a mapping of its own: one huge-page fault of 2 MiB
// costs about what 64 faults of 4 KiB do on bare metal, and far less on a virtual machine.
inline constexpr std::size_t kHugeMappingMin = std::size_t(256) << 10;

// n rounded up to whole 2 MiB units; 0 when that would overflow.
std::size_t huge_mapping_size(std::size_t n) noexcept;

// A new zero-filled mapping of `size` bytes (a multiple of kHugePageBytes) at a 2 MiB boundary,
// advised for huge pages; nullptr when the system refuses it. Release with unmap_huge.
std::uint8_t* map_huge(std::size_t size) noexcept;
void unmap_huge(void* p, std::size_t size) noexcept;

// From this size on a buffer that is about to be written whole is worth faulting in with one
// call (prefault_for_write): fresh allocations of this size are mappings of their own.
inline constexpr std::size_t kPrefaultMin = std::size_t(64) << 10;

// Faults in, writable, the whole pages of [p, p + n) with one madvise(MADV_POPULATE_WRITE)
// instead of one fault per page as they are first written (on this project's benchmark VM
// 8 us a page instead of 15-20). Contents are unchanged. Only a hint: nothing when n is below
// kPrefaultMin, and kernels before Linux 5.14 refuse it (ignored).
void prefault_for_write(void* p, std::size_t n) noexcept;

}  // namespace ilmap
