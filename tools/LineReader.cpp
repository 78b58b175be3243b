// LineReader.cpp - see LineReader.h.
#include "tools/LineReader.h"

#include "support/Platform.h"

#include <cerrno>
#include <cstring>

namespace ilmap::cli {

bool LineReader::fill() {
  if (eof_ || errno_) return false;
  if (before_read_) before_read_();
  for (;;) {
    const long long n = platform::read_some(fd_, buf_, sizeof buf_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      errno_ = errno ? errno : EIO;
      return false;
    }
    refilled_ = true;
    if (n == 0) {
      eof_ = true;
      return false;
    }
    pos_ = 0;
    end_ = static_cast<std::size_t>(n);
    return true;
  }
}

LineReader::Next LineReader::next() {
  line_.clear();
  // The rest of an over-long line reported before: skip it through its newline.
  while (skipping_) {
    if (pos_ == end_ && !fill()) return errno_ ? Next::kError : Next::kEnd;
    const void* nl = std::memchr(buf_ + pos_, '\n', end_ - pos_);
    if (nl) {
      pos_ = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_) + 1;
      skipping_ = false;
    } else {
      pos_ = end_;
    }
  }
  bool any = false;
  for (;;) {
    if (pos_ == end_ && !fill()) {
      if (errno_) return Next::kError;
      return any ? Next::kLine : Next::kEnd;
    }
    any = true;
    const void* nl = std::memchr(buf_ + pos_, '\n', end_ - pos_);
    const std::size_t stop = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - buf_) : end_;
    if (line_.size() + (stop - pos_) > kMaxLine) {
      line_.clear();
      if (nl) {
        pos_ = stop + 1;
      } else {
        pos_ = end_;
        skipping_ = true;
      }
      return Next::kTooLong;
    }
    line_.append(buf_ + pos_, stop - pos_);
    pos_ = nl ? stop + 1 : end_;
    if (nl) return Next::kLine;
  }
}

}  // namespace ilmap::cli
