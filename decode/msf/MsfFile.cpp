// MsfFile.cpp - superblock, block map and stream directory of an MSF 7.00 file (MsfFile.rst).
#include "decode/msf/MsfFile.h"

#include <algorithm>
#include <cstring>

#include "support/ByteCursor.h"
#include "decode/msf/MsfFormat.h"

namespace ilmap::msf {
namespace {

std::uint64_t blocks_for(std::uint64_t bytes, std::uint32_t block_size) {
  return (bytes + block_size - 1) / block_size;
}

// Marks blocks as used; the first reuse of a block is an error naming both users.
class BlockUse {
 public:
  explicit BlockUse(std::uint32_t count) : owner_(count, kFree) {}
  // `owner`: a stream index, or kDirectory / kBlockMap.
  Status claim(std::uint32_t block, std::uint32_t owner, const char* what, std::size_t at) {
    if (block == 0 || block >= owner_.size())
      return Status(Errc::kMalformed,
                    format("MSF %s at file offset 0x%zx: block %u is %s (the file has %zu blocks)",
                           what, at, block, block == 0 ? "the superblock" : "past the end",
                           owner_.size()));
    if (owner_[block] != kFree)
      return Status(Errc::kMalformed,
                    format("MSF %s at file offset 0x%zx: block %u is already used by %s (a cycle "
                           "or shared block)",
                           what, at, block, describe(owner_[block]).c_str()));
    owner_[block] = owner;
    return {};
  }
  static constexpr std::uint32_t kFree = 0xFFFFFFFFu;
  static constexpr std::uint32_t kDirectory = 0xFFFFFFFEu;
  static constexpr std::uint32_t kBlockMap = 0xFFFFFFFDu;

