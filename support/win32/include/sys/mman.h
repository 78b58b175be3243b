// sys/mman.h for win-x64 (support/win32/include/posix_compat.h): mmap of a file is a view of a
// file mapping (CreateFileMappingW + MapViewOfFile), an anonymous one VirtualAlloc'd memory;
// munmap releases either, whole (ilmap never unmaps part of a mapping on Windows).
#pragma once
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_POPULATE 0x8000
#define MAP_FAILED ((void*)-1)
#define MADV_NORMAL 0
#define MADV_RANDOM 1
#define MADV_SEQUENTIAL 2
#define MADV_WILLNEED 3
#define MADV_HUGEPAGE 14
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
void* mmap(void* addr, size_t len, int prot, int flags, int fd, int64_t off);
int munmap(void* addr, size_t len);
static inline int madvise(void* addr, size_t len, int advice) { (void)addr, (void)len, (void)advice; return 0; }
#ifdef __cplusplus
}
#endif
