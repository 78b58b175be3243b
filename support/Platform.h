// Platform.h - the system calls of every layer above support/: files by descriptor, file
// status, read-only mappings, whole-file locks, directories, the console, the environment and the
// program's arguments, behind one small interface with a Linux (Platform.cpp) and a Windows
// (win32/Platform.cpp) implementation. No file outside support/ includes a system header such as
// <unistd.h>, <sys/stat.h> or <windows.h> (tests/meta/check-platform-headers.sh).
//
// Paths are UTF-8 everywhere in ilmap. On Linux they are passed to the system as they are; on
// Windows each is turned into UTF-16 for the wide (W) calls, both separators accepted, and an
// absolute path too long for MAX_PATH is given the \\?\ prefix (docs/build-and-test.md
// "Windows"). Failures return -1 / false / nullptr with errno set, as the POSIX calls they
// replace, so that callers keep saying strerror(errno) in their messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ilmap::platform {

// --- files by descriptor ---------------------------------------------------------------------
// Opens `path` for reading, close-on-exec. kNoFollow refuses a symbolic link as the last
// component (Linux; Windows has none to refuse); kNonBlock makes opening a FIFO return at once
// (the caller refuses it after stat_fd), and the descriptor is blocking again on return.
enum OpenFlags : unsigned { kOpenRead = 0, kNoFollow = 1u << 0, kNonBlock = 1u << 1 };
int open_read(const std::string& path, unsigned flags = kOpenRead);
// Opens or creates `path` read-write (`mode` & ~umask when created; Windows keeps no mode),
// close-on-exec: a lock file held with lock_file.
int open_lock_file(const std::string& path, unsigned mode = 0666);
// read(2) and pread(2): bytes read, 0 at end of file, -1 with errno (EINTR retried here).
long long read_some(int fd, void* dst, std::size_t n);
long long read_at(int fd, void* dst, std::size_t n, std::uint64_t offset);
int close_fd(int fd);
// Up to `n` of the first bytes of the file at `path` (a sniff of its kind): how many were read,
// or -1 with errno when it cannot be opened or read.
long long read_head(const std::string& path, void* dst, std::size_t n);
// fsync(2): 0 or -1 with errno.
int sync_fd(int fd);

// --- file status -----------------------------------------------------------------------------
enum class FileType { kRegular, kDirectory, kSymlink, kOther };
struct FileInfo {
  FileType type = FileType::kOther;
  std::uint64_t size = 0;
  // What identifies the file: device and inode on Linux, volume serial and file index on
  // Windows (0 when the system does not say: same_file is then false).
  std::uint64_t device = 0, inode = 0;
  // Modification and status-change times in nanoseconds since 1970 (whole seconds where the
  // system keeps no more; Windows has no change time: its last write time stands in).
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool regular() const noexcept { return type == FileType::kRegular; }
  bool directory() const noexcept { return type == FileType::kDirectory; }
  bool same_file(const FileInfo& o) const noexcept {
    return (device | inode) != 0 && device == o.device && inode == o.inode;
  }
};
// stat(2) (follow = true) or lstat(2) of a path, fstat(2) of a descriptor.
bool stat_path(const std::string& path, FileInfo& out, bool follow = true);
bool stat_fd(int fd, FileInfo& out);

// --- mappings --------------------------------------------------------------------------------
// A private read-only mapping of the first `n` bytes of `fd`; nullptr when the system refuses.
// populate: fault every page in now (MAP_POPULATE; a file about to be read whole), Linux only.
const void* map_read(int fd, std::size_t n, bool populate = false);
void unmap(const void* p, std::size_t n);
// Gives back the resident pages of [p, p + n) of a mapping from map_read (the whole pages
// inside it): they leave the process's resident set, and a later read faults them in again
// from the file. Nothing else changes. Linux: madvise(MADV_DONTNEED); Windows: the pages
// leave the working set (VirtualUnlock of pages that are not locked).
void release_pages(const void* p, std::size_t n);

// --- locks -----------------------------------------------------------------------------------
// An exclusive lock on the whole file (flock(2) on Linux, LockFileEx on Windows), released by
// unlock_file or closing the descriptor. wait = false: false with errno EWOULDBLOCK when another
// process holds it.
bool lock_file(int fd, bool wait);

// --- paths and directories -------------------------------------------------------------------
// mkdir(2) with mode 0777 & ~umask: 0 or -1 with errno (EEXIST when something is there).
int make_directory(const std::string& path);
// renameat2(2) with RENAME_NOREPLACE (MoveFileExW without replacing on Windows): 0, or -1 with
// errno EEXIST when `to` exists, EXDEV across file systems, EINVAL or ENOSYS where the system
// cannot refuse to replace.
int rename_no_replace(const std::string& from, const std::string& to);
// truncate(2) to `size` bytes: 0 or -1 with errno (Windows refuses while the file is mapped).
int truncate_file(const std::string& path, std::uint64_t size);
// unlink(2): 0 or -1 with errno.
int remove_file(const std::string& path);
// The absolute path with symbolic links resolved (realpath(3)); nullopt with errno when the
// file does not exist.
std::optional<std::string> real_path(const std::string& path);
// The system's path separators: '/' on Linux, '/' and '\\' on Windows.
bool is_path_separator(char c) noexcept;
// mkdtemp(3): `prefix` followed by 6 random characters, made a new directory; nullopt with errno.
std::optional<std::string> make_temp_directory(const std::string& prefix);
// A std::filesystem::path of a UTF-8 string and back. libstdc++ on Windows reads a narrow
// string in the C runtime's code page, not UTF-8, so every layer converts here (char8_t).
std::filesystem::path fs_path(std::string_view utf8);
std::string fs_string(const std::filesystem::path& p);
// The same with '/' as the only separator (a store's keys, listings).
std::string fs_generic_string(const std::filesystem::path& p);
// fnmatch(3) with flags 0: `*` any run of characters (`/` included), `?` one, `[...]` a set
// (`!` or `^` negates, ranges), `\` quotes the next character.
bool glob_match(const char* pattern, const char* text) noexcept;

// --- the process -----------------------------------------------------------------------------
// The program's arguments as UTF-8: argv as it is on Linux; on Windows the UTF-16 command line
// (GetCommandLineW, CommandLineToArgvW) converted, since argv is in the ANSI code page there.
std::vector<std::string> utf8_arguments(int argc, char** argv);
// getenv(3) as UTF-8 (_wgetenv on Windows); nullopt when unset.
std::optional<std::string> environment(const char* name);
// isatty(3) of 0, 1 or 2.
bool is_terminal(int fd) noexcept;
// True when a read of `fd` would not block: input is waiting or has ended (poll(2) with timeout
// 0), or the system cannot tell (an error; always on Windows, whose pipes and consoles have no
// such poll): the caller reads on, as from a file.
bool input_waiting(int fd) noexcept;
// Makes standard output and error carry UTF-8 text to a Windows console (SetConsoleOutputCP);
// nothing on Linux. Bytes to a pipe or file are never changed.
void utf8_console() noexcept;
// Calls `handler` on SIGINT and SIGTERM (Ctrl+C and Ctrl+Break on Windows), system calls restarted
// after it returns on Linux.
void handle_stop_signals(void (*handler)(int)) noexcept;
// The system's page size in bytes.
std::size_t page_size() noexcept;
// Ends the process at once as SIGKILL would (a test hook's "killed in the middle").
[[noreturn]] void kill_self() noexcept;

}  // namespace ilmap::platform
