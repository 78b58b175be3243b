// MsfzFile.cpp - header, chunk table and stream directory of an MSFZ file, and streams gathered
// from its fragments (layout and checks in MsfzFile.h).
#include "decode/msf/MsfzFile.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>

#include "support/ByteCursor.h"

namespace ilmap::msf {
namespace {

constexpr std::uint8_t kMsfzMagic[32] = {'M', 'i', 'c', 'r', 'o', 's', 'o', 'f', 't', ' ', 'M',
                                         'S', 'F', 'Z', ' ', 'C', 'o', 'n', 't', 'a', 'i', 'n',
                                         'e', 'r', '\r', '\n', 0x1a, 'A', 'L', 'D', 0, 0};
constexpr std::size_t kHeaderSize = 80;
constexpr std::size_t kChunkEntrySize = 20;
constexpr std::uint32_t kCompressionNone = 0;
constexpr std::uint32_t kCompressionZstd = 1;
constexpr std::uint32_t kNil = 0xFFFFFFFFu;
constexpr std::uint64_t kCompressedBit = 1ull << 63;
constexpr std::uint64_t kFileOffsetMask = (1ull << 48) - 1;
// A zstd block header is 3 bytes and a block holds at most 128 KiB (zstd_compression_format.md,
// "Blocks"), so a frame of n bytes unpacks to less than (n / 3 + 1) * 128 KiB.
constexpr std::uint64_t kZstdMaxBlock = 128 * 1024;

std::uint64_t le64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
std::uint32_t le32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

const char* compression_name(std::uint32_t c) {
  return c == kCompressionNone ? "none" : c == kCompressionZstd ? "zstd" : c == 2 ? "deflate" : "unknown";
}

// Unpacks `packed` (compression `c`) into exactly `out.size()` bytes; "" on success, else why.
std::string unpack_into(std::uint32_t c, std::span<const std::uint8_t> packed, std::span<std::uint8_t> out) {
  if (c == kCompressionNone) {
    std::memcpy(out.data(), packed.data(), out.size());  // sizes equal: checked at parse
    return {};
  }
  const std::size_t got = ZSTD_decompress(out.data(), out.size(), packed.data(), packed.size());
  if (ZSTD_isError(got)) return ZSTD_getErrorName(got);
  if (got != out.size()) return format("it unpacks to %zu bytes", got);
  return {};
}

// Whether `size` bytes can come out of `packed` (compression `c`): "" when they can, else why.
std::string check_ratio(std::uint32_t c, std::span<const std::uint8_t> packed, std::uint64_t size) {
  if (c == kCompressionNone)
    return packed.size() == size ? std::string() : format("stored uncompressed in %zu bytes for %llu",
                                                          packed.size(), static_cast<unsigned long long>(size));
  if (size > (packed.size() / 3 + 1) * kZstdMaxBlock)
    return format("%llu bytes cannot come out of %zu bytes of zstd (at most 128 KiB per 3-byte block)",
                  static_cast<unsigned long long>(size), packed.size());
  return {};
}

// A zstd frame's header: a frame that records its content size must record `size`.
std::string check_frame(std::uint32_t c, std::span<const std::uint8_t> packed, std::uint64_t size) {
  if (c == kCompressionNone) return {};
  const unsigned long long recorded = ZSTD_getFrameContentSize(packed.data(), packed.size());
  if (recorded == ZSTD_CONTENTSIZE_ERROR) return "not a zstd frame";
  if (recorded != ZSTD_CONTENTSIZE_UNKNOWN && recorded != size)
    return format("its zstd frame records %llu bytes, not %llu", recorded, static_cast<unsigned long long>(size));
  return {};
}

struct Range {
  std::uint64_t begin, end;
  std::string what;
};

// The first two ranges that overlap, as an error message; "" when none do.
std::string first_overlap(std::vector<Range>& ranges, const char* space) {
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].begin < ranges[i - 1].end)
      return format("%s at %s 0x%llx overlaps %s (0x%llx-0x%llx)", ranges[i].what.c_str(), space,
                    static_cast<unsigned long long>(ranges[i].begin), ranges[i - 1].what.c_str(),
                    static_cast<unsigned long long>(ranges[i - 1].begin),
                    static_cast<unsigned long long>(ranges[i - 1].end));
  return {};
}

}  // namespace

