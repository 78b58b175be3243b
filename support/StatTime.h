// StatTime.h - a file's modification and change times from its struct stat, to the nanosecond
// where the system keeps them: POSIX's st_mtim/st_ctim, whole seconds on Windows (its C
// runtime's stat has no sub-second times).
#pragma once

#include <sys/stat.h>

#include <ctime>

namespace ilmap {

inline struct timespec stat_mtime(const struct stat& st) noexcept {
#ifdef _WIN32
  return {st.st_mtime, 0};
#else
  return st.st_mtim;
#endif
}

inline struct timespec stat_ctime(const struct stat& st) noexcept {
#ifdef _WIN32
  return {st.st_ctime, 0};
#else
  return st.st_ctim;
#endif
}

}  // namespace ilmap
