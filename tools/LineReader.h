// LineReader.h - bounded reading of query lines from a file descriptor (lookup --batch).
//
// std::getline grows a string for as long as a line goes on: `lookup --batch < /dev/zero`
// would take all memory. This reader keeps at most kMaxLine bytes of a line; a longer line is
// reported as soon as it passes the cap and the rest of it (up to its newline) is skipped, so
// memory stays bounded (a 64 KiB chunk buffer plus one line) whatever the input.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace ilmap::cli {

class LineReader {
 public:
  static constexpr std::size_t kMaxLine = 65536;  // bytes, without the newline
  enum class Next { kLine, kTooLong, kEnd, kError };

  // `before_blocking_read` runs before each read(2) that may wait (lookup flushes its
  // answers there, so an interactive driver sees every answer before sending more).
  LineReader(int fd, std::function<void()> before_blocking_read)
      : fd_(fd), before_read_(std::move(before_blocking_read)) {}

  // The next line (without its newline, last line without one included) in line().
  Next next();
  const std::string& line() const { return line_; }
  int error() const { return errno_; }  // errno of a failed read (kError)
  // True if a read(2) happened since the last call (new input arrived from the driver).
  bool take_refilled() {
    const bool r = refilled_;
    refilled_ = false;
    return r;
  }

 private:
  bool fill();  // false at end of input or on error

  int fd_;
  std::function<void()> before_read_;
  char buf_[65536];
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false, skipping_ = false, refilled_ = false;
  int errno_ = 0;
  std::string line_;
};

}  // namespace ilmap::cli