bool MsfzFile::has_magic(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= sizeof kMsfzMagic && std::memcmp(bytes.data(), kMsfzMagic, sizeof kMsfzMagic) == 0;
}

std::uint64_t MsfzFile::max_unpacked(std::size_t file_size) {
  return std::min<std::uint64_t>(std::max<std::uint64_t>(64ull << 20, 64ull * file_size), 4ull << 30);
}

class MsfzFile::Parser {
 public:
  Parser(MsfzFile& f, std::span<const std::uint8_t> bytes) : f_(f), bytes_(bytes) {}

  Status run() {
    if (!has_magic(bytes_))
      return Status(Errc::kBadMagic, "MSFZ header at file offset 0x0: no \"Microsoft MSFZ Container\" signature");
    if (bytes_.size() < kHeaderSize)
      return Status(Errc::kTruncated, format("MSFZ header at file offset 0x0: needs %zu bytes, the file has %zu",
                                             kHeaderSize, bytes_.size()));
    const std::uint8_t* h = bytes_.data();
    const std::uint64_t version = le64(h + 32);
    if (version != 0)
      return Status(Errc::kBadVersion, format("MSFZ header at file offset 0x20: version %llu (only 0 is read)",
                                              static_cast<unsigned long long>(version)));
    dir_offset_ = le64(h + 40);
    table_offset_ = le64(h + 48);
    num_streams_ = le32(h + 56);
    dir_compression_ = le32(h + 60);
    dir_packed_ = le32(h + 64);
    dir_size_ = le32(h + 68);
    num_chunks_ = le32(h + 72);
    table_size_ = le32(h + 76);
    if (Status s = read_chunk_table(); !s) return s;
    std::vector<std::uint8_t> dir;
    if (Status s = read_directory(dir); !s) return s;
    if (Status s = parse_directory(dir); !s) return s;
    if (Status s = check_overlaps(); !s) return s;
    return check_chunk_frames();
  }

 private:
  // [offset, offset + size) inside the file, else a kTruncated error naming `what` at `field`.
  Status in_file(std::uint64_t offset, std::uint64_t size, const std::string& what, std::size_t field) const {
    if (offset > bytes_.size() || size > bytes_.size() - offset)
      return Status(Errc::kTruncated, format("%s (field at file offset 0x%zx): 0x%llx bytes at file offset 0x%llx "
                                             "run past the end of the file (0x%zx bytes)", what.c_str(), field,
                                             static_cast<unsigned long long>(size),
                                             static_cast<unsigned long long>(offset), bytes_.size()));
    return {};
  }

