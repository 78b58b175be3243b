// PosixCompat.cpp - the Win32 side of support/win32/include/posix_compat.h and its sys/mman.h,
// sys/file.h and dlfcn.h: POSIX calls of ilmap's sources as Windows does them. Paths are UTF-8
// as everywhere in ilmap, turned to UTF-16 here for the wide (W) calls.
#include <windows.h>

#include <cstdarg>
#include <cstring>
#include <string>

#include <dlfcn.h>
#include <sys/file.h>
#include <sys/mman.h>

#include "support/Platform.h"
#include "support/ThreadLocal.h"
#include "support/win32/WidePath.h"

namespace {

std::wstring widen(const char* s) { return ilmap::platform::wide_path(s); }

// errno for the last Win32 error, for callers that report strerror(errno).
int errno_of(DWORD e) {
  switch (e) {
    case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: return ENOENT;
    case ERROR_ACCESS_DENIED: case ERROR_SHARING_VIOLATION: case ERROR_LOCK_VIOLATION: return EACCES;
    case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY: case ERROR_COMMITMENT_LIMIT: return ENOMEM;
    case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    case ERROR_INVALID_HANDLE: return EBADF;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    default: return EIO;
  }
}

// Standard input and output carry bytes: a cache written to "-", traces whose CRLF line ends
// must come out as they went in. The C runtime opens them in text mode; this runs before main.
struct BinaryStdio {
  BinaryStdio() {
    _fmode = _O_BINARY;  // and every file the C runtime opens: no CRLF translation, as on POSIX
    _setmode(0, _O_BINARY);
    _setmode(1, _O_BINARY);
    _setmode(2, _O_BINARY);
  }
} binary_stdio;

// The last dlopen failure of this thread (per_thread: a thread_local std::string is unsafe with
// mingw-w64's emulated TLS, support/ThreadLocal.h).
std::string& dl_error() { return ilmap::per_thread<std::string>(); }

}  // namespace

extern "C" {

int ilmap_win_stat64(const char* path, struct _stat64* st) {
  ilmap::platform::FileInfo fi;
  if (!ilmap::platform::stat_path(path, fi)) return -1;
  *st = {};
  st->st_mode = fi.directory() ? (_S_IFDIR | 0755) : fi.regular() ? (_S_IFREG | 0644) : 0;
  st->st_nlink = 1;
  st->st_size = static_cast<__int64>(fi.size);
  st->st_dev = st->st_rdev = _dev_t(fi.device);
  st->st_ino = _ino_t(fi.inode);
  st->st_mtime = st->st_ctime = st->st_atime = static_cast<__time64_t>(fi.mtime_ns / 1000000000);
  return 0;
}

void* mmap(void* addr, size_t len, int prot, int flags, int fd, int64_t off) {
  if (len == 0 || (flags & MAP_FIXED)) { errno = EINVAL; return MAP_FAILED; }
  if (flags & MAP_ANONYMOUS) {
    void* p = VirtualAlloc(addr, len, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    if (!p) { errno = ENOMEM; return MAP_FAILED; }
    return p;
  }
  const HANDLE file = reinterpret_cast<HANDLE>(_get_osfhandle(fd));
  if (file == INVALID_HANDLE_VALUE) { errno = EBADF; return MAP_FAILED; }
  const bool write = (prot & PROT_WRITE) != 0;
  const bool shared = (flags & MAP_SHARED) != 0;
  const DWORD protect = !write ? PAGE_READONLY : shared ? PAGE_READWRITE : PAGE_WRITECOPY;
  const DWORD access = !write ? FILE_MAP_READ : shared ? FILE_MAP_WRITE : FILE_MAP_COPY;
  const std::uint64_t end = std::uint64_t(off) + len;
  HANDLE mapping = CreateFileMappingW(file, nullptr, protect, DWORD(end >> 32), DWORD(end), nullptr);
  if (!mapping) { errno = errno_of(GetLastError()); return MAP_FAILED; }
  void* p = MapViewOfFile(mapping, access, DWORD(std::uint64_t(off) >> 32), DWORD(off), len);
  const DWORD err = GetLastError();
  CloseHandle(mapping);  // the view keeps the mapping alive
  if (!p) { errno = errno_of(err); return MAP_FAILED; }
  return p;
}

int munmap(void* addr, size_t len) {
  (void)len;
  MEMORY_BASIC_INFORMATION mbi;
  if (!addr || VirtualQuery(addr, &mbi, sizeof mbi) == 0) { errno = EINVAL; return -1; }
  const BOOL ok = mbi.Type == MEM_MAPPED ? UnmapViewOfFile(mbi.AllocationBase) : VirtualFree(mbi.AllocationBase, 0, MEM_RELEASE);
  if (!ok) { errno = EINVAL; return -1; }
  return 0;
}

int flock(int fd, int op) {
  const HANDLE file = reinterpret_cast<HANDLE>(_get_osfhandle(fd));
  if (file == INVALID_HANDLE_VALUE) { errno = EBADF; return -1; }
  OVERLAPPED ov{};
  if (op & LOCK_UN) return UnlockFileEx(file, 0, MAXDWORD, MAXDWORD, &ov) ? 0 : (errno = EINVAL, -1);
  DWORD how = (op & LOCK_EX) ? LOCKFILE_EXCLUSIVE_LOCK : 0;
  if (op & LOCK_NB) how |= LOCKFILE_FAIL_IMMEDIATELY;
  if (LockFileEx(file, how, 0, MAXDWORD, MAXDWORD, &ov)) return 0;
  errno = GetLastError() == ERROR_LOCK_VIOLATION ? EWOULDBLOCK : errno_of(GetLastError());
  return -1;
}

void* dlopen(const char* name, int flags) {
  (void)flags;
  HMODULE m = LoadLibraryW(widen(name).c_str());
  if (!m) dl_error() = std::string(name) + ": LoadLibrary failed with Windows error " + std::to_string(GetLastError());
  return reinterpret_cast<void*>(m);
}

void* dlsym(void* lib, const char* symbol) {
  return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(lib), symbol));
}

