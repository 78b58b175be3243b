// MsfzFile.h - the MSFZ container (".pdz"): the streams of a PDB kept whole, in fragments that
// are either stored as they are or cut out of zstd-compressed chunks.
//
// Layout (microsoft/pdb-rs docs/pdb/msfz.md, read, not copied; all little endian):
//   header   at 0, 80 bytes: 32-byte signature "Microsoft MSFZ Container\r\n\x1aALD\0\0",
//            u64 version (0), u64 stream directory offset, u64 chunk table offset,
//            u32 stream count, u32 directory compression (0 none, 1 zstd), u32 directory size
//            on disk, u32 directory size unpacked, u32 chunk count, u32 chunk table size;
//   chunk table: 20 bytes per chunk: u64 file offset, u32 compression, u32 size on disk,
//            u32 size unpacked. The unpacked chunks, in table order, form one byte space;
//   directory: per stream, 0xFFFFFFFF (a nil stream), or fragments {u32 size != 0, u64 location}
//            ended by a u32 0. Location bit 63 clear: the bytes lie at file offset bits 0-47
//            (bits 48-62 zero); set: they start at byte bits 0-31 of chunk bits 32-62 of the
//            chunk space and may run on into the next chunks.
// Checked once at parse, before anything is unpacked: the header's sizes and counts against
// each other and the file; every chunk and uncompressed fragment inside the file, none of them
// overlapping each other, the header, the directory or the chunk table; every chunk's unpacked
// size possible for its packed size (a zstd block header of 3 bytes carries at most 128 KiB,
// and a frame that records its size must record this one) and all chunks together within
// kMaxUnpacked; every compressed fragment inside the chunk space and no two overlapping; every
// stream under 4 GiB; no directory bytes left over. A chunk is unpacked once, when a stream
// first needs it, into exactly its declared size. Errors name the structure and the file
// offset (or chunk and offset) that failed.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::msf {

class MsfzFile {
 public:
  // All chunks together unpack to at most max(64 MiB, 64 x the file size), and never more than
  // 4 GiB (the largest input file ilmap reads): a .pdz holds no more than the .pdb it stands for.
  static std::uint64_t max_unpacked(std::size_t file_size);

  // `bytes` is the whole file; they must outlive the object. Codes: kBadMagic (no MSFZ
  // signature), kBadVersion (version not 0), kTruncated (a structure past the end of the file),
  // kMalformed (sizes, counts, offsets or fragments that break the rules above), kTooLarge
  // (chunks beyond max_unpacked, a stream of 4 GiB or more), kUnsupported (a compression other
  // than none or zstd).
  static Result<std::shared_ptr<const MsfzFile>> parse(std::span<const std::uint8_t> bytes);
  static bool has_magic(std::span<const std::uint8_t> bytes);

  std::uint32_t stream_count() const { return static_cast<std::uint32_t>(streams_.size()); }
  bool has_stream(std::uint32_t index) const;
  std::uint32_t stream_size(std::uint32_t index) const;  // 0 for nil or absent streams
  std::uint32_t chunk_count() const { return static_cast<std::uint32_t>(chunks_.size()); }
  std::uint32_t fragment_count() const { return static_cast<std::uint32_t>(fragments_.size()); }
  // Chunks unpacked so far (each once).
  std::uint32_t chunks_unpacked() const;
  // The stream's bytes, unpacking the chunks it needs that are not yet unpacked (kNotFound for
  // an absent or nil stream; kMalformed when a chunk does not unpack to its declared size).
  Result<std::vector<std::uint8_t>> read_stream(std::uint32_t index) const;
  // "stream 3 offset 0x40 (chunk 1 offset 0x2a0)" or "(file offset 0x1040)", for errors.
  std::string where(std::uint32_t index, std::size_t pos) const;
  // File offset of stream byte `pos` when it lies in an uncompressed fragment, else the file size.
  std::size_t file_offset(std::uint32_t index, std::size_t pos) const;

  MsfzFile() = default;
  MsfzFile(const MsfzFile&) = delete;
  MsfzFile& operator=(const MsfzFile&) = delete;

 private:
  struct Chunk {
    std::uint64_t file_offset;
    std::uint32_t compression;
    std::uint32_t packed_size;
    std::uint32_t size;
    std::uint64_t space_offset;  // where its unpacked bytes start in the chunk space
  };
  struct Fragment {
    std::uint32_t size;
    bool compressed;
    std::uint64_t offset;  // file offset, or offset in the chunk space
  };
  struct Stream {
    bool nil;
    std::uint32_t size;
    std::uint32_t first_fragment;  // fragments [first_fragment, next stream's)
  };
  class Parser;

  Status unpack(std::uint32_t chunk) const;  // caller holds mutex_
  // The chunk holding byte `space` of the chunk space (space < the space's size).
  std::uint32_t chunk_at(std::uint64_t space) const;

  std::span<const std::uint8_t> bytes_;
  std::vector<Chunk> chunks_;
  std::vector<Fragment> fragments_;
  std::vector<Stream> streams_;
  mutable std::mutex mutex_;                                // guards unpacked_
  mutable std::vector<std::vector<std::uint8_t>> unpacked_;  // per chunk; empty until needed
  mutable std::vector<bool> done_;
};

}  // namespace ilmap::msf
