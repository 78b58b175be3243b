// MsfFile.h - the MSF 7.00 container: superblock, free block map, stream directory, streams.
//
// An MSF file is a little file system of fixed-size blocks (LLVM docs/PDB/MsfFile.rst): block 0
// holds the superblock, whose block-map blocks list the blocks of the stream directory, which in
// turn lists every stream's size and blocks. Streams are gathered from their blocks on request.
// Validated once at parse: every block number lies inside the file and is used at most once
// (which rules out cycles such as a directory listing its own block map, and bounds the total
// size of all streams by the file size), no stream runs past the directory's block list, and the
// directory has no bytes left over. Errors name the structure and the file offset.
//
// The same interface reads an MSFZ file (a ".pdz", MsfzFile.h): parse() takes either container,
// and the stream accessors answer from whichever it found, so the PDB streams above (PDB info,
// DBI, modules, names) are read the same way from both. The block facts are 0 for MSFZ.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ilmap/status.h"
#include "decode/msf/MsfzFile.h"

namespace ilmap::msf {

class MsfFile {
 public:
  // `bytes` is the whole file; they must outlive the MsfFile (it keeps a view). Codes: kBadMagic
  // (not MSF 7.00), kTruncated (file shorter than its blocks), kMalformed (bad block size, block
  // numbers, sizes, reused blocks, leftover directory bytes), kTooLarge (directory too big for the
  // superblock's block-map array); an MSFZ file gives MsfzFile::parse's codes.
  static Result<MsfFile> parse(std::span<const std::uint8_t> bytes);

  // True when `bytes` starts with the MSF 7.00 or the MSFZ signature.
  static bool has_magic(std::span<const std::uint8_t> bytes);

  // The container: "MSF 7.00" or "MSFZ" (a .pdz; `msfz()` then has its chunk facts).
  bool is_msfz() const { return msfz_ != nullptr; }
  const char* container_name() const { return msfz_ ? "MSFZ" : "MSF 7.00"; }
  const MsfzFile* msfz() const { return msfz_.get(); }

  std::uint32_t block_size() const { return block_size_; }
  std::uint32_t block_count() const { return block_count_; }
  std::uint32_t free_block_map_block() const { return fpm_block_; }
  std::uint32_t directory_bytes() const { return directory_bytes_; }
  // Blocks marked free in the live free block map (bits past the file's blocks ignored).
  std::uint32_t free_block_count() const { return free_blocks_; }

  std::uint32_t stream_count() const {
    return msfz_ ? msfz_->stream_count() : static_cast<std::uint32_t>(sizes_.size());
  }
  // False for indices past the directory and for nil streams (size 0xFFFFFFFF).
  bool has_stream(std::uint32_t index) const;
  // Size in bytes (0 for a nil or absent stream).
  std::uint32_t stream_size(std::uint32_t index) const;
  // The stream's bytes gathered from its blocks (kNotFound for an absent or nil stream).
  Result<std::vector<std::uint8_t>> read_stream(std::uint32_t index) const;
  // File offset of byte `pos` of stream `index` (pos < stream_size(index)), else the file size
  // (also for a byte of an MSFZ compressed chunk, which has none).
  std::size_t file_offset(std::uint32_t index, std::size_t pos) const;
  // "stream 3 offset 0x40 (file offset 0x3040)", for error messages.
  std::string where(std::uint32_t index, std::size_t pos) const;

 private:
  std::span<const std::uint8_t> bytes_;
  std::shared_ptr<const MsfzFile> msfz_;     // set for an MSFZ file: the streams come from it
  std::uint32_t block_size_ = 0;
  std::uint32_t block_count_ = 0;
  std::uint32_t fpm_block_ = 0;
  std::uint32_t directory_bytes_ = 0;
  std::uint32_t free_blocks_ = 0;
  std::vector<std::uint32_t> sizes_;         // per stream; kNilStreamSize kept as is
  std::vector<std::uint32_t> first_block_;   // per stream + 1: index into blocks_
  std::vector<std::uint32_t> blocks_;        // every stream's block numbers, in stream order
};

}  // namespace ilmap::msf