char* dlerror(void) { return dl_error().empty() ? nullptr : dl_error().data(); }

int dlclose(void* lib) { return FreeLibrary(static_cast<HMODULE>(lib)) ? 0 : -1; }

int ilmap_win_fcntl(int fd, int cmd, ...) {
  (void)fd;
  if (cmd == F_GETFL || cmd == F_SETFL) return 0;
  errno = EINVAL;  // no leases on Windows: callers treat this as "not available"
  return -1;
}

ssize_t ilmap_win_pread(int fd, void* buf, size_t n, int64_t off) {
  const HANDLE file = reinterpret_cast<HANDLE>(_get_osfhandle(fd));
  if (file == INVALID_HANDLE_VALUE) { errno = EBADF; return -1; }
  OVERLAPPED ov{};
  ov.Offset = DWORD(std::uint64_t(off));
  ov.OffsetHigh = DWORD(std::uint64_t(off) >> 32);
  DWORD got = 0;
  if (n > MAXDWORD) n = MAXDWORD;
  // A synchronous handle's ReadFile moves the file position even with an offset; pread must not
  // (a read() may follow), so it is put back.
  LARGE_INTEGER pos{}, zero{};
  const bool kept = SetFilePointerEx(file, zero, &pos, FILE_CURRENT);
  const BOOL ok = ReadFile(file, buf, DWORD(n), &got, &ov);
  const DWORD e = GetLastError();
  if (kept) SetFilePointerEx(file, pos, nullptr, FILE_BEGIN);
  if (!ok) {
    if (e == ERROR_HANDLE_EOF) return 0;
    errno = errno_of(e);
    return -1;
  }
  return ssize_t(got);
}

