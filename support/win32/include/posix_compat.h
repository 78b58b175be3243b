// posix_compat.h - the POSIX names ilmap's sources use, on win-x64 (mingw-w64): included first
// in every translation unit of the Windows build (-include, CMakeLists.txt), and nowhere else.
//
// First phase of the Windows port (docs/build-and-test.md "Windows"): the platform calls that
// mingw-w64's C runtime lacks are given here and in sys/mman.h, sys/file.h, dlfcn.h and poll.h
// beside it, implemented with Win32 calls in support/win32/PosixCompat.cpp, so that the layers
// above compile unchanged and the Linux build is untouched. What cannot mean anything on
// Windows is a harmless no-op: signals other than SIGINT/SIGTERM, symbolic links, file modes.
// The next phase moves each use behind a support/ interface and retires this header.
#pragma once
#ifdef __cplusplus
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#else
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#endif
#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

// Every open() is binary, as on POSIX: no CRLF translation, no Ctrl+Z as end of file.
#undef O_RDONLY
#undef O_WRONLY
#undef O_RDWR
#define O_RDONLY (_O_RDONLY | _O_BINARY)
#define O_WRONLY (_O_WRONLY | _O_BINARY)
#define O_RDWR (_O_RDWR | _O_BINARY)
#ifndef O_CLOEXEC
#define O_CLOEXEC _O_NOINHERIT
#endif
#define O_NOFOLLOW 0
#define O_NONBLOCK 0
#define O_NOCTTY 0
#ifndef NAME_MAX
#define NAME_MAX 255
#endif
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
#define S_IFLNK 0120000
#define S_ISLNK(m) 0
#define S_ISSOCK(m) 0

// No symbolic links as POSIX sees them: lstat is stat, readlink always fails with EINVAL.
// stat of a UTF-8 path: the runtime's _stat64 (what `stat` names with _FILE_OFFSET_BITS=64)
// reads the ANSI code page, so calls go to support/Platform.h's stat_path (UTF-16, long paths)
// instead; `struct stat` stays the runtime's struct _stat64.
int ilmap_win_stat64(const char* path, struct _stat64* st);
#define _stat64(path, st) ilmap_win_stat64(path, st)
#define lstat stat
static inline long readlink(const char* path, char* buf, size_t n) { (void)path, (void)buf, (void)n; errno = EINVAL; return -1; }
static inline int fchmod(int fd, unsigned mode) { (void)fd, (void)mode; return 0; }
static inline int fsync(int fd) { return _commit(fd); }
static inline int fdatasync(int fd) { return _commit(fd); }
static inline int pipe(int fds[2]) { return _pipe(fds, 65536, _O_BINARY); }
// glibc's memrchr: the last `c` in the `n` bytes at `s`.
static inline void* memrchr(const void* s, int c, size_t n) {
  const unsigned char* p = (const unsigned char*)s + n;
  while (n--) if (*--p == (unsigned char)c) return (void*)p;
  return NULL;
}
#define FALLOC_FL_KEEP_SIZE 1
static inline int fallocate(int fd, int mode, int64_t off, int64_t len) { (void)fd, (void)mode, (void)off, (void)len; errno = EOPNOTSUPP; return -1; }

// fcntl: only the calls ilmap makes (flags and leases), none of which Windows needs.
#define F_GETFL 3
#define F_SETFL 4
#define F_GETLEASE 1025
#define F_SETLEASE 1024
#define F_SETSIG 10
#define F_RDLCK 0
#define F_WRLCK 1
#define F_UNLCK 2
int ilmap_win_fcntl(int fd, int cmd, ...);
#define fcntl ilmap_win_fcntl

// pread on the file's handle (an OVERLAPPED offset: the file position is not shared state).
ssize_t ilmap_win_pread(int fd, void* buf, size_t n, int64_t off);
#define pread ilmap_win_pread
// rename(2)'s promise: the target replaced atomically (MoveFileExW, retried while another process
// such as a scanner or indexer holds the target open for a moment).
int ilmap_win_rename(const char* from, const char* to);
#define rename ilmap_win_rename
// open(2) as Windows can rename and delete what is open: CreateFileW with FILE_SHARE_DELETE
// (the C runtime's open shares no delete), for files that are renamed into place while their
// writer holds them (support/AtomicFile.cpp names it for its own open calls).
int ilmap_win_open(const char* path, int flags, ...);
// renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE): MoveFileExW without replacing
// (EEXIST when `to` exists), the only form ilmap uses.
#define AT_FDCWD (-100)
#define RENAME_NOREPLACE 1
int renameat2(int fromdir, const char* from, int todir, const char* to, unsigned flags);
char* mkdtemp(char* tmpl);
// unlink(2), mkstemp(3) and mkdir(2) of a UTF-8 path (DeleteFileW, CreateFileW, CreateDirectoryW):
// the runtime's own read the ANSI code page, so a temporary in C:\Users\Zoë\... was neither
// made in the right folder nor removed by Ctrl+C (tests/windows/guard.sh).
int ilmap_win_unlink(const char* path);
#define unlink ilmap_win_unlink
int ilmap_win_mkstemp(char* tmpl);
#define mkstemp ilmap_win_mkstemp
int ilmap_win_mkdir(const char* path);
char* ilmap_win_realpath(const char* path, char* resolved);
#define realpath ilmap_win_realpath

// Signals: Windows' C runtime knows SIGINT, SIGTERM, SIGABRT, SIGSEGV, SIGFPE, SIGILL only.
#define SIGHUP 1
#define SIGKILL 9
#define SIGBUS 7
#define SIGPIPE 13
#define SIGUSR1 30
#define SIGRTMIN 34
#define SA_SIGINFO 4
#define SA_RESTART 0x10000000
#define SA_RESETHAND 0x80000000
#define SA_ONSTACK 0x08000000
typedef struct { int si_signo; int si_code; void* si_addr; int si_fd; } siginfo_t;
typedef unsigned long ilmap_sigset_t;
struct sigaction {
  void (*sa_handler)(int);
  void (*sa_sigaction)(int, siginfo_t*, void*);
  ilmap_sigset_t sa_mask;
  int sa_flags;
};
static inline int sigemptyset(ilmap_sigset_t* s) { *s = 0; return 0; }
static inline int sigaddset(ilmap_sigset_t* s, int sig) { *s |= 1ul << (sig & 31); return 0; }
int ilmap_win_sigaction(int sig, const struct sigaction* act, struct sigaction* old);
#define sigaction(sig, act, old) ilmap_win_sigaction(sig, act, old)
int ilmap_win_kill(int pid, int sig);
#define kill ilmap_win_kill

#ifdef __cplusplus
}  // extern "C"
// mkdir(path, mode): the runtime's takes no mode (and reads the ANSI code page).
inline int mkdir(const char* path, unsigned mode) { (void)mode; return ilmap_win_mkdir(path); }
#endif
