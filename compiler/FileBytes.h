// FileBytes.h - read-only access to an input file's bytes (mmap, or read() as a fallback).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ilmap/status.h"

namespace ilmap {

class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(FileBytes&& o) noexcept;
  FileBytes& operator=(FileBytes&& o) noexcept;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes();

  // Opens `path`; a directory, a missing file or a file over `max_size` bytes is an error.
  static Result<FileBytes> open(const std::string& path, std::uint64_t max_size = kDefaultMaxSize);

  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

  static constexpr std::uint64_t kDefaultMaxSize = std::uint64_t(4) << 30;

 private:
  void reset() noexcept;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  std::string path_;
};

}  // namespace ilmap