  Status read_chunk_table() {
    if (std::uint64_t(num_chunks_) * kChunkEntrySize != table_size_)
      return Status(Errc::kMalformed, format("MSFZ header at file offset 0x48: %u chunks need a chunk table of %llu "
                                             "bytes, the header says %u", num_chunks_,
                                             static_cast<unsigned long long>(std::uint64_t(num_chunks_) * kChunkEntrySize),
                                             table_size_));
    // No chunks: the writer may not have written the table's offset (pdb-rs reads nothing then).
    if (table_size_) {
      if (Status s = in_file(table_offset_, table_size_, "MSFZ chunk table", 0x30); !s) return s;
    }
    ranges_.push_back({0, kHeaderSize, "the MSFZ header"});
    if (table_size_) ranges_.push_back({table_offset_, table_offset_ + table_size_, "the chunk table"});
    const std::uint64_t cap = max_unpacked(bytes_.size());
    std::uint64_t space = 0;
    f_.chunks_.reserve(num_chunks_);  // 20 bytes of the file per chunk: bounded by the file
    for (std::uint32_t i = 0; i < num_chunks_; ++i) {
      const std::size_t at = static_cast<std::size_t>(table_offset_) + std::size_t(i) * kChunkEntrySize;
      const std::uint8_t* e = bytes_.data() + at;
      Chunk c{le64(e), le32(e + 8), le32(e + 12), le32(e + 16), space};
      const std::string what = format("MSFZ chunk %u (chunk table entry at file offset 0x%zx)", i, at);
      if (c.compression != kCompressionNone && c.compression != kCompressionZstd)
        return Status(Errc::kUnsupported, format("%s: compression %u (%s); ilmap reads none (0) and zstd (1)",
                                                 what.c_str(), c.compression, compression_name(c.compression)));
      if (c.size == 0 || c.packed_size == 0)
        return Status(Errc::kMalformed, format("%s: a chunk of %u bytes packed in %u bytes (neither may be 0)",
                                               what.c_str(), c.size, c.packed_size));
      if (Status s = in_file(c.file_offset, c.packed_size, what, at); !s) return s;
      const auto packed = bytes_.subspan(static_cast<std::size_t>(c.file_offset), c.packed_size);
      if (std::string why = check_ratio(c.compression, packed, c.size); !why.empty())
        return Status(Errc::kMalformed, format("%s: unpacked size %u: %s", what.c_str(), c.size, why.c_str()));
      space += c.size;
      if (space > cap)
        return Status(Errc::kTooLarge, format("%s: chunks 0-%u unpack to %llu bytes, beyond the limit of %llu "
                                              "(max(64 MiB, 64 x the file size), at most 4 GiB)", what.c_str(), i,
                                              static_cast<unsigned long long>(space),
                                              static_cast<unsigned long long>(cap)));
      ranges_.push_back({c.file_offset, c.file_offset + c.packed_size, format("chunk %u", i)});
      f_.chunks_.push_back(c);
    }
    space_size_ = space;
    return {};
  }

  Status read_directory(std::vector<std::uint8_t>& dir) {
    const std::string what = "MSFZ stream directory";
    if (dir_compression_ != kCompressionNone && dir_compression_ != kCompressionZstd)
      return Status(Errc::kUnsupported, format("MSFZ header at file offset 0x3c: stream directory compression %u "
                                               "(%s); ilmap reads none (0) and zstd (1)", dir_compression_,
                                               compression_name(dir_compression_)));
    if (Status s = in_file(dir_offset_, dir_packed_, what, 0x28); !s) return s;
    if (dir_packed_) ranges_.push_back({dir_offset_, dir_offset_ + dir_packed_, "the stream directory"});
    if (num_streams_ == 0)
      return Status(Errc::kMalformed, "MSFZ header at file offset 0x38: 0 streams (at least 1)");
    if (num_streams_ > dir_size_ / 4)
      return Status(Errc::kMalformed, format("MSFZ header at file offset 0x38: %u streams need at least %llu "
                                             "directory bytes, the directory has %u", num_streams_,
                                             static_cast<unsigned long long>(std::uint64_t(num_streams_) * 4), dir_size_));
    const auto packed = bytes_.subspan(static_cast<std::size_t>(dir_offset_), dir_packed_);
    std::string why = check_ratio(dir_compression_, packed, dir_size_);
    if (why.empty()) why = check_frame(dir_compression_, packed, dir_size_);
    if (!why.empty())
      return Status(Errc::kMalformed, format("MSFZ stream directory at file offset 0x%llx: unpacked size %u: %s",
                                             static_cast<unsigned long long>(dir_offset_), dir_size_, why.c_str()));
    if (dir_size_ > max_unpacked(bytes_.size()))
      return Status(Errc::kTooLarge, format("MSFZ stream directory at file offset 0x%llx: %u bytes unpacked, beyond "
                                            "the limit", static_cast<unsigned long long>(dir_offset_), dir_size_));
    dir.resize(dir_size_);
    if (std::string why = unpack_into(dir_compression_, packed, dir); !why.empty())
      return Status(Errc::kMalformed, format("MSFZ stream directory at file offset 0x%llx: does not unpack to its %u "
                                             "bytes: %s", static_cast<unsigned long long>(dir_offset_), dir_size_,
                                             why.c_str()));
    return {};
  }

