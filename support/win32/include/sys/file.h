// sys/file.h for win-x64 (support/win32/include/posix_compat.h): flock is LockFileEx over the
// whole file (exclusive or shared, LOCK_NB for no wait); LOCK_UN unlocks it.
#pragma once
#ifdef __cplusplus
extern "C" {
#endif
#define LOCK_SH 1
#define LOCK_EX 2
#define LOCK_NB 4
#define LOCK_UN 8
int flock(int fd, int op);
#ifdef __cplusplus
}
#endif