int ilmap_win_rename(const char* from, const char* to) {
  const std::wstring f = widen(from), t = widen(to);
  // A scanner, an indexer or a reader may hold the target open without FILE_SHARE_DELETE for a
  // moment: about 2 s of retries before the sharing violation is reported.
  for (int attempt = 0;; ++attempt) {
    if (MoveFileExW(f.c_str(), t.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) return 0;
    const DWORD e = GetLastError();
    if ((e != ERROR_SHARING_VIOLATION && e != ERROR_ACCESS_DENIED && e != ERROR_LOCK_VIOLATION) || attempt >= 40) {
      errno = errno_of(e);
      return -1;
    }
    Sleep(50);
  }
}

int ilmap_win_open(const char* path, int flags, ...) {
  const int rw = flags & (_O_RDONLY | _O_WRONLY | _O_RDWR);
  const DWORD access = rw == _O_WRONLY ? GENERIC_WRITE : rw == _O_RDWR ? GENERIC_READ | GENERIC_WRITE : GENERIC_READ;
  DWORD disposition = OPEN_EXISTING;
  if ((flags & _O_CREAT) && (flags & _O_EXCL)) disposition = CREATE_NEW;
  else if ((flags & _O_CREAT) && (flags & _O_TRUNC)) disposition = CREATE_ALWAYS;
  else if (flags & _O_CREAT) disposition = OPEN_ALWAYS;
  else if (flags & _O_TRUNC) disposition = TRUNCATE_EXISTING;
  const HANDLE h = CreateFileW(widen(path).c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                               nullptr, disposition, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    const DWORD e = GetLastError();
    errno = e == ERROR_FILE_EXISTS || e == ERROR_ALREADY_EXISTS ? EEXIST : errno_of(e);
    return -1;
  }
  const int fd = _open_osfhandle(reinterpret_cast<intptr_t>(h), (flags & (_O_APPEND | _O_RDONLY | _O_WRONLY | _O_RDWR)) | _O_BINARY);
  if (fd < 0) CloseHandle(h);
  return fd;
}

int renameat2(int fromdir, const char* from, int todir, const char* to, unsigned flags) {
  if (fromdir != AT_FDCWD || todir != AT_FDCWD) { errno = EINVAL; return -1; }
  if (!(flags & RENAME_NOREPLACE)) return ilmap_win_rename(from, to);
  if (MoveFileExW(widen(from).c_str(), widen(to).c_str(), MOVEFILE_WRITE_THROUGH)) return 0;
  const DWORD e = GetLastError();
  errno = e == ERROR_ALREADY_EXISTS || e == ERROR_FILE_EXISTS ? EEXIST : errno_of(e);
  return -1;
}

char* mkdtemp(char* tmpl) {
  const std::size_t n = std::strlen(tmpl);
  if (n < 6 || std::strcmp(tmpl + n - 6, "XXXXXX") != 0) { errno = EINVAL; return nullptr; }
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    unsigned long long r = GetTickCount64() * 2654435761ull ^ (unsigned long long)(_getpid()) << 20 ^ (unsigned long long)attempt * 40503u;
    for (std::size_t i = n - 6; i < n; ++i, r /= 36) tmpl[i] = kChars[r % 36];
    if (CreateDirectoryW(widen(tmpl).c_str(), nullptr)) return tmpl;
    if (GetLastError() != ERROR_ALREADY_EXISTS) { errno = errno_of(GetLastError()); return nullptr; }
  }
  errno = EEXIST;
  return nullptr;
}

int ilmap_win_unlink(const char* path) {
  if (DeleteFileW(widen(path).c_str())) return 0;
  errno = errno_of(GetLastError());
  return -1;
}

int ilmap_win_mkdir(const char* path) {
  if (CreateDirectoryW(widen(path).c_str(), nullptr)) return 0;
  const DWORD e = GetLastError();
  errno = e == ERROR_ALREADY_EXISTS ? EEXIST : errno_of(e);
  return -1;
}

int ilmap_win_mkstemp(char* tmpl) {
  const std::size_t n = std::strlen(tmpl);
  if (n < 6 || std::strcmp(tmpl + n - 6, "XXXXXX") != 0) { errno = EINVAL; return -1; }
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    unsigned long long r = GetTickCount64() * 2654435761ull ^ (unsigned long long)(_getpid()) << 20 ^ (unsigned long long)attempt * 40503u;
    for (std::size_t i = n - 6; i < n; ++i, r /= 36) tmpl[i] = kChars[r % 36];
    const int fd = ilmap_win_open(tmpl, O_RDWR | O_CREAT | O_EXCL);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

char* ilmap_win_realpath(const char* path, char* resolved) {
  char* r = _fullpath(resolved, path, resolved ? PATH_MAX : 0);
  if (r && GetFileAttributesA(r) == INVALID_FILE_ATTRIBUTES) {
    if (!resolved) std::free(r);
    errno = ENOENT;
    return nullptr;
  }
  return r;
}

int ilmap_win_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (old) *old = {};
  if (!act || (sig != SIGINT && sig != SIGTERM && sig != SIGBREAK)) return 0;  // nothing else is delivered on Windows
  if (act->sa_flags & SA_SIGINFO) return 0;
  return std::signal(sig, act->sa_handler) == SIG_ERR ? -1 : 0;
}

int ilmap_win_kill(int pid, int sig) {
  if (pid == _getpid()) return sig == 0 ? 0 : std::raise(sig == SIGINT || sig == SIGTERM ? sig : SIGTERM);
  HANDLE p = OpenProcess(sig == 0 ? PROCESS_QUERY_LIMITED_INFORMATION : PROCESS_TERMINATE, FALSE, DWORD(pid));
  if (!p) { errno = ESRCH; return -1; }
  DWORD code = 0;
  bool ok = true;
  if (sig == 0) ok = GetExitCodeProcess(p, &code) && code == STILL_ACTIVE;
  else ok = TerminateProcess(p, 128 + DWORD(sig));
  CloseHandle(p);
  if (!ok) { errno = ESRCH; return -1; }
  return 0;
}

}  // extern "C"
