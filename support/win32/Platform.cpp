// Platform.cpp (win-x64) - support/Platform.h on Windows: the wide (W) calls with UTF-16 paths
// (win32/WidePath.h), descriptors of the C runtime over Win32 handles, errno as the POSIX calls
// would set it, for the messages the layers above print.
#include "support/Platform.h"

#include <windows.h>

#include <fcntl.h>
#include <fnmatch.h>  // support/win32/include: POSIX fnmatch with flags 0
#include <io.h>
#include <shellapi.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cwchar>

#include "support/ThreadLocal.h"
#include "support/win32/WidePath.h"

namespace ilmap::platform {

namespace {

int errno_of(DWORD e) {
  switch (e) {
    case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: case ERROR_INVALID_NAME: case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME: return ENOENT;
    case ERROR_ACCESS_DENIED: case ERROR_SHARING_VIOLATION: case ERROR_LOCK_VIOLATION: return EACCES;
    case ERROR_FILE_EXISTS: case ERROR_ALREADY_EXISTS: return EEXIST;
    case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY: case ERROR_COMMITMENT_LIMIT: return ENOMEM;
    case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    case ERROR_INVALID_HANDLE: return EBADF;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    case ERROR_FILENAME_EXCED_RANGE: return ENAMETOOLONG;
    case ERROR_DIRECTORY: return ENOTDIR;
    default: return EIO;
  }
}

bool fail(DWORD e) {
  errno = errno_of(e);
  return false;
}

HANDLE handle_of(int fd) { return reinterpret_cast<HANDLE>(_get_osfhandle(fd)); }

// 100 ns ticks since 1601 to nanoseconds since 1970.
std::int64_t unix_ns(const FILETIME& t) {
  const std::int64_t ticks = std::int64_t((std::uint64_t(t.dwHighDateTime) << 32) | t.dwLowDateTime);
  return (ticks - 116444736000000000LL) * 100;
}

bool fill(HANDLE h, FileInfo& out) {
  const DWORD kind = GetFileType(h);
  if (kind != FILE_TYPE_DISK) {  // a console, a pipe, a device
    if (kind == FILE_TYPE_UNKNOWN && GetLastError() != NO_ERROR) return fail(GetLastError());
    out = FileInfo{};
    out.type = FileType::kOther;
    return true;
  }
  BY_HANDLE_FILE_INFORMATION bh{};
  if (!GetFileInformationByHandle(h, &bh)) return fail(GetLastError());
  out.type = (bh.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ? FileType::kSymlink
           : (bh.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)   ? FileType::kDirectory
                                                                 : FileType::kRegular;
  out.size = out.type == FileType::kDirectory ? 0 : (std::uint64_t(bh.nFileSizeHigh) << 32) | bh.nFileSizeLow;
  out.device = bh.dwVolumeSerialNumber;
  out.inode = (std::uint64_t(bh.nFileIndexHigh) << 32) | bh.nFileIndexLow;
  out.mtime_ns = unix_ns(bh.ftLastWriteTime);
  out.ctime_ns = out.mtime_ns;
  return true;
}

// A descriptor of the C runtime over a new handle; -1 with errno.
// FILE_FLAG_BACKUP_SEMANTICS opens a directory too, so that callers say "is a directory" after
// stat_fd as on Linux, not "permission denied".
int open_fd(const std::string& path, DWORD access, DWORD disposition, int crt_flags) {
  const HANDLE h = CreateFileW(wide_path(path).c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                               nullptr, disposition, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (h == INVALID_HANDLE_VALUE) return fail(GetLastError()), -1;
  const int fd = _open_osfhandle(reinterpret_cast<intptr_t>(h), crt_flags | _O_BINARY | _O_NOINHERIT);
  if (fd < 0) {
    CloseHandle(h);
    errno = EMFILE;
  }
  return fd;
}

}  // namespace

std::wstring widen(std::string_view utf8) {
  if (utf8.empty()) return {};
  const int n = MultiByteToWideChar(CP_UTF8, 0, utf8.data(), int(utf8.size()), nullptr, 0);
  std::wstring w(std::size_t(n > 0 ? n : 0), L'\0');
  if (n > 0) MultiByteToWideChar(CP_UTF8, 0, utf8.data(), int(utf8.size()), w.data(), n);
  return w;
}

std::string narrow(std::wstring_view utf16) {
  if (utf16.empty()) return {};
  const int n = WideCharToMultiByte(CP_UTF8, 0, utf16.data(), int(utf16.size()), nullptr, 0, nullptr, nullptr);
  std::string s(std::size_t(n > 0 ? n : 0), '\0');
  if (n > 0) WideCharToMultiByte(CP_UTF8, 0, utf16.data(), int(utf16.size()), s.data(), n, nullptr, nullptr);
  return s;
}

std::wstring wide_path(std::string_view utf8) {
  std::wstring w = widen(utf8);
  constexpr std::size_t kLongPath = 248;
  if (w.size() < kLongPath || w.starts_with(L"\\\\?\\") || w.starts_with(L"\\\\.\\")) return w;
  const DWORD n = GetFullPathNameW(w.c_str(), 0, nullptr, nullptr);
  if (n == 0) return w;
  std::wstring full(n, L'\0');
  const DWORD got = GetFullPathNameW(w.c_str(), n, full.data(), nullptr);
  if (got == 0 || got >= n) return w;
  full.resize(got);
  if (full.starts_with(L"\\\\")) return L"\\\\?\\UNC\\" + full.substr(2);  // \\server\share\...
  return L"\\\\?\\" + full;
}

int open_read(const std::string& path, unsigned) {
  // No symbolic links to refuse by flag and no FIFO to block on: both flags are moot here.
  return open_fd(path, GENERIC_READ, OPEN_EXISTING, _O_RDONLY);
}

int open_lock_file(const std::string& path, unsigned) { return open_fd(path, GENERIC_READ | GENERIC_WRITE, OPEN_ALWAYS, _O_RDWR); }

long long read_some(int fd, void* dst, std::size_t n) {
  const HANDLE h = handle_of(fd);
  if (h == INVALID_HANDLE_VALUE) return errno = EBADF, -1;
  DWORD got = 0;
  if (ReadFile(h, dst, DWORD(n > 0x40000000 ? 0x40000000 : n), &got, nullptr)) return got;
  const DWORD e = GetLastError();
  if (e == ERROR_BROKEN_PIPE || e == ERROR_HANDLE_EOF) return 0;  // the writer closed the pipe
  return fail(e), -1;
}

long long read_at(int fd, void* dst, std::size_t n, std::uint64_t offset) {
  const HANDLE h = handle_of(fd);
  if (h == INVALID_HANDLE_VALUE) return errno = EBADF, -1;
  OVERLAPPED ov{};
  ov.Offset = DWORD(offset);
  ov.OffsetHigh = DWORD(offset >> 32);
  DWORD got = 0;
  // A synchronous handle's ReadFile at an offset moves the file position; pread must not.
  LARGE_INTEGER pos{}, zero{};
  const bool kept = SetFilePointerEx(h, zero, &pos, FILE_CURRENT);
  const BOOL ok = ReadFile(h, dst, DWORD(n > 0x40000000 ? 0x40000000 : n), &got, &ov);
  const DWORD e = GetLastError();
  if (kept) SetFilePointerEx(h, pos, nullptr, FILE_BEGIN);
  if (ok) return got;
  if (e == ERROR_HANDLE_EOF) return 0;
  return fail(e), -1;
}

int close_fd(int fd) { return _close(fd); }
int sync_fd(int fd) { return FlushFileBuffers(handle_of(fd)) ? 0 : (fail(GetLastError()), -1); }

bool stat_path(const std::string& path, FileInfo& out, bool follow) {
  // Access 0: attributes only, so that a file another process holds open exclusively, or a
  // directory (FILE_FLAG_BACKUP_SEMANTICS), can be looked at.
  const DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT);
  const HANDLE h = CreateFileW(wide_path(path).c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                               nullptr, OPEN_EXISTING, flags, nullptr);
  if (h == INVALID_HANDLE_VALUE) return fail(GetLastError());
  const bool ok = fill(h, out);
  CloseHandle(h);
  return ok;
}

bool stat_fd(int fd, FileInfo& out) {
  const HANDLE h = handle_of(fd);
  if (h == INVALID_HANDLE_VALUE) return errno = EBADF, false;
  return fill(h, out);
}

const void* map_read(int fd, std::size_t n, bool) {
  const HANDLE h = handle_of(fd);
  if (h == INVALID_HANDLE_VALUE || n == 0) return nullptr;
  const HANDLE m = CreateFileMappingW(h, nullptr, PAGE_READONLY, DWORD(std::uint64_t(n) >> 32), DWORD(n), nullptr);
  if (!m) return fail(GetLastError()), nullptr;
  const void* p = MapViewOfFile(m, FILE_MAP_READ, 0, 0, n);
  const DWORD e = GetLastError();
  CloseHandle(m);  // the view keeps the mapping object alive
  if (!p) fail(e);
  return p;
}

void unmap(const void* p, std::size_t) {
  if (!p) return;
  // A view the mapping guard replaced by zeroed memory (support/win32/MappingGuard.cpp) is no
  // view any more: release that memory instead.
  if (!UnmapViewOfFile(p)) VirtualFree(const_cast<void*>(p), 0, MEM_RELEASE);
}

void release_pages(const void* p, std::size_t n) {
  // VirtualUnlock of pages that are not locked fails (ERROR_NOT_LOCKED) but takes them out of
  // the working set, which is what is wanted: a later read faults them in again.
  if (p && n) VirtualUnlock(const_cast<void*>(p), n);
}

bool lock_file(int fd, bool wait) {
  const HANDLE h = handle_of(fd);
  if (h == INVALID_HANDLE_VALUE) return errno = EBADF, false;
  OVERLAPPED ov{};
  const DWORD how = LOCKFILE_EXCLUSIVE_LOCK | (wait ? 0 : LOCKFILE_FAIL_IMMEDIATELY);
  if (LockFileEx(h, how, 0, MAXDWORD, MAXDWORD, &ov)) return true;
  const DWORD e = GetLastError();
  if (e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING) return errno = EWOULDBLOCK, false;
  return fail(e);
}

int make_directory(const std::string& path) {
  return CreateDirectoryW(wide_path(path).c_str(), nullptr) ? 0 : (fail(GetLastError()), -1);
}

int rename_no_replace(const std::string& from, const std::string& to) {
  if (MoveFileExW(wide_path(from).c_str(), wide_path(to).c_str(), MOVEFILE_WRITE_THROUGH)) return 0;
  return fail(GetLastError()), -1;
}

int truncate_file(const std::string& path, std::uint64_t size) {
  const int fd = open_fd(path, GENERIC_WRITE, OPEN_EXISTING, _O_WRONLY);
  if (fd < 0) return -1;
  LARGE_INTEGER at{};
  at.QuadPart = LONGLONG(size);
  const HANDLE h = handle_of(fd);
  const bool ok = SetFilePointerEx(h, at, nullptr, FILE_BEGIN) && SetEndOfFile(h);
  const DWORD e = GetLastError();
  _close(fd);
  return ok ? 0 : (fail(e), -1);
}

int remove_file(const std::string& path) {
  return DeleteFileW(wide_path(path).c_str()) ? 0 : (fail(GetLastError()), -1);
}

std::optional<std::string> real_path(const std::string& path) {
  // The final path of the open file (links and junctions resolved), without the \\?\ prefix
  // that GetFinalPathNameByHandleW gives it (wide_path puts it back where a path needs it), so
  // that the canonical forms of a folder and of a file in it start alike.
  const HANDLE h = CreateFileW(wide_path(path).c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                               nullptr, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (h == INVALID_HANDLE_VALUE) return fail(GetLastError()), std::nullopt;
  std::wstring w(MAX_PATH, L'\0');
  DWORD n = GetFinalPathNameByHandleW(h, w.data(), DWORD(w.size()), FILE_NAME_NORMALIZED);
  if (n >= w.size()) {
    w.resize(n + 1);
    n = GetFinalPathNameByHandleW(h, w.data(), DWORD(w.size()), FILE_NAME_NORMALIZED);
  }
  const DWORD e = GetLastError();
  CloseHandle(h);
  if (n == 0 || n >= w.size()) return fail(e), std::nullopt;
  w.resize(n);
  if (w.starts_with(L"\\\\?\\UNC\\")) w = L"\\\\" + w.substr(8);
  else if (w.starts_with(L"\\\\?\\") && w.size() > 5 && w[5] == L':') w = w.substr(4);
  return narrow(w);
}

bool is_path_separator(char c) noexcept { return c == '/' || c == '\\'; }

std::optional<std::string> make_temp_directory(const std::string& prefix) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (unsigned attempt = 0; attempt < 100; ++attempt) {
    unsigned long long r = GetTickCount64() * 2654435761ull ^ (unsigned long long)GetCurrentProcessId() << 20 ^ attempt * 40503ull;
    std::string dir = prefix;
    for (int i = 0; i < 6; ++i, r /= 36) dir += kChars[r % 36];
    if (CreateDirectoryW(wide_path(dir).c_str(), nullptr)) return dir;
    if (GetLastError() != ERROR_ALREADY_EXISTS) return fail(GetLastError()), std::nullopt;
  }
  errno = EEXIST;
  return std::nullopt;
}

std::filesystem::path fs_path(std::string_view utf8) {
  return std::filesystem::path(std::u8string_view(reinterpret_cast<const char8_t*>(utf8.data()), utf8.size()));
}

std::string fs_string(const std::filesystem::path& p) {
  const std::u8string s = p.u8string();
  return std::string(reinterpret_cast<const char*>(s.data()), s.size());
}

std::string fs_generic_string(const std::filesystem::path& p) {
  const std::u8string s = p.generic_u8string();
  return std::string(reinterpret_cast<const char*>(s.data()), s.size());
}

bool glob_match(const char* pattern, const char* text) noexcept { return ::fnmatch(pattern, text, 0) == 0; }

std::vector<std::string> utf8_arguments(int argc, char** argv) {
  int n = 0;
  LPWSTR* w = CommandLineToArgvW(GetCommandLineW(), &n);
  if (!w || n != argc) {  // cannot happen for a program started normally: keep the C runtime's
    if (w) LocalFree(w);
    return {argv, argv + argc};
  }
  std::vector<std::string> out;
  out.reserve(std::size_t(n));
  for (int i = 0; i < n; ++i) out.push_back(narrow(w[i]));
  LocalFree(w);
  return out;
}

std::optional<std::string> environment(const char* name) {
  const wchar_t* v = _wgetenv(widen(name).c_str());
  if (!v) return std::nullopt;
  return narrow(v);
}

bool is_terminal(int fd) noexcept { return _isatty(fd) != 0; }

bool input_waiting(int) noexcept { return true; }

void utf8_console() noexcept {
  // Bytes to a pipe or a file are not touched; a console shows them as UTF-8.
  SetConsoleOutputCP(CP_UTF8);
}

void handle_stop_signals(void (*handler)(int)) noexcept {
  // The C runtime turns Ctrl+C into SIGINT and Ctrl+Break into SIGBREAK.
  std::signal(SIGINT, handler);
  std::signal(SIGTERM, handler);
  std::signal(SIGBREAK, handler);
}

std::size_t page_size() noexcept {
  SYSTEM_INFO si{};
  GetSystemInfo(&si);
  return si.dwPageSize;
}

void kill_self() noexcept { TerminateProcess(GetCurrentProcess(), 137); for (;;) {} }

}  // namespace ilmap::platform

namespace ilmap::thread_slots {

// FLS callbacks are PFLS_CALLBACK_FUNCTION (WINAPI); on x64 that is the one calling convention,
// the same as a plain function's.
unsigned create(void (*destroy)(void*)) noexcept {
  const DWORD slot = FlsAlloc(reinterpret_cast<PFLS_CALLBACK_FUNCTION>(destroy));
  return slot == FLS_OUT_OF_INDEXES ? ~0u : static_cast<unsigned>(slot);
}
void* get(unsigned slot) noexcept { return slot == ~0u ? nullptr : FlsGetValue(slot); }
bool set(unsigned slot, void* value) noexcept { return slot != ~0u && FlsSetValue(slot, value); }

}  // namespace ilmap::thread_slots