  // "MSFZ stream directory offset 0x1c (file offset 0x2c7)", the file offset when it is stored plain.
  std::string dir_where(std::size_t pos) const {
    if (dir_compression_ == kCompressionNone)
      return format("MSFZ stream directory offset 0x%zx (file offset 0x%llx)", pos,
                    static_cast<unsigned long long>(dir_offset_ + pos));
    return format("MSFZ stream directory offset 0x%zx (unpacked)", pos);
  }

  Status parse_directory(std::span<const std::uint8_t> dir) {
    ByteCursor d(dir);
    f_.streams_.reserve(num_streams_);  // 4 directory bytes each: checked
    for (std::uint32_t i = 0; i < num_streams_; ++i) {
      Stream s{false, 0, static_cast<std::uint32_t>(f_.fragments_.size())};
      std::uint32_t size = 0;
      const std::size_t first = d.pos();
      if (!d.read(size))
        return Status(Errc::kTruncated, format("%s: stream %u of %u: the directory ends (it has %zu bytes)",
                                               dir_where(first).c_str(), i, num_streams_, dir.size()));
      if (size == kNil) {
        s.nil = true;
        f_.streams_.push_back(s);
        continue;
      }
      std::uint64_t total = 0;
      while (size != 0) {
        const std::size_t at = d.pos() - 4;
        if (size == kNil)
          return Status(Errc::kMalformed, format("%s: stream %u: fragment size 0xffffffff after its first fragment",
                                                 dir_where(at).c_str(), i));
        std::uint64_t location = 0;
        if (!d.read(location))
          return Status(Errc::kTruncated, format("%s: stream %u: fragment location past the end of the directory",
                                                 dir_where(at).c_str(), i));
        if (Status st = add_fragment(i, size, location, at); !st) return st;
        total += size;
        if (total >= kNil)
          return Status(Errc::kTooLarge, format("%s: stream %u: fragments of 0x%llx bytes (a stream is read whole and "
                                                "must stay under 4 GiB)", dir_where(at).c_str(), i,
                                                static_cast<unsigned long long>(total)));
        if (!d.read(size))
          return Status(Errc::kTruncated, format("%s: stream %u: the directory ends before the 0 that ends its "
                                                 "fragments", dir_where(d.pos()).c_str(), i));
      }
      s.size = static_cast<std::uint32_t>(total);
      f_.streams_.push_back(s);
    }
    if (!d.empty())
      return Status(Errc::kMalformed, format("%s: %zu bytes left over after the last of %u streams",
                                             dir_where(d.pos()).c_str(), d.remaining(), num_streams_));
    return {};
  }

  Status add_fragment(std::uint32_t stream, std::uint32_t size, std::uint64_t location, std::size_t at) {
    Fragment fr{size, (location & kCompressedBit) != 0, 0};
    if (!fr.compressed) {
      if (location & ~kFileOffsetMask)
        return Status(Errc::kMalformed, format("%s: stream %u: uncompressed fragment location 0x%016llx has "
                                               "reserved bits 48-62 set", dir_where(at).c_str(), stream,
                                               static_cast<unsigned long long>(location)));
      fr.offset = location;
      if (Status s = in_file(fr.offset, size, format("MSFZ stream %u uncompressed fragment", stream), 0);
          !s)
        return Status(s.code(), format("%s: %s", dir_where(at).c_str(), s.message().c_str()));
      ranges_.push_back({fr.offset, fr.offset + size, format("stream %u's uncompressed fragment", stream)});
    } else {
      const std::uint32_t chunk = static_cast<std::uint32_t>(location >> 32) & 0x7FFFFFFFu;
      const std::uint32_t within = static_cast<std::uint32_t>(location);
      if (chunk >= f_.chunks_.size() || within >= f_.chunks_[chunk].size)
        return Status(Errc::kMalformed,
                      format("%s: stream %u: compressed fragment at chunk %u offset 0x%x is outside the chunks "
                             "(%zu chunks%s)", dir_where(at).c_str(), stream, chunk, within, f_.chunks_.size(),
                             chunk < f_.chunks_.size() ? format(", chunk %u unpacks to 0x%x bytes", chunk,
                                                                f_.chunks_[chunk].size).c_str() : ""));
      fr.offset = f_.chunks_[chunk].space_offset + within;
      if (size > space_size_ - fr.offset)
        return Status(Errc::kMalformed,
                      format("%s: stream %u: compressed fragment of 0x%x bytes at chunk %u offset 0x%x runs past the "
                             "last chunk (the chunks unpack to 0x%llx bytes)", dir_where(at).c_str(), stream, size,
                             chunk, within, static_cast<unsigned long long>(space_size_)));
      space_ranges_.push_back({fr.offset, fr.offset + size,
                               format("stream %u's fragment (chunk %u offset 0x%x)", stream, chunk, within)});
    }
    f_.fragments_.push_back(fr);
    return {};
  }

