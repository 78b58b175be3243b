// AtomicFile.h - writing a cache to its output path without ever exposing a partial file or
// destroying what the output path names.
//
// Output rules (docs/usage.md "Output rules of `compile`"):
//   - "-" is standard output: the bytes are written to fd 1.
//   - A symlink is followed to its final target; that target is what gets replaced, the link
//     itself stays.
//   - A target that exists and is neither a regular file nor a directory (a character device
//     such as /dev/null, a FIFO, /dev/stdout) is written THROUGH: opened for writing (no create,
//     no truncate), the bytes written, no temporary file and no rename.
//   - Otherwise (a regular file, or nothing yet) the bytes go to a temporary file in the
//     target's directory, optionally fsync'd, then renamed over the target. On any failure the
//     temporary is removed and an existing target is left untouched. A new file gets
//     0666 & ~umask; a replaced file keeps its mode.
// Temporary files are named "<name>.tmp-XXXXXX", or ".ilmap-tmp-<hash of name>-XXXXXX" when
// that would exceed NAME_MAX. The writer holds flock(LOCK_EX) on its temporary while it lives,
// and SIGINT/SIGTERM/SIGHUP unlink live temporaries (install_temp_cleanup) before the process
// dies with the signal's default action; remove_stale_temps() removes the temporaries a
// SIGKILLed run left for the same output, only when no process holds their lock.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <span>
#include <string>

#include "ilmap/status.h"

namespace ilmap {

enum class OutputKind {
  kStdout,        // "-"
  kMissing,       // nothing there yet: created atomically
  kRegular,       // an existing regular file: replaced atomically
  kWriteThrough,  // an existing device, FIFO, socket: written through
  kDirectory,     // refused
};

struct OutputTarget {
  OutputKind kind = OutputKind::kMissing;
  std::string path;        // the final target after following symlinks ("-" for stdout)
  struct stat st {};       // valid unless kStdout / kMissing
};

// Classifies `path` without opening it (lstat/readlink only, so a FIFO never blocks).
Result<OutputTarget> resolve_output(const std::string& path);

// Writes `bytes` to the resolved target following the rules above.
Status write_output(const OutputTarget& target, std::span<const std::uint8_t> bytes, bool fsync);

// resolve_output + write_output; a directory target is an error.
Status write_file_atomically(const std::string& path, std::span<const std::uint8_t> bytes, bool fsync = true);

// Makes `dir` (and its parents) when missing, then creates and removes a temporary file in it:
// kIo naming the directory and the system's reason (permission denied, not a directory, a
// read-only file system) when a process could not keep files there. For a program that writes
// into a directory much later (`ilmap serve --cache-dir`), so that it says so when it starts.
Status check_writable_directory(const std::string& dir);

// Reads the process umask once (thread-safe; call before starting threads that create files,
// since reading it means setting it) and returns 0666 & ~umask.
mode_t new_file_mode();

// Installs the SIGINT/SIGTERM/SIGHUP (and on Windows SIGBREAK: Ctrl+Break) handlers that unlink
// live temporary files and then re-raise the signal with its default action. Signals the
// process ignores stay ignored. Idempotent.
void install_temp_cleanup();

// The file-name part of the temporary files for `final_path`, without the 6 random characters.
std::string temp_name_prefix(const std::string& final_path);

// Unlinks temporaries of `final_path`'s naming in its directory that no process holds locked
// (left by a killed run). Returns how many were removed. Errors are ignored (best effort).
std::size_t remove_stale_temps(const std::string& final_path);

// A temporary file named like write_file_atomically's for `final_path` (so remove_stale_temps
// finds it after a SIGKILL), for content written piece by piece (a download): locked and
// registered for the signal cleanup while it lives, unlinked by the destructor unless commit()
// moved it into place.
class TempFile {
 public:
  // kIo when the file cannot be created (the directory must exist).
  static Result<TempFile> create(const std::string& final_path);
  TempFile(TempFile&& o) noexcept;
  TempFile& operator=(TempFile&&) = delete;
  TempFile(const TempFile&) = delete;
  ~TempFile();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Appends `bytes` (honouring ILMAP_FAIL_WRITE_AFTER). Returns 0 or an errno value.
  int append(std::span<const std::uint8_t> bytes);
  // Empties the file (a retried download starts again). Returns 0 or an errno value.
  int clear();
  // Gives the file the mode of a new file (0666 & ~umask), optionally fsyncs it, and renames
  // it onto `target` (in the same file system). On failure the temporary stays (and the
  // destructor removes it); `target` is untouched.
  Status commit(const std::string& target, bool fsync);

 private:
  TempFile(std::string path, int fd, int slot) : path_(std::move(path)), fd_(fd), slot_(slot) {}
  std::string path_;
  int fd_ = -1;
  int slot_ = -1;
  bool committed_ = false;
};

}  // namespace ilmap
