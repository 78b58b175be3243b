// ReleaseWindow.h - when the point encoder gives back the pages of the input it has read
// (docs/architecture.md, "Memory of a compile").
//
// The encoder reads each method's sequence-point blob once, in row order; compilers write the
// blobs in that order, so the reads move forward through the #Blob heap. The window follows
// them: once the span read since the last release reaches `step` bytes past what was given back
// already, that span is handed out to be released. A read behind the span, or one that jumps
// far ahead, starts a new span. What was given back only moves forward, at least `step` bytes at
// a time, so a window hands out at most (input size / step) ranges whatever the order of the
// reads: a hostile order (rows that alternate between distant blobs) costs a few page faults,
// never a release per row.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace ilmap {

class ReleaseWindow {
 public:
  explicit ReleaseWindow(std::size_t step) : step_(step) {}

  // [b, e) was read. Returns the range to give back now, or an empty span.
  std::span<const std::uint8_t> read(const std::uint8_t* b, const std::uint8_t* e) {
    if (!lo_ || b < lo_ || std::size_t(e - lo_) > 2 * step_) {
      lo_ = b;
      hi_ = e;
    } else {
      hi_ = std::max(hi_, e);
    }
    const std::uint8_t* const from = released_ ? std::max(lo_, released_) : lo_;
    if (hi_ <= from || std::size_t(hi_ - from) < step_) return {};
    released_ = lo_ = hi_;
    return {from, hi_};
  }

 private:
  std::size_t step_;
  const std::uint8_t *lo_ = nullptr, *hi_ = nullptr, *released_ = nullptr;
};

}  // namespace ilmap