 private:
  static std::string describe(std::uint32_t owner) {
    if (owner == kDirectory) return "the stream directory";
    if (owner == kBlockMap) return "the directory's block map";
    return format("stream %u", owner);
  }
  std::vector<std::uint32_t> owner_;
};

}  // namespace

bool MsfFile::has_magic(std::span<const std::uint8_t> bytes) {
  return (bytes.size() >= kMagic.size() && std::equal(kMagic.begin(), kMagic.end(), bytes.begin())) ||
         MsfzFile::has_magic(bytes);
}

namespace {

// Free block map: one bit per block (set = free) in the live copy; FPM blocks repeat every
// block_size blocks (at k * bs + fpm), each covering bs * 8 blocks.
std::uint32_t count_free_blocks(std::span<const std::uint8_t> bytes, const SuperBlock& sb) {
  const std::uint32_t bs = sb.block_size;
  std::uint32_t free_blocks = 0;
  const std::uint64_t per_fpm_block = std::uint64_t(bs) * 8;
  for (std::uint64_t first = 0; first < sb.num_blocks; first += per_fpm_block) {
    const std::uint64_t fpm = (first / per_fpm_block) * bs + sb.free_block_map_block;
    if (fpm >= sb.num_blocks) break;  // trailing FPM blocks may be absent in a short file
    const std::uint8_t* p = bytes.data() + fpm * bs;
    const std::uint64_t n = std::min<std::uint64_t>(per_fpm_block, sb.num_blocks - first);
    for (std::uint64_t i = 0; i < n; ++i) free_blocks += (p[i / 8] >> (i % 8)) & 1u;
  }
  return free_blocks;
}

// The block map: the block numbers of the directory, on blocks listed after the superblock;
// each block claimed in `use`.
Result<std::vector<std::uint32_t>> directory_block_list(std::span<const std::uint8_t> bytes, const SuperBlock& sb,
                                                        BlockUse& use) {
  const std::uint32_t bs = sb.block_size;
  const std::uint64_t dir_blocks = blocks_for(sb.num_directory_bytes, bs);
  const std::uint64_t map_blocks = blocks_for(dir_blocks * 4, bs);
  if (kBlockMapArrayOffset + map_blocks * 4 > bs)
    return Error{Errc::kTooLarge, format("MSF superblock at file offset 0x34: a directory of 0x%x "
                                         "bytes needs %llu block-map blocks, the superblock holds "
                                         "%u", sb.num_directory_bytes,
                                         static_cast<unsigned long long>(map_blocks),
                                         (bs - kBlockMapArrayOffset) / 4)};
  std::vector<std::uint32_t> dir_list;
  dir_list.reserve(static_cast<std::size_t>(dir_blocks));
  for (std::uint64_t m = 0; m < map_blocks; ++m) {
    const std::size_t at = kBlockMapArrayOffset + static_cast<std::size_t>(m) * 4;
    std::uint32_t map_block;
    std::memcpy(&map_block, bytes.data() + at, 4);
    if (Status s = use.claim(map_block, BlockUse::kBlockMap, "block-map address", at); !s)
      return s.error();
    const std::uint64_t here = std::min<std::uint64_t>(bs / 4, dir_blocks - dir_list.size());
    for (std::uint64_t i = 0; i < here; ++i) {
      const std::size_t e = static_cast<std::size_t>(std::uint64_t(map_block) * bs + i * 4);
      std::uint32_t b;
      std::memcpy(&b, bytes.data() + e, 4);
      if (Status s = use.claim(b, BlockUse::kDirectory, "directory block list", e); !s)
        return s.error();
      dir_list.push_back(b);
    }
  }
  return dir_list;
}

}  // namespace

Result<MsfFile> MsfFile::parse(std::span<const std::uint8_t> bytes) {
  if (MsfzFile::has_magic(bytes)) {
    auto z = MsfzFile::parse(bytes);
    if (!z) return z.error();
    MsfFile f;
    f.bytes_ = bytes;
    f.msfz_ = std::move(*z);
    return f;
  }
  const std::size_t prefix = std::min(bytes.size(), kMagic.size());
  if (!std::equal(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(prefix), kMagic.begin()))
    return Error{Errc::kBadMagic, "MSF superblock at file offset 0x0: not an MSF 7.00 file "
                                  "(magic \"Microsoft C/C++ MSF 7.00\" expected)"};
  ByteCursor c(bytes);
  SuperBlock sb;
  if (!c.read(sb))
    return Error{Errc::kTruncated, format("MSF superblock at file offset 0x0: needs %zu bytes, "
                                          "the file has %zu", sizeof(SuperBlock), bytes.size())};
  MsfFile f;
  f.bytes_ = bytes;
  const std::uint32_t bs = sb.block_size;
  if (bs != 512 && bs != 1024 && bs != 2048 && bs != 4096)
    return Error{Errc::kMalformed, format("MSF superblock at file offset 0x20: block size %u is "
                                          "not 512, 1024, 2048 or 4096", bs)};
  f.block_size_ = bs;
  const std::uint64_t need = std::uint64_t(sb.num_blocks) * bs;
  if (sb.num_blocks < 3)
    return Error{Errc::kMalformed, format("MSF superblock at file offset 0x28: %u blocks (at least "
                                          "3: superblock and two free block maps)", sb.num_blocks)};
  if (need > bytes.size())
    return Error{Errc::kTruncated, format("MSF superblock at file offset 0x28: %u blocks of %u bytes "
                                          "need 0x%llx bytes, the file has 0x%zx", sb.num_blocks,
                                          bs, static_cast<unsigned long long>(need), bytes.size())};
  f.block_count_ = sb.num_blocks;
  if (sb.free_block_map_block != 1 && sb.free_block_map_block != 2)
    return Error{Errc::kMalformed, format("MSF superblock at file offset 0x24: free block map block "
                                          "%u is not 1 or 2", sb.free_block_map_block)};
  f.fpm_block_ = sb.free_block_map_block;
  if (sb.num_directory_bytes < 4)
    return Error{Errc::kMalformed, format("MSF superblock at file offset 0x2c: stream directory of "
                                          "%u bytes cannot hold its stream count",
                                          sb.num_directory_bytes)};
  if (sb.num_directory_bytes > need)
    return Error{Errc::kMalformed, format("MSF superblock at file offset 0x2c: stream directory of "
                                          "0x%x bytes is larger than the file's blocks",
                                          sb.num_directory_bytes)};
  f.directory_bytes_ = sb.num_directory_bytes;

  f.free_blocks_ = count_free_blocks(bytes, sb);

  BlockUse use(sb.num_blocks);
  auto listed = directory_block_list(bytes, sb, use);
  if (!listed) return listed.error();
  const std::vector<std::uint32_t>& dir_list = *listed;
  const std::uint64_t dir_blocks = dir_list.size();
  // Gather the directory.
  std::vector<std::uint8_t> dir(static_cast<std::size_t>(dir_blocks) * bs);
  for (std::size_t i = 0; i < dir_list.size(); ++i)
    std::memcpy(dir.data() + i * bs, bytes.data() + std::size_t(dir_list[i]) * bs, bs);
  dir.resize(sb.num_directory_bytes);
  auto dir_file_offset = [&](std::size_t pos) {
    return std::size_t(dir_list[pos / bs]) * bs + pos % bs;
  };
  auto dir_where = [&](std::size_t pos) {
    return format("MSF stream directory offset 0x%zx (file offset 0x%zx)", pos,
                  dir_file_offset(pos));
  };

  ByteCursor d(dir);
  std::uint32_t num_streams = 0;
  (void)d.read(num_streams);  // the directory has at least 4 bytes (checked above)
  if (num_streams > d.remaining() / 4)
    return Error{Errc::kMalformed, format("%s: %u stream sizes do not fit in the %u-byte directory",
                                          dir_where(0).c_str(), num_streams,
                                          sb.num_directory_bytes)};
  f.sizes_.resize(num_streams);
  for (auto& s : f.sizes_) (void)d.read(s);  // fit: checked above
  f.first_block_.reserve(std::size_t(num_streams) + 1);
  for (std::uint32_t i = 0; i < num_streams; ++i) {
    f.first_block_.push_back(static_cast<std::uint32_t>(f.blocks_.size()));
    const std::uint32_t size = f.sizes_[i];
    if (size == kNilStreamSize) continue;
    const std::uint64_t n = blocks_for(size, bs);
    if (n > d.remaining() / 4)
      return Error{Errc::kMalformed,
                   format("%s: stream %u of 0x%x bytes needs %llu block numbers, the directory has "
                          "%zu bytes left", dir_where(d.pos()).c_str(), i, size,
                          static_cast<unsigned long long>(n), d.remaining())};
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::size_t pos = d.pos();
      std::uint32_t b = 0;
      (void)d.read(b);
      if (Status s = use.claim(b, i, "stream directory entry", dir_file_offset(pos)); !s)
        return s.error();
      f.blocks_.push_back(b);
    }
  }
  f.first_block_.push_back(static_cast<std::uint32_t>(f.blocks_.size()));
  if (!d.empty())
    return Error{Errc::kMalformed, format("%s: %zu bytes left over after the last stream's blocks",
                                          dir_where(d.pos()).c_str(), d.remaining())};
  return f;
}

