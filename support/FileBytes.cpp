// FileBytes.cpp - mmap an input file read-only; fall back to reading it into memory.
#include "support/FileBytes.h"

#include "support/Platform.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace ilmap {
namespace {

// The test hook of FileBytes.h (kShrinkHookEnv).
void shrink_for_test(const std::string& path) {
  if (platform::truncate_file(path, 4096) == 0) return;
  const int marker = platform::open_lock_file(path + ".shrink-wanted");
  if (marker < 0) return;
  platform::close_fd(marker);
  platform::FileInfo st;
  for (int i = 0; i < 400 && platform::stat_path(path, st) && st.size > 4096; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

}  // namespace

FileBytes::FileBytes(FileBytes&& o) noexcept
    : data_(o.data_), size_(o.size_), mapped_(o.mapped_), guard_(std::move(o.guard_)), path_(std::move(o.path_)) {
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
    guard_ = std::move(o.guard_);
    path_ = std::move(o.path_);
    o.data_ = nullptr;
    o.size_ = 0;
    o.mapped_ = false;
  }
  return *this;
}

FileBytes::~FileBytes() { reset(); }

void FileBytes::reset() noexcept {
  guard_.reset();  // unregister before the range can be reused by another mapping
  if (data_) {
    if (mapped_)
      platform::unmap(data_, size_);
    else
      std::free(const_cast<std::uint8_t*>(data_));
  }
  data_ = nullptr;
  size_ = 0;
}

void FileBytes::release_pages() const noexcept {
  if (mapped_) platform::release_pages(data_, size_);
}

void FileBytes::release_pages(const std::uint8_t* begin, const std::uint8_t* end) const noexcept {
  if (mapped_ && begin >= data_ && begin < end && end <= data_ + size_) platform::release_pages(begin, std::size_t(end - begin));
}

Status FileBytes::check() const {
  if (changed()) return {Errc::kIo, path_ + ": input file changed while being read (truncated or rewritten in place)"};
  return {};
}

namespace {

enum class Head { kUnknown, kPortablePdb, kPe, kCache, kMsf };

// The kinds of input ilmap reads (as DebugInput's sniff_input), plus MSF to name it later.
Head classify(const std::uint8_t* h, std::size_t n) {
  if (n >= 4 && std::memcmp(h, "BSJB", 4) == 0) return Head::kPortablePdb;
  if (n >= 2 && h[0] == 'M' && h[1] == 'Z') return Head::kPe;
  if (n >= 8 && std::memcmp(h + 4, "ILMP", 4) == 0) return Head::kCache;
  if (n >= 24 && std::memcmp(h, "Microsoft C/C++ MSF 7.00", 24) == 0) return Head::kMsf;
  if (n >= 24 && std::memcmp(h, "Microsoft MSFZ Container", 24) == 0) return Head::kMsf;  // a .pdz
  return Head::kUnknown;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) platform::close_fd(fd);
  }
};

}  // namespace

Result<FileBytes> FileBytes::open(const std::string& path, std::uint64_t max_size) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  Fd file{platform::open_read(path, platform::kNonBlock)};
  const int fd = file.fd;
  if (fd < 0) return Error{Errc::kIo, format("%s: cannot open: %s", path.c_str(), std::strerror(errno))};
  platform::FileInfo st;
  if (!platform::stat_fd(fd, st)) {
    int e = errno;
    return Error{Errc::kIo, format("%s: cannot stat: %s", path.c_str(), std::strerror(e))};
  }
  if (st.directory()) return Error{Errc::kIo, format("%s: is a directory, expected a file", path.c_str())};
  if (!st.regular()) return Error{Errc::kIo, format("%s: not a regular file", path.c_str())};
  if (st.size > max_size) {
    return Error{Errc::kTooLarge, format("%s: %lld bytes exceeds the input limit of %llu bytes", path.c_str(), static_cast<long long>(st.size), static_cast<unsigned long long>(max_size))};
  }
  // The first bytes decide before anything is mapped.
  std::uint8_t head[32] = {};
  std::size_t head_size = 0;
  while (head_size < sizeof head) {
    const long long n = platform::read_at(fd, head + head_size, sizeof head - head_size, head_size);
    if (n < 0) return Error{Errc::kIo, format("%s: read failed: %s", path.c_str(), std::strerror(errno))};
    if (n == 0) break;
    head_size += static_cast<std::size_t>(n);
  }
  const Head kind = classify(head, head_size);
  if (kind == Head::kUnknown)
    return Error{Errc::kBadMagic, format("%s: not a Portable PDB (BSJB), a Windows PDB (MSF 7.00, MSFZ), a PE (MZ) or an ilmap cache (first bytes %s)", path.c_str(), head_size >= 4 ? "unrecognised" : "missing")};
  FileBytes f;
  f.path_ = path;
  f.size_ = static_cast<std::size_t>(st.size);
  // Every byte of a PDB is read once, front to back: map all pages up front (one call instead
  // of a page fault per 16 pages) when the file is large enough for it to matter. A PE is
  // read the same way when it embeds its PDB; an MSF PDB or a cache is only looked at.
  const bool whole = kind == Head::kPortablePdb || kind == Head::kPe;
  const bool populate = whole && f.size_ >= (std::size_t(1) << 20);
  const void* p = platform::map_read(fd, f.size_, populate);
  if (p) {
    GuardedRange guard(p, f.size_);
    if (guard.valid() || !mapping_guard_installed()) {
      f.data_ = static_cast<const std::uint8_t*>(p);
      f.mapped_ = true;
      f.guard_ = std::move(guard);
      if (const char* hook = std::getenv(kShrinkHookEnv); hook && path == hook) shrink_for_test(path);
      return f;
    }
    platform::unmap(p, f.size_);  // the guard's registry is full: read the file instead
  }
  auto* buf = static_cast<std::uint8_t*>(std::malloc(f.size_));
  if (!buf) return Error{Errc::kIo, format("%s: out of memory reading %zu bytes", path.c_str(), f.size_)};
  std::size_t got = 0;
  while (got < f.size_) {
    const long long n = platform::read_some(fd, buf + got, f.size_ - got);
    if (n <= 0) {
      int e = errno;
      std::free(buf);
      return Error{Errc::kIo, format("%s: read failed: %s", path.c_str(), n == 0 ? "unexpected end of file" : std::strerror(e))};
    }
    got += static_cast<std::size_t>(n);
  }
  f.data_ = buf;
  return f;
}

}  // namespace ilmap