  // After the overlap checks, so that a chunk placed on another structure is named as such.
  Status check_chunk_frames() const {
    for (std::size_t i = 0; i < f_.chunks_.size(); ++i) {
      const Chunk& c = f_.chunks_[i];
      const auto packed = bytes_.subspan(static_cast<std::size_t>(c.file_offset), c.packed_size);
      if (std::string why = check_frame(c.compression, packed, c.size); !why.empty())
        return Status(Errc::kMalformed, format("MSFZ chunk %zu (chunk table entry at file offset 0x%llx): unpacked "
                                               "size %u: %s", i,
                                               static_cast<unsigned long long>(table_offset_ + i * kChunkEntrySize),
                                               c.size, why.c_str()));
    }
    return {};
  }

  Status check_overlaps() {
    if (std::string o = first_overlap(ranges_, "file offset"); !o.empty())
      return Status(Errc::kMalformed, "MSFZ: " + o);
    if (std::string o = first_overlap(space_ranges_, "unpacked chunk offset"); !o.empty())
      return Status(Errc::kMalformed, "MSFZ: " + o);
    return {};
  }

  MsfzFile& f_;
  std::span<const std::uint8_t> bytes_;
  std::uint64_t dir_offset_ = 0, table_offset_ = 0, space_size_ = 0;
  std::uint32_t num_streams_ = 0, dir_compression_ = 0, dir_packed_ = 0, dir_size_ = 0, num_chunks_ = 0,
                table_size_ = 0;
  std::vector<Range> ranges_;        // file ranges of the header, tables, chunks, plain fragments
  std::vector<Range> space_ranges_;  // chunk-space ranges of compressed fragments
};

Result<std::shared_ptr<const MsfzFile>> MsfzFile::parse(std::span<const std::uint8_t> bytes) {
  auto f = std::make_shared<MsfzFile>();
  f->bytes_ = bytes;
  Parser p(*f, bytes);
  if (Status s = p.run(); !s) return s.error();
  f->unpacked_.resize(f->chunks_.size());
  f->done_.assign(f->chunks_.size(), false);
  return std::shared_ptr<const MsfzFile>(std::move(f));
}

bool MsfzFile::has_stream(std::uint32_t index) const {
  return index < streams_.size() && !streams_[index].nil;
}

std::uint32_t MsfzFile::stream_size(std::uint32_t index) const {
  return has_stream(index) ? streams_[index].size : 0;
}

std::uint32_t MsfzFile::chunks_unpacked() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<std::uint32_t>(std::count(done_.begin(), done_.end(), true));
}

std::uint32_t MsfzFile::chunk_at(std::uint64_t space) const {
  auto it = std::upper_bound(chunks_.begin(), chunks_.end(), space,
                             [](std::uint64_t s, const Chunk& c) { return s < c.space_offset; });
  return static_cast<std::uint32_t>(it - chunks_.begin()) - 1;
}

