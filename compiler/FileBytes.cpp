// FileBytes.cpp - mmap an input file read-only; fall back to reading it into memory.
#include "FileBytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ilmap {

FileBytes::FileBytes(FileBytes&& o) noexcept
    : data_(o.data_), size_(o.size_), mapped_(o.mapped_), path_(std::move(o.path_)) {
  o.data_ = nullptr;
  o.size_ = 0;
  o.mapped_ = false;
}

FileBytes& FileBytes::operator=(FileBytes&& o) noexcept {
  if (this != &o) {
    reset();
    data_ = o.data_;
    size_ = o.size_;
    mapped_ = o.mapped_;
    path_ = std::move(o.path_);
    o.data_ = nullptr;
    o.size_ = 0;
    o.mapped_ = false;
  }
  return *this;
}

FileBytes::~FileBytes() { reset(); }

void FileBytes::reset() noexcept {
  if (data_) {
    if (mapped_)
      ::munmap(const_cast<std::uint8_t*>(data_), size_);
    else
      std::free(const_cast<std::uint8_t*>(data_));
  }
  data_ = nullptr;
  size_ = 0;
}

Result<FileBytes> FileBytes::open(const std::string& path, std::uint64_t max_size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{Errc::kIo, format("%s: cannot open: %s", path.c_str(), std::strerror(errno))};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Error{Errc::kIo, format("%s: cannot stat: %s", path.c_str(), std::strerror(e))};
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Error{Errc::kIo, format("%s: is a directory, expected a file", path.c_str())};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{Errc::kIo, format("%s: not a regular file", path.c_str())};
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_size) {
    ::close(fd);
    return Error{Errc::kTooLarge, format("%s: %lld bytes exceeds the input limit of %llu bytes", path.c_str(), static_cast<long long>(st.st_size), static_cast<unsigned long long>(max_size))};
  }
  FileBytes f;
  f.path_ = path;
  f.size_ = static_cast<std::size_t>(st.st_size);
  if (f.size_ == 0) {
    ::close(fd);
    return f;
  }
  // Every byte of a PDB is read once, front to back: map all pages up front (one call instead
  // of a page fault per 16 pages) when the file is large enough for it to matter.
  const int populate = f.size_ >= (std::size_t(1) << 20) ? MAP_POPULATE : 0;
  void* p = ::mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE | populate, fd, 0);
  if (p != MAP_FAILED) {
    f.data_ = static_cast<const std::uint8_t*>(p);
    f.mapped_ = true;
    ::close(fd);
    return f;
  }
  auto* buf = static_cast<std::uint8_t*>(std::malloc(f.size_));
  if (!buf) {
    ::close(fd);
    return Error{Errc::kIo, format("%s: out of memory reading %zu bytes", path.c_str(), f.size_)};
  }
  std::size_t got = 0;
  while (got < f.size_) {
    ssize_t n = ::read(fd, buf + got, f.size_ - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      std::free(buf);
      ::close(fd);
      return Error{Errc::kIo, format("%s: read failed: %s", path.c_str(), n == 0 ? "unexpected end of file" : std::strerror(e))};
    }
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  f.data_ = buf;
  return f;
}

}  // namespace ilmap