bool MsfFile::has_stream(std::uint32_t index) const {
  if (msfz_) return msfz_->has_stream(index);
  return index < sizes_.size() && sizes_[index] != kNilStreamSize;
}

std::uint32_t MsfFile::stream_size(std::uint32_t index) const {
  if (msfz_) return msfz_->stream_size(index);
  return has_stream(index) ? sizes_[index] : 0;
}

Result<std::vector<std::uint8_t>> MsfFile::read_stream(std::uint32_t index) const {
  if (msfz_) return msfz_->read_stream(index);
  if (!has_stream(index))
    return Error{Errc::kNotFound, index < sizes_.size()
                                      ? format("MSF stream %u is nil", index)
                                      : format("MSF stream %u does not exist (the directory has %zu)",
                                               index, sizes_.size())};
  const std::uint32_t size = sizes_[index];
  std::vector<std::uint8_t> out(size);
  std::size_t done = 0;
  for (std::uint32_t k = first_block_[index]; done < size; ++k) {
    const std::size_t n = std::min<std::size_t>(block_size_, size - done);
    std::memcpy(out.data() + done, bytes_.data() + std::size_t(blocks_[k]) * block_size_, n);
    done += n;
  }
  return out;
}

std::size_t MsfFile::file_offset(std::uint32_t index, std::size_t pos) const {
  if (msfz_) return msfz_->file_offset(index, pos);
  if (!has_stream(index) || pos >= sizes_[index]) return bytes_.size();
  return std::size_t(blocks_[first_block_[index] + pos / block_size_]) * block_size_ +
         pos % block_size_;
}

std::string MsfFile::where(std::uint32_t index, std::size_t pos) const {
  if (msfz_) return msfz_->where(index, pos);
  const std::size_t off = file_offset(index, pos);
  if (off >= bytes_.size()) return format("stream %u offset 0x%zx (end of stream)", index, pos);
  return format("stream %u offset 0x%zx (file offset 0x%zx)", index, pos, off);
}

}  // namespace ilmap::msf