Status MsfzFile::unpack(std::uint32_t chunk) const {
  if (done_[chunk]) return {};
  const Chunk& c = chunks_[chunk];
  std::vector<std::uint8_t> out(c.size);  // declared size, checked against the packed size at parse
  const auto packed = bytes_.subspan(static_cast<std::size_t>(c.file_offset), c.packed_size);
  if (std::string why = unpack_into(c.compression, packed, out); !why.empty())
    return Status(Errc::kMalformed, format("MSFZ chunk %u (%u bytes at file offset 0x%llx): does not unpack to its "
                                           "%u bytes: %s", chunk, c.packed_size,
                                           static_cast<unsigned long long>(c.file_offset), c.size, why.c_str()));
  unpacked_[chunk] = std::move(out);
  done_[chunk] = true;
  return {};
}

Result<std::vector<std::uint8_t>> MsfzFile::read_stream(std::uint32_t index) const {
  if (!has_stream(index))
    return Error{Errc::kNotFound, index < streams_.size()
                                      ? format("MSFZ stream %u is nil", index)
                                      : format("MSFZ stream %u does not exist (the directory has %zu)", index,
                                               streams_.size())};
  const Stream& s = streams_[index];
  const std::uint32_t end = index + 1 < streams_.size() ? streams_[index + 1].first_fragment
                                                        : static_cast<std::uint32_t>(fragments_.size());
  std::vector<std::uint8_t> out(s.size);
  std::size_t done = 0;
  std::lock_guard<std::mutex> lock(mutex_);
  for (std::uint32_t k = s.first_fragment; k < end; ++k) {
    const Fragment& fr = fragments_[k];
    if (!fr.compressed) {
      std::memcpy(out.data() + done, bytes_.data() + fr.offset, fr.size);
      done += fr.size;
      continue;
    }
    // A compressed fragment may run on through the following chunks.
    std::uint64_t space = fr.offset;
    std::uint32_t left = fr.size;
    for (std::uint32_t c = chunk_at(space); left > 0; ++c) {
      if (Status st = unpack(c); !st) return Error{st.code(), format("stream %u: %s", index, st.message().c_str())};
      const Chunk& ch = chunks_[c];
      const std::uint64_t within = space - ch.space_offset;
      const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, ch.size - within));
      std::memcpy(out.data() + done, unpacked_[c].data() + within, n);
      done += n;
      space += n;
      left -= n;
    }
  }
  return out;
}

std::size_t MsfzFile::file_offset(std::uint32_t index, std::size_t pos) const {
  if (!has_stream(index) || pos >= streams_[index].size) return bytes_.size();
  const std::uint32_t end = index + 1 < streams_.size() ? streams_[index + 1].first_fragment
                                                        : static_cast<std::uint32_t>(fragments_.size());
  for (std::uint32_t k = streams_[index].first_fragment; k < end; ++k) {
    const Fragment& fr = fragments_[k];
    if (pos < fr.size) return fr.compressed ? bytes_.size() : static_cast<std::size_t>(fr.offset + pos);
    pos -= fr.size;
  }
  return bytes_.size();
}

std::string MsfzFile::where(std::uint32_t index, std::size_t pos) const {
  if (!has_stream(index) || pos >= streams_[index].size)
    return format("stream %u offset 0x%zx (end of stream)", index, pos);
  const std::uint32_t end = index + 1 < streams_.size() ? streams_[index + 1].first_fragment
                                                        : static_cast<std::uint32_t>(fragments_.size());
  std::size_t rest = pos;
  for (std::uint32_t k = streams_[index].first_fragment; k < end; ++k) {
    const Fragment& fr = fragments_[k];
    if (rest >= fr.size) {
      rest -= fr.size;
      continue;
    }
    if (!fr.compressed)
      return format("stream %u offset 0x%zx (file offset 0x%llx)", index, pos,
                    static_cast<unsigned long long>(fr.offset + rest));
    const std::uint64_t space = fr.offset + rest;
    const std::uint32_t c = chunk_at(space);
    return format("stream %u offset 0x%zx (MSFZ chunk %u offset 0x%llx)", index, pos, c,
                  static_cast<unsigned long long>(space - chunks_[c].space_offset));
  }
  return format("stream %u offset 0x%zx (end of stream)", index, pos);
}

}  // namespace ilmap::msf
