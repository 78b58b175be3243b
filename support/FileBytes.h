// FileBytes.h - read-only access to an input file's bytes (mmap, or read() as a fallback).
//
// Inputs are Portable PDBs, PEs, Windows (MSF) PDBs (to name them in errors) and ilmap caches:
// the first bytes are read with pread and checked before the file is mapped, so a huge file of
// anything else is refused at the cost of one small read (never mapped nor pre-faulted). A
// FIFO or device is refused without blocking. The mapping is registered with the SIGBUS guard
// (ilmap/mapping_guard.h): if the file shrinks while it is read, the reads past its new end
// see zeros and changed() turns true; callers check it after decoding (check()).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ilmap/mapping_guard.h"
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

  // Opens `path`; a directory, a FIFO or other non-regular file, a missing file, a file over
  // `max_size` bytes, or one whose first bytes are not BSJB, MZ, the ilmap cache header or
  // the MSF signature (kBadMagic, "not a Portable PDB (BSJB), a PE (MZ) or an ilmap cache")
  // is an error.
  static Result<FileBytes> open(const std::string& path, std::uint64_t max_size = kDefaultMaxSize);

  std::span<const std::uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }
  // True once the SIGBUS guard replaced a page of the mapping (the file shrank while mapped):
  // what was decoded from it since may be wrong.
  bool changed() const noexcept { return guard_.changed(); }
  // kIo "PATH: input file changed while being read" when changed(), else ok.
  Status check() const;
  // Gives the mapped pages back to the system once they have been read (a build's input after
  // its points are encoded): what is read later is faulted in again from the file. Nothing for
  // a file that was read into memory.
  void release_pages() const noexcept;
  // The same for the whole pages inside [begin, end), a range of bytes().
  void release_pages(const std::uint8_t* begin, const std::uint8_t* end) const noexcept;

  // Test hook: when the environment variable ILMAP_TEST_SHRINK_INPUT names the path being
  // opened, the file is truncated to 4096 bytes right after it is mapped (a deterministic
  // "input shrank while being read" for tests/cli). Where the process cannot shorten a file it
  // maps (Windows), it creates PATH.shrink-wanted instead and waits up to 20 s for someone else
  // to (tests/windows/guard.sh: a Linux `truncate` under Wine).
  static constexpr const char* kShrinkHookEnv = "ILMAP_TEST_SHRINK_INPUT";

  static constexpr std::uint64_t kDefaultMaxSize = std::uint64_t(4) << 30;

 private:
  void reset() noexcept;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  GuardedRange guard_;
  std::string path_;
};

}  // namespace ilmap
