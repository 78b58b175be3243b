// Cache.cpp - open, validate and query an ilmap cache (format 2.0, SPEC.md).
//
// Open: header (size, magic, identifier, version, payload size), FlatBuffers verification of
// the payload, presence of the sections lookups need. Nothing proportional to the number of
// points. Lookups bounds-check each block they touch, so a corrupt block gives no answer.
#include "ilmap/cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>

#include "format/ilmap_format.h"
#include "ilmap_generated.h"
#include "format/ilmap_lines_format.h"

namespace ilmap {

namespace d = ilmap::disk;

// The runtime's IL offsets are signed 32-bit; from here on (-1 = OFFSET_UNKNOWN) there is no answer.
constexpr std::uint32_t kNoIlOffsetFrom = 0x80000000u;

const char* language_label(Language l) noexcept {
  switch (l) {
    case Language::kCSharp: return "C#";
    case Language::kVisualBasic: return "VB";
    case Language::kFSharp: return "F#";
    case Language::kOther: return "other";
    case Language::kUnknown: break;
  }
  return "unknown";
}

namespace {

// What identifies the file a Cache was opened from, to notice it being replaced or rewritten.
struct FileStamp {
  dev_t dev = 0;
  ino_t inode = 0;
  off_t size = 0;
  struct timespec mtime {}, ctime {};
  bool operator==(const FileStamp& o) const noexcept {
    return dev == o.dev && inode == o.inode && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
           mtime.tv_nsec == o.mtime.tv_nsec && ctime.tv_sec == o.ctime.tv_sec && ctime.tv_nsec == o.ctime.tv_nsec;
  }
  static FileStamp of(const struct stat& st) noexcept {
    return {st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim};
  }
};

}  // namespace

struct Cache::Impl {
  // Storage: either a mapping or an owned, 8-byte aligned copy.
  void* map = nullptr;
  std::size_t map_size = 0;
  GuardedRange guard;  // the mapping's lease and registration with the SIGBUS guard
  int fd = -1;         // the leased descriptor of a mapped file
  std::string path;    // as given to open (empty for from_bytes)
  FileStamp stamp;     // of the file opened
  std::vector<std::uint64_t> owned;
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;

  d::FileHeader header{};
  const fb::Cache* root = nullptr;
  // Method directory (SPEC.md section 4): groups holds at least ceil(method_rows / 64) entries.
  std::uint32_t method_rows = 0;
  const fb::MethodGroup* groups = nullptr;
  std::uint32_t groups_count = 0;
  const std::uint8_t* ends = nullptr;   // block_ends: method_rows u16 (little endian)
  const std::uint8_t* high = nullptr;   // block_ends_high
  std::uint32_t high_count = 0;
  const std::uint8_t* blocks = nullptr;
  std::size_t blocks_size = 0;
  d::ProfileTable profiles;  // block_profiles (SPEC.md 5.1)
  const fb::DocumentRef* docs = nullptr;
  std::uint32_t docs_count = 0;
  // Document strings: the `strings` vector, or `strings_zstd` unpacked on first use (format
  // 2.0, SPEC.md 3.3). `strings_ready` is published once (acquire/release) and never changes.
  struct Bytes {
    const std::uint8_t* data = nullptr;
    std::size_t size = 0;
    bool ok = true;  // false: the packed form did not unpack (verify reports it)
  };
  // A section stored as is or packed (SPEC.md 3.8): `ready` is published once and never changes.
  // `decode`, when set, turns the frame's content into the plain field's bytes (in `buffer`).
  struct Section;
  using Decode = Status (*)(const Impl&, const Section&);
  struct Section {
    const char* what = "";
    Decode decode = nullptr;
    Bytes plain;
    const flatbuffers::Vector<std::uint8_t>* packed = nullptr;
    mutable std::atomic<const Bytes*> ready{nullptr};
    mutable std::unique_ptr<std::uint8_t[]> buffer;
    mutable Bytes unpacked;
    mutable Status failure;  // why the packed form did not unpack (set before `ready`)
    // Sets the section from its two fields (at most one present).
    void set(const flatbuffers::Vector<std::uint8_t>* raw, const flatbuffers::Vector<std::uint8_t>* z) noexcept {
      packed = raw ? nullptr : z;
      if (raw) plain = {raw->data(), raw->size(), true};
      if (!packed) ready.store(&plain, std::memory_order_release);
    }
  };
  Section strings_section, name_strings_section, name_methods_section, lines_section;
  mutable std::mutex unpack_mutex;
  // Details: `details`, or `details_zstd` unpacked on first use.
  mutable std::unique_ptr<std::uint8_t[]> details_buffer;
  mutable Bytes details_unpacked;
  mutable bool details_done = false;

  const Bytes& bytes_of(const Section& sec) const noexcept {
    const Bytes* b = sec.ready.load(std::memory_order_acquire);
    return b ? *b : unpack_section(sec);
  }
  const Bytes& strings() const noexcept { return bytes_of(strings_section); }
  const Bytes& unpack_section(const Section& sec) const noexcept;
  Status unpack(const flatbuffers::Vector<std::uint8_t>& packed, const char* what, std::unique_ptr<std::uint8_t[]>& buffer,
                Bytes& out) const noexcept;
  static Status decode_method_columns(const Impl& m, const Section& sec);
  static Status decode_line_index(const Impl& m, const Section& sec);
  // Method names (format 1.1, SPEC.md 3.6); names == nullptr without them. The method refs
  // are `methods`, or `methods_zstd` unpacked on first use (format 2.0); the name index is
  // derived from them on the first name lookup (SPEC.md 6.1) and published like a section.
  const fb::Names* names = nullptr;
  mutable std::atomic<const std::vector<fb::NameIndexEntry>*> name_index_ready{nullptr};
  mutable std::vector<fb::NameIndexEntry> name_index_built;

  // The method refs: their count and first entry (count 0 when they did not unpack).
  std::uint32_t name_refs(const fb::MethodNameRef*& refs) const noexcept {
    const Bytes& b = bytes_of(name_methods_section);
    refs = reinterpret_cast<const fb::MethodNameRef*>(b.data);
    return static_cast<std::uint32_t>(b.size / sizeof(fb::MethodNameRef));
  }
  const std::vector<fb::NameIndexEntry>& name_index() const;

  // A range of the names section's strings, or false when it does not lie inside.
  bool name_text(std::uint32_t offset, std::uint32_t length, std::string_view& out) const noexcept {
    const Bytes& s = bytes_of(name_strings_section);
    if (std::uint64_t(offset) + length > s.size) return false;
    out = {reinterpret_cast<const char*>(s.data) + offset, length};
    return true;
  }
  // The MethodNameRef of a MethodDef token, or nullptr.
  const fb::MethodNameRef* name_ref(std::uint32_t token) const noexcept {
    const fb::MethodNameRef* refs;
    const std::uint32_t count = name_refs(refs), row = token & 0xFFFFFF;
    if ((token >> 24) != 0x06 || row == 0 || row > count) return nullptr;
    return refs + (row - 1);
  }
  // The name-index key of an index entry (the method's own, or its kickoff's for an alias).
  bool entry_key(const fb::NameIndexEntry& e, std::string_view& key) const noexcept {
    const fb::MethodNameRef* m = name_ref(e.token());
    if (m && (e.flags() & d::kIndexAlias)) m = m->kickoff() ? name_ref(m->kickoff()) : nullptr;
    return m && name_text(m->key_offset(), m->key_length(), key);
  }
  Status verify_names() const;

  // A range of `strings`, or false when it does not lie inside (a corrupt cache).
  bool text(std::uint32_t offset, std::uint32_t length, std::string_view& out) const noexcept {
    const Bytes& s = strings();
    if (std::uint64_t(offset) + length > s.size) return false;
    out = {reinterpret_cast<const char*>(s.data) + offset, length};
    return true;
  }

  ~Impl() {
    guard.reset();  // release the lease, unregister before the range can be reused
    if (map) ::munmap(map, map_size);
    if (fd >= 0) ::close(fd);
  }

  Status changed_error() const {
    return {Errc::kIo, (path.empty() ? std::string("cache") : path) +
                           ": cache file changed while in use (truncated or rewritten in place)"};
  }

  static Status check_header(const d::FileHeader& header, std::uint64_t size);
  Status validate();
  enum class Range { kNone, kBlock, kCorrupt };
  Range block_range(std::uint32_t rid, std::uint32_t& b, std::uint32_t& e) const noexcept;
  bool block(std::uint32_t rid, const std::uint8_t*& rec, const std::uint8_t*& end,
             d::BlockHeader& h) const noexcept;
  std::optional<LookupResult> lookup_row(std::uint32_t rid, std::uint32_t il) const noexcept;
};

// The checks of the 32-byte header against the file size: made on the bytes read with pread
// before a file is mapped (a multi-GB file that is no cache is never mapped), and again by
// validate() on the bytes the Cache holds.
Status Cache::Impl::check_header(const d::FileHeader& header, std::uint64_t size) {
  if (header.magic == d::kMagicSwapped)
    return {Errc::kBadMagic, "cache header at offset 0x0: written with the other byte order"};
  if (header.magic != d::kMagic || std::memcmp(header.identifier, d::kIdentifier, 4) != 0)
    return {Errc::kBadMagic, "cache header at offset 0x0: not an ilmap cache (magic/identifier mismatch)"};
  if (header.version_major != d::kVersionMajor)
    return {Errc::kBadVersion, format("cache header at offset 0x8: format version %u.%u is not supported (this reader reads %u.x)", header.version_major, header.version_minor, d::kVersionMajor)};
  if (header.header_size != d::kHeaderSize)
    return {Errc::kMalformed, format("cache header at offset 0xc: header size %u, expected %u", header.header_size, d::kHeaderSize)};
  if (header.payload_size != size - d::kHeaderSize)
    return {Errc::kTruncated, format("cache header at offset 0x10: payload size %llu but the file holds %llu bytes after the header", static_cast<unsigned long long>(header.payload_size), static_cast<unsigned long long>(size - d::kHeaderSize))};
  if (header.payload_size > d::kMaxPayloadSize)
    return {Errc::kTooLarge, "cache payload exceeds the 2 GiB FlatBuffers limit"};
  // The FlatBuffers root offset and file identifier take the first 8 payload bytes.
  if (header.payload_size < 8)
    return {Errc::kTruncated, format("cache payload at offset 0x20: %llu bytes, too short for a FlatBuffers root and identifier", static_cast<unsigned long long>(header.payload_size))};
  return {};
}

Status Cache::Impl::validate() {
  if (size < d::kHeaderSize)
    return {Errc::kTruncated, format("cache header: file has %zu bytes, the header needs %u", size, d::kHeaderSize)};
  std::memcpy(&header, data, sizeof header);
  if (Status s = check_header(header, size); !s) return s;
  const std::uint8_t* payload = data + d::kHeaderSize;
  flatbuffers::Verifier::Options vo;
  vo.max_depth = 16;
  vo.max_tables = 1u << 24;
  flatbuffers::Verifier v(payload, static_cast<std::size_t>(header.payload_size), vo);
  if (!fb::CacheBufferHasIdentifier(payload))
    return {Errc::kBadMagic, "cache payload at offset 0x20: FlatBuffers identifier is not ILMP"};
  if (!fb::VerifyCacheBuffer(v))
    return {Errc::kMalformed, "cache payload at offset 0x20: FlatBuffers verification failed (corrupt offsets, sizes or strings)"};
  root = fb::GetCache(payload);
  auto* mg = root->method_groups();
  auto* be = root->block_ends();
  auto* pb = root->point_blocks();
  if (!mg || !be)
    return {Errc::kMalformed, "cache: method directory (method_groups, block_ends) missing"};
  const std::uint64_t rows = root->method_rows(), need_groups = (rows + d::kGroupRows - 1) / d::kGroupRows;
  if (be->size() != rows || mg->size() != need_groups)
    return {Errc::kMalformed, format("cache: method directory of %u method rows has %u block ends and %u groups (expected %u and %u)",
                                     root->method_rows(), be->size(), mg->size(), root->method_rows(), static_cast<unsigned>(need_groups))};
  if (!pb || pb->size() < d::kBlockTailPadding)
    return {Errc::kMalformed, "cache: point blocks missing or shorter than their tail padding"};
  method_rows = root->method_rows();
  groups = reinterpret_cast<const fb::MethodGroup*>(mg->Data());
  groups_count = mg->size();
  ends = reinterpret_cast<const std::uint8_t*>(be->data());
  if (const auto* hv = root->block_ends_high()) {
    high = reinterpret_cast<const std::uint8_t*>(hv->data());
    high_count = hv->size();
  }
  blocks = pb->data();
  blocks_size = pb->size();
  // Block profiles (SPEC.md 5.1): at most 255 in the table (a row's index byte names entry
  // i - 1), one index byte per method row.
  if (const auto* bp = root->block_profiles()) {
    if (bp->size() > d::kMaxProfiles)
      return {Errc::kMalformed, format("cache: %u block profiles, more than the %u a one-byte index can name", bp->size(), d::kMaxProfiles)};
    profiles.data = reinterpret_cast<const std::uint8_t*>(bp->data());
    profiles.count = bp->size();
  }
  const auto* bpi = root->block_profile_index();
  if (!bpi || bpi->size() != rows)
    return {Errc::kMalformed, format("cache: block_profile_index has %u entries, expected one per method row (%u)", bpi ? bpi->size() : 0u,
                                     root->method_rows())};
  profiles.index = bpi->data();
  if (const auto* dv = root->documents()) {
    docs = reinterpret_cast<const fb::DocumentRef*>(dv->Data());
    docs_count = dv->size();
  }
  strings_section.what = "document strings (strings_zstd)";
  strings_section.set(root->strings(), root->strings_zstd());
  name_strings_section.what = "names: strings (strings_zstd)";
  name_methods_section.what = "names: methods (methods_zstd)";
  name_methods_section.decode = decode_method_columns;
  if ((names = root->names())) {
    const auto* refs = names->methods();
    if (refs)  // the struct vector's bytes: a section stored as is
      name_methods_section.plain = {reinterpret_cast<const std::uint8_t*>(refs->Data()), refs->size() * sizeof(fb::MethodNameRef), true};
    name_methods_section.set(nullptr, refs ? nullptr : names->methods_zstd());
    name_strings_section.set(names->strings(), names->strings_zstd());
  } else {
    name_methods_section.set(nullptr, nullptr);
    name_strings_section.set(nullptr, nullptr);
  }
  lines_section.what = "line index (lines.index_zstd)";
  lines_section.decode = decode_line_index;
  lines_section.set(nullptr, root->lines() ? root->lines()->index_zstd() : nullptr);
  return {};
}

// A packed section (SPEC.md 3.7): one zstd frame whose header records its content size, at most
// max(64 MiB, 64 x the cache file's size) (a small frame cannot claim gigabytes), that unpacks
// to exactly that size.
Status Cache::Impl::unpack(const flatbuffers::Vector<std::uint8_t>& packed, const char* what,
                           std::unique_ptr<std::uint8_t[]>& buffer, Bytes& out) const noexcept {
  out = {nullptr, 0, false};
  const unsigned long long n = ZSTD_getFrameContentSize(packed.data(), packed.size());
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
    return {Errc::kMalformed, format("cache: %s: not a zstd frame with a recorded content size", what)};
  const std::uint64_t cap = std::max<std::uint64_t>(std::uint64_t(64) << 20, std::uint64_t(size) * 64);
  if (n > cap || n > d::kMaxPayloadSize)
    return {Errc::kTooLarge, format("cache: %s: unpacks to %llu bytes, more than the limit of %llu for this cache", what, n,
                                    static_cast<unsigned long long>(std::min<std::uint64_t>(cap, d::kMaxPayloadSize)))};
  buffer.reset(new (std::nothrow) std::uint8_t[n ? n : 1]);
  if (!buffer) return {Errc::kTooLarge, format("cache: %s: out of memory unpacking %llu bytes", what, n)};
  const std::size_t got = ZSTD_decompress(buffer.get(), static_cast<std::size_t>(n), packed.data(), packed.size());
  if (ZSTD_isError(got) || got != n) {
    buffer.reset();
    return {Errc::kMalformed, format("cache: %s: the zstd frame does not unpack (%s)", what,
                                     ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short content")};
  }
  out = {buffer.get(), static_cast<std::size_t>(n), true};
  return {};
}

// Names.methods_zstd's content (SPEC.md 3.6) to MethodNameRef structs: the eight fields column
// by column, coreclr_offset as the difference from the row before's, mono_offset and key_offset
// as the difference from the row's coreclr_offset (all modulo 2^32).
Status Cache::Impl::decode_method_columns(const Impl&, const Section& sec) {
  const Bytes in = sec.unpacked;
  constexpr std::size_t kRef = sizeof(fb::MethodNameRef);
  if (in.size % kRef)
    return {Errc::kMalformed, format("cache: %s: unpacks to %zu bytes, not a whole number of %zu-byte method refs", sec.what, in.size, kRef)};
  const std::size_t n = in.size / kRef;
  std::unique_ptr<std::uint8_t[]> out(new (std::nothrow) std::uint8_t[in.size ? in.size : 1]);
  if (!out) return {Errc::kTooLarge, format("cache: %s: out of memory unpacking %zu bytes", sec.what, in.size)};
  auto put = [&](std::size_t i, unsigned f, std::uint32_t v) {
    for (unsigned k = 0; k < 4; ++k) out[kRef * i + 4 * f + k] = static_cast<std::uint8_t>(v >> (8 * k));
  };
  auto column = [&](std::size_t i, unsigned f) { return d::load_le32(in.data + 4 * (f * n + i)); };
  std::uint32_t coreclr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    coreclr += column(i, 0);
    put(i, 0, coreclr);
    put(i, 2, coreclr + column(i, 2));
    put(i, 4, coreclr + column(i, 4));
    for (unsigned f : {1u, 3u, 5u, 6u, 7u}) put(i, f, column(i, f));
  }
  sec.buffer = std::move(out);
  sec.unpacked = {sec.buffer.get(), in.size, true};
  return {};
}

// LineIndex.index_zstd's content (SPEC.md 3.7): doc_blocks, then per block its first line as the
// difference from the block before's in the same document (from 0 for a document's first
// block), then data. Rebuilt into doc_blocks, blocks (LineBlockRef, the offsets found by walking
// the blocks in data) and data back to back; a content that does not split or a block that does
// not decode: kMalformed.
Status Cache::Impl::decode_line_index(const Impl& m, const Section& sec) {
  const Bytes in = sec.unpacked;
  const std::uint64_t head = (std::uint64_t(m.docs_count) + 1) * 4;
  std::uint32_t nblocks = 0;
  if (in.size >= head) nblocks = d::load_le32(in.data + head - 4);
  if (in.size < head || (in.size - head) / 4 < nblocks)
    return {Errc::kMalformed, format("cache: %s: %zu unpacked bytes, too few for %u document entries and the blocks they name", sec.what,
                                     in.size, m.docs_count + 1)};
  const std::size_t lines_at = static_cast<std::size_t>(head), data_at = lines_at + 4 * std::size_t(nblocks);
  const std::size_t data_size = in.size - data_at;
  const std::size_t size = data_at + 4 * std::size_t(nblocks) + data_size;
  std::unique_ptr<std::uint8_t[]> out(new (std::nothrow) std::uint8_t[size ? size : 1]);
  if (!out) return {Errc::kTooLarge, format("cache: %s: out of memory unpacking %zu bytes", sec.what, size)};
  std::memcpy(out.get(), in.data, static_cast<std::size_t>(head));
  const std::uint8_t* data = in.data + data_at;
  std::uint8_t* refs = out.get() + head;
  std::memcpy(refs + 8 * std::size_t(nblocks), data, data_size);
  std::size_t pos = 0;
  std::uint32_t block = 0;
  for (std::uint32_t doc = 0; doc < m.docs_count; ++doc) {
    const std::uint32_t end = d::load_le32(in.data + 4 * (std::size_t(doc) + 1));
    if (end < block || end > nblocks)
      return {Errc::kMalformed, format("cache: %s: the block range of document %u is out of order", sec.what, doc)};
    std::uint32_t line = 0;
    for (; block < end; ++block) {
      line += d::load_le32(in.data + lines_at + 4 * std::size_t(block));
      d::LineBlockReader r(data + pos, data + data_size, line);
      bool ok = r.start();
      for (unsigned k = 0; ok && k < r.count(); ++k) {
        d::LineEntry e;
        ok = r.next(e);
      }
      if (!ok) return {Errc::kMalformed, format("cache: %s: block %u does not decode", sec.what, block)};
      for (unsigned k = 0; k < 4; ++k) {
        refs[8 * std::size_t(block) + k] = static_cast<std::uint8_t>(line >> (8 * k));
        refs[8 * std::size_t(block) + 4 + k] = static_cast<std::uint8_t>(pos >> (8 * k));
      }
      pos = static_cast<std::size_t>(r.position() - data);
    }
  }
  if (block != nblocks || pos != data_size)
    return {Errc::kMalformed, format("cache: %s: blocks or bytes after the last document's", sec.what)};
  sec.buffer = std::move(out);
  sec.unpacked = {sec.buffer.get(), size, true};
  return {};
}

const Cache::Impl::Bytes& Cache::Impl::unpack_section(const Section& sec) const noexcept {
  std::lock_guard<std::mutex> lock(unpack_mutex);
  if (const Bytes* b = sec.ready.load(std::memory_order_acquire)) return *b;
  sec.failure = unpack(*sec.packed, sec.what, sec.buffer, sec.unpacked);
  if (sec.failure && sec.decode) {
    sec.failure = sec.decode(*this, sec);
    if (!sec.failure) {
      sec.buffer.reset();
      sec.unpacked = {nullptr, 0, false};
    }
  }
  sec.ready.store(&sec.unpacked, std::memory_order_release);
  return sec.unpacked;
}

// SPEC.md section 7, verify step 11.
Status Cache::Impl::verify_names() const {
  if (!names) return {};
  if (!(names->methods() || names->methods_zstd()) || !(names->strings() || names->strings_zstd()))
    return {Errc::kMalformed, "names: methods or strings missing"};
  if ((names->methods() && names->methods_zstd()) || (names->strings() && names->strings_zstd()))
    return {Errc::kMalformed, "names: a section is stored both as is and packed (methods/methods_zstd or strings/strings_zstd)"};
  for (const Section* sec : {&name_methods_section, &name_strings_section}) {
    if (sec->packed && !bytes_of(*sec).ok) return sec->failure;
  }
  if (const std::size_t n = bytes_of(name_methods_section).size; n % sizeof(fb::MethodNameRef))
    return {Errc::kMalformed, format("names: methods (methods_zstd) unpacks to %zu bytes, not a whole number of %zu-byte method refs",
                                     n, sizeof(fb::MethodNameRef))};
  const fb::MethodNameRef* refs;
  const std::uint32_t count = name_refs(refs);
  for (std::uint32_t i = 0; i < count; ++i) {
    const fb::MethodNameRef& m = refs[i];
    std::string_view t;
    if (!name_text(m.coreclr_offset(), m.coreclr_length(), t) || !name_text(m.mono_offset(), m.mono_length(), t) ||
        !name_text(m.key_offset(), m.key_length(), t))
      return {Errc::kMalformed, format("names: method 0x%08x: a text range lies outside the string bytes", 0x06000001u + i)};
    if (m.flags() & ~d::kNameFlagsMask)
      return {Errc::kMalformed, format("names: method 0x%08x: unknown flags 0x%x", 0x06000001u + i, m.flags())};
    if (m.kickoff() ? !name_ref(m.kickoff()) : (m.flags() & d::kNameIterator) != 0)
      return {Errc::kMalformed, format("names: method 0x%08x: kickoff 0x%08x is not a method of the section", 0x06000001u + i, m.kickoff())};
  }
  return {};
}

// The name index of SPEC.md 6.1, derived from the method refs on first use: one entry per
// method under its own key, one alias entry per method with a kickoff under the kickoff's key,
// sorted by (hash, token, flags). A method whose key (or kickoff) is not valid has no entry (a
// lookup would skip it at the confirm step anyway). Built once, under the mutex, and published
// with release/acquire like the unpacked sections; concurrent first users wait for it.
const std::vector<fb::NameIndexEntry>& Cache::Impl::name_index() const {
  if (const auto* ready = name_index_ready.load(std::memory_order_acquire)) return *ready;
  // Unpack what the index reads first: unpacking takes the same (non-recursive) mutex.
  const fb::MethodNameRef* refs;
  const std::uint32_t count = name_refs(refs);
  (void)bytes_of(name_strings_section);
  std::lock_guard<std::mutex> lock(unpack_mutex);
  if (const auto* ready = name_index_ready.load(std::memory_order_acquire)) return *ready;
  std::vector<fb::NameIndexEntry> index;
  try {
    index.reserve(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      const fb::MethodNameRef& m = refs[i];
      const std::uint32_t token = 0x06000001u + i;
      std::string_view key;
      if (name_text(m.key_offset(), m.key_length(), key)) index.emplace_back(XXH3_64bits(key.data(), key.size()), token, 0u);
      const fb::MethodNameRef* k = m.kickoff() ? name_ref(m.kickoff()) : nullptr;
      if (k && name_text(k->key_offset(), k->key_length(), key))
        index.emplace_back(XXH3_64bits(key.data(), key.size()), token, std::uint32_t(d::kIndexAlias));
    }
  } catch (const std::bad_alloc&) {
    index.clear();  // out of memory: no name answers, rather than a crash
  }
  std::sort(index.begin(), index.end(), [](const fb::NameIndexEntry& a, const fb::NameIndexEntry& b) {
    if (a.hash() != b.hash()) return a.hash() < b.hash();
    if (a.token() != b.token()) return a.token() < b.token();
    return a.flags() < b.flags();
  });
  name_index_built = std::move(index);
  name_index_ready.store(&name_index_built, std::memory_order_release);
  return name_index_built;
}

// The byte range [b, e) of method row `rid`'s block in point_blocks (SPEC.md section 4):
// kNone for a row out of range or without points (b = e), kCorrupt when the range is not
// valid (b > e, past the blocks, a high half outside block_ends_high).
[[gnu::always_inline]] inline Cache::Impl::Range Cache::Impl::block_range(std::uint32_t rid, std::uint32_t& b,
                                                                         std::uint32_t& e) const noexcept {
  if (rid == 0 || rid > method_rows) return Range::kNone;
  // The group and the two ends are loaded independently of each other (no load waits for
  // another): the row alone gives every position.
  const std::uint32_t i = rid - 1, k = i % d::kGroupRows;
  const fb::MethodGroup& g = groups[i / d::kGroupRows];
  std::uint32_t rel_e = d::load_le16(ends + 2 * std::size_t(i));
  std::uint32_t rel_b = k ? d::load_le16(ends + 2 * std::size_t(i - 1)) : 0;
  if (g.high() != d::kGroupNarrow) {
    const std::uint64_t h = std::uint64_t(g.high()) + k;
    if (h >= high_count) return Range::kCorrupt;
    rel_e |= d::load_le16(high + 2 * h) << 16;
    if (k) rel_b |= d::load_le16(high + 2 * (h - 1)) << 16;
  }
  const std::uint64_t bb = std::uint64_t(g.base()) + rel_b, ee = std::uint64_t(g.base()) + rel_e;
  if (bb == ee) return Range::kNone;
  if (bb > ee || ee > blocks_size - d::kBlockTailPadding) return Range::kCorrupt;
  b = static_cast<std::uint32_t>(bb);
  e = static_cast<std::uint32_t>(ee);
  return Range::kBlock;
}

// Locates and decodes the header of method `rid`'s block; false if absent or corrupt.
[[gnu::always_inline]] inline bool Cache::Impl::block(std::uint32_t rid, const std::uint8_t*& rec, const std::uint8_t*& end,
                        d::BlockHeader& h) const noexcept {
  std::uint32_t b, e;
  if (block_range(rid, b, e) != Range::kBlock) return false;
  rec = blocks + b;
  end = blocks + e;
  std::uint64_t profile;
  if (!profiles.profile_of(rid, rec, profile) || !d::get_block_header(rec, end, profile, h)) return false;
  // Widths are at most 31 by construction of the 5-bit fields; the records must fit.
  return h.records_bytes() <= std::uint64_t(end - rec);
}

namespace {

// Number of IL column entries lo .. lo+n-1 (n <= 8, lo + n <= V = last + 1) that are <= il, in
// a column of w-byte entries starting at rec; on a sorted column they form a prefix. 1- and
// 2-byte entries (most methods) are compared eight at a time with SSE2: the 16-byte load stays
// inside the block or its tail padding, and lanes from n on are masked off. Otherwise each entry
// is probed, clamped to the last one and capped at n (as in the search above).
inline std::uint32_t count_le(const std::uint8_t* rec, unsigned w, std::uint32_t lo, std::uint32_t n,
                              std::uint32_t last, std::uint32_t il) noexcept {
#if defined(__SSE2__)
  if (w == 1) {
    const __m128i x = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(rec + lo));
    const __m128i t = _mm_set1_epi8(static_cast<char>(std::min<std::uint32_t>(il, 0xFF)));
    const unsigned le = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, t), x)));
    return static_cast<std::uint32_t>(std::countr_one(le & ((1u << n) - 1)));
  }
  if (w == 2) {
    const __m128i bias = _mm_set1_epi16(static_cast<short>(0x8000));
    const __m128i x = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rec + 2 * std::size_t(lo))), bias);
    const __m128i t = _mm_set1_epi16(static_cast<short>(std::min<std::uint32_t>(il, 0xFFFF) ^ 0x8000));
    const unsigned le = ~static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpgt_epi16(x, t)));
    return static_cast<std::uint32_t>(std::countr_one(le & ((1u << (2 * n)) - 1))) / 2;
  }
#endif
  const std::uint64_t mask = (std::uint64_t(1) << (8 * w)) - 1;
  std::uint32_t below = 0;
  for (std::uint32_t k = 0; k < 8; ++k)
    below += (d::load_le64(rec + std::size_t(std::min(lo + k, last)) * w) & mask) <= il;
  return std::min(below, n);
}

}  // namespace

std::optional<LookupResult> Cache::Impl::lookup_row(std::uint32_t rid, std::uint32_t il) const noexcept {
  const std::uint8_t* rec;
  const std::uint8_t* end;
  d::BlockHeader h;
  if (!block(rid, rec, end, h) || h.visible == 0) return std::nullopt;
  // Visible records are in increasing IL order: count those with offset <= il. Invariant:
  // records below lo are <= il, records from lo + n on are > il. Long columns are first halved
  // down to 64 entries; from there the search has a fixed shape (no data-dependent branch to
  // mispredict). Every probe is a record index below V, so it stays inside the block whatever
  // the values are (a corrupt, unsorted column gives some record, or none).
  const unsigned w = h.il_bytes();
  const std::uint64_t mask = (std::uint64_t(1) << (8 * w)) - 1;
  auto il_at = [&](std::uint32_t k) { return d::load_le64(rec + std::size_t(k) * w) & mask; };
  std::uint32_t lo = 0, n = h.visible;
  while (n > 64) {
    const std::uint32_t half = n / 2;
    lo = il_at(lo + half) <= il ? lo + half : lo;
    n -= half;
  }
  // n <= 64: count the entries lo + 8, lo + 16, ... lo + 56 that are <= il (j of them), which
  // leaves at most 8 candidates from lo + 8j; count those (count_le). Two rounds of probes.
  // Probes past the column are clamped to its last entry, and each count is capped at the
  // number of probes that lie below lo + n: on a sorted column, entries from lo + n on are
  // > il, and a clamped probe counts only when the whole range is <= il, so the caps give the
  // exact counts; on a corrupt column they keep lo within the column.
  const std::uint32_t last = h.visible - 1;
  std::uint32_t j = 0;
  for (std::uint32_t k = 1; k < 8; ++k) j += il_at(std::min(lo + 8 * k, last)) <= il;
  j = std::min(j, (n - 1) / 8);
  lo += 8 * j;
  n = std::min<std::uint32_t>(n - 8 * j, 8);
  lo += count_le(rec, w, lo, n, last, il);
  if (lo == 0) return std::nullopt;
  const d::VisibleRecord v = d::get_visible(rec, lo - 1, h);
  // On a sorted column the record found is at or before `il`; on a corrupt one it may not be,
  // and then there is no answer (never a point after the offset).
  if (v.il > il) return std::nullopt;
  LookupResult r;
  r.il_offset = v.il;
  r.line = v.line;
  r.column = v.column;
  r.end_line = v.end_line;
  r.end_column = v.end_column;
  r.document = v.document;
  if (r.document >= docs_count) return std::nullopt;
  const fb::DocumentRef& doc = docs[r.document];
  const Bytes& s = strings();  // one acquire load for both views
  const std::uint64_t po = doc.path_offset(), pl = doc.path_length(), uo = doc.url_offset(), ul = doc.url_length();
  if (po + pl > s.size || uo + ul > s.size) return std::nullopt;
  r.file = {reinterpret_cast<const char*>(s.data) + po, static_cast<std::size_t>(pl)};
  r.source_url = {reinterpret_cast<const char*>(s.data) + uo, static_cast<std::size_t>(ul)};
  r.language = static_cast<Language>(doc.language());
  return r;
}

Cache::Cache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Cache::Cache(Cache&&) noexcept = default;
Cache& Cache::operator=(Cache&&) noexcept = default;
Cache::~Cache() = default;

namespace {

// Reads exactly `n` bytes at `offset`; false with errno set (0 at an early end of file).
bool read_at(int fd, std::uint8_t* dst, std::size_t n, std::uint64_t offset, std::size_t& got) {
  got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, dst + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = 0;
      return false;
    }
    got += static_cast<std::size_t>(r);
  }
  return true;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<Cache> Cache::open(const std::string& path, const CacheOpenOptions& options) {
  auto impl = std::make_unique<Impl>();
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) return Error{Errc::kIo, format("%s: cannot open: %s", path.c_str(), std::strerror(errno))};
  struct stat st {};
  if (::fstat(file.fd, &st) != 0)
    return Error{Errc::kIo, format("%s: cannot stat: %s", path.c_str(), std::strerror(errno))};
  if (S_ISDIR(st.st_mode)) return Error{Errc::kIo, format("%s: is a directory, expected a cache file", path.c_str())};
  if (!S_ISREG(st.st_mode)) return Error{Errc::kIo, format("%s: not a regular file", path.c_str())};
  const int fl = ::fcntl(file.fd, F_GETFL);
  if (fl >= 0) (void)::fcntl(file.fd, F_SETFL, fl & ~O_NONBLOCK);
  // A mapping is used only under a read lease (ilmap/mapping_guard.h), taken before anything
  // is read: from then on no writer can change the bytes the Cache answers from. Without a
  // lease the file is read into memory instead, so that no later change reaches the Cache.
  // Checking the file's size or times per lookup would cost a system call per lookup (about
  // 100x a lookup) and still miss a rewrite between the check and the reads.
  if (!options.read_into_memory) {
    impl->guard = GuardedRange::lease(file.fd);
    if (impl->guard.valid()) {
      // The Impl owns the descriptor from here: its destructor releases the lease first.
      impl->fd = file.fd;
      file.fd = -1;
      if (::fstat(impl->fd, &st) != 0)
        return Error{Errc::kIo, format("%s: cannot stat: %s", path.c_str(), std::strerror(errno))};
    }
  }
  const int fd = impl->fd >= 0 ? impl->fd : file.fd;
  impl->path = path;
  impl->stamp = FileStamp::of(st);
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  // Check the header before mapping or reading the rest: a large file that is not a cache
  // costs one small read.
  if (size < d::kHeaderSize)
    return Error{Errc::kTruncated, format("%s: cache header: file has %llu bytes, the header needs %u", path.c_str(), static_cast<unsigned long long>(size), d::kHeaderSize)};
  {
    d::FileHeader head{};
    std::size_t got = 0;
    if (!read_at(fd, reinterpret_cast<std::uint8_t*>(&head), sizeof head, 0, got))
      return Error{Errc::kIo, errno ? format("%s: read failed: %s", path.c_str(), std::strerror(errno))
                                    : format("%s: the file shrank to %zu bytes while being read", path.c_str(), got)};
    if (Status s = Impl::check_header(head, size); !s) return Error{s.code(), path + ": " + s.message()};
  }
  const auto n = static_cast<std::size_t>(size);
  if (impl->guard.valid()) {
    void* p = ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      impl->guard.set_range(p, n);
      impl->map = p;
      impl->map_size = n;
      impl->data = static_cast<const std::uint8_t*>(p);
    }
  }
  if (!impl->data) {
    impl->owned.resize((n + 7) / 8);
    auto* dst = reinterpret_cast<std::uint8_t*>(impl->owned.data());
    std::size_t got = 0;
    if (!read_at(fd, dst, n, 0, got))
      return Error{Errc::kIo, errno ? format("%s: read failed at byte %zu: %s", path.c_str(), got, std::strerror(errno))
                                    : format("%s: the file shrank to %zu bytes while being read", path.c_str(), got)};
    // A writer during the read may have left a mix of old and new bytes.
    struct stat after {};
    if (::fstat(fd, &after) != 0 || !(FileStamp::of(after) == impl->stamp) || impl->guard.changed())
      return impl->changed_error().error();
    impl->data = dst;
    if (impl->guard.valid()) {  // read after a failed mmap: no lease needed any more
      impl->guard.reset();
      ::close(impl->fd);
      impl->fd = -1;
    }
  }
  impl->size = n;
  if (Status s = impl->validate(); !s) {
    if (impl->guard.changed()) return impl->changed_error().error();
    return Error{s.code(), path + ": " + s.message()};
  }
  if (impl->guard.changed()) return impl->changed_error().error();
  return Cache(std::move(impl));
}

Result<Cache> Cache::from_bytes(std::span<const std::uint8_t> bytes) {
  auto impl = std::make_unique<Impl>();
  impl->owned.resize((bytes.size() + 7) / 8);
  if (!bytes.empty()) std::memcpy(impl->owned.data(), bytes.data(), bytes.size());
  impl->data = reinterpret_cast<const std::uint8_t*>(impl->owned.data());
  impl->size = bytes.size();
  if (Status s = impl->validate(); !s) return s.error();
  return Cache(std::move(impl));
}

// Lookups check changed() after their reads, a seqlock's re-check (ilmap/mapping_guard.h): an
// answer built from bytes a writer changed is dropped. The check is a fence and one load.
std::optional<LookupResult> Cache::lookup(std::uint32_t token, std::uint32_t il_offset) const noexcept {
  if ((token >> 24) != 0x06 || il_offset >= kNoIlOffsetFrom) return std::nullopt;
  std::optional<LookupResult> r = impl_->lookup_row(token & 0xFFFFFF, il_offset);
  if (impl_->guard.changed()) return std::nullopt;
  return r;
}

std::optional<LookupResult> Cache::lookup_row(std::uint32_t rid, std::uint32_t il_offset) const noexcept {
  if (il_offset >= kNoIlOffsetFrom) return std::nullopt;
  std::optional<LookupResult> r = impl_->lookup_row(rid, il_offset);
  if (impl_->guard.changed()) return std::nullopt;
  return r;
}

bool Cache::changed() const noexcept { return impl_->guard.changed(); }
Status Cache::changed_status() const { return impl_->changed_error(); }

bool Cache::file_changed() const noexcept {
  if (impl_->path.empty()) return false;
  struct stat st {};
  if (::stat(impl_->path.c_str(), &st) != 0) return false;
  return !(FileStamp::of(st) == impl_->stamp);
}

std::uint32_t Cache::method_count() const noexcept { return impl_->method_rows; }
std::uint32_t Cache::document_count() const noexcept { return impl_->docs_count; }
std::string_view Cache::document_path(std::uint32_t i) const noexcept {
  std::string_view out;
  if (i < impl_->docs_count) (void)impl_->text(impl_->docs[i].path_offset(), impl_->docs[i].path_length(), out);
  return out;
}
std::string_view Cache::document_source_url(std::uint32_t i) const noexcept {
  std::string_view out;
  if (i < impl_->docs_count) (void)impl_->text(impl_->docs[i].url_offset(), impl_->docs[i].url_length(), out);
  return out;
}
Language Cache::document_language(std::uint32_t i) const noexcept {
  return i < impl_->docs_count ? static_cast<Language>(impl_->docs[i].language()) : Language::kUnknown;
}
Result<const void*> Cache::details() const {
  const Impl& m = *impl_;
  Impl::Bytes bytes;
  if (const auto* v = m.root->details()) {
    bytes = {v->data(), v->size(), true};
  } else if (const auto* z = m.root->details_zstd()) {
    std::lock_guard<std::mutex> lock(m.unpack_mutex);
    if (!m.details_done) {
      Status s = m.unpack(*z, "details (details_zstd)", m.details_buffer, m.details_unpacked);
      m.details_done = true;
      if (!s) return s.error();
    }
    if (!m.details_unpacked.ok) return Error{Errc::kMalformed, "cache: details (details_zstd): the zstd frame does not unpack"};
    bytes = m.details_unpacked;
  } else {
    return Error{Errc::kMalformed, "cache: the details section is missing"};
  }
  flatbuffers::Verifier::Options vo;
  vo.max_depth = 16;
  vo.max_tables = 1u << 24;
  flatbuffers::Verifier verifier(bytes.data, bytes.size, vo);
  if (!verifier.VerifyBuffer<fb::Details>(nullptr))
    return Error{Errc::kMalformed, "cache: the details section fails FlatBuffers verification"};
  const fb::Details* d = flatbuffers::GetRoot<fb::Details>(bytes.data);
  if (d->documents() && d->documents()->size() != impl_->docs_count)
    return Error{Errc::kMalformed, "cache: the details section describes a different number of documents"};
  if (changed()) return impl_->changed_error().error();
  return static_cast<const void*>(d);
}
std::uint64_t Cache::point_count() const noexcept { return impl_->root->point_count(); }
std::uint64_t Cache::hidden_count() const noexcept { return impl_->root->hidden_count(); }
CacheHeaderInfo Cache::header() const noexcept {
  return {impl_->header.version_major, impl_->header.version_minor, impl_->header.payload_size,
          impl_->header.payload_xxh3};
}
std::span<const std::uint8_t> Cache::bytes() const noexcept { return {impl_->data, impl_->size}; }
const void* Cache::root() const noexcept { return impl_->root; }
std::uint64_t Cache::point_section_bytes() const noexcept {
  return impl_->blocks_size + std::uint64_t(impl_->profiles.count) * 8 + impl_->method_rows +
         std::uint64_t(impl_->groups_count) * sizeof(fb::MethodGroup) +
         (std::uint64_t(impl_->method_rows) + impl_->high_count) * 2;
}

Status Cache::points(std::uint32_t rid, std::vector<CachePoint>& out) const {
  Status s = points_unchecked(rid, out);
  if (changed()) return impl_->changed_error();
  return s;
}

Status Cache::points_unchecked(std::uint32_t rid, std::vector<CachePoint>& out) const {
  if (rid == 0 || rid > impl_->method_rows)
    return {Errc::kNotFound, format("method row %u out of range (cache has %u)", rid, method_count())};
  std::uint32_t b = 0, e = 0;
  const Impl::Range range = impl_->block_range(rid, b, e);
  if (range == Impl::Range::kNone) return {};
  if (range == Impl::Range::kCorrupt)
    return {Errc::kMalformed, format("method directory entry of method row %u: block range out of order or beyond the point blocks", rid)};
  const std::uint8_t* rec;
  const std::uint8_t* end;
  d::BlockHeader h;
  if (!impl_->block(rid, rec, end, h))
    return {Errc::kMalformed, format("point block of method row %u (bytes 0x%x-0x%x): corrupt header or records past its end", rid, b, e)};
  const std::uint32_t ndocs = document_count();
  // The row's entries of hidden_points (SPEC.md 5.5), sorted by (row, hidden).
  const fb::HiddenPoint* xp = nullptr;
  const fb::HiddenPoint* xe = nullptr;
  if (const auto* hp = impl_->root->hidden_points(); hp && hp->size()) {
    const fb::HiddenPoint* all = hp->Get(0);
    xp = std::lower_bound(all, all + hp->size(), rid, [](const fb::HiddenPoint& x, std::uint32_t r) { return x.row() < r; });
    xe = std::upper_bound(xp, all + hp->size(), rid, [](std::uint32_t r, const fb::HiddenPoint& x) { return r < x.row(); });
    if (xp != xe && (h.hidden == 0 || xe[-1].hidden() >= h.hidden))
      return {Errc::kMalformed, format("hidden_points: method row %u has no hidden record %u", rid, xe[-1].hidden())};
  }
  // Merge visible and hidden records in PDB order (SPEC.md 5.3): by IL offset, a hidden record
  // before the visible ones at its offset, unless hidden_points places it after some of them.
  std::uint32_t vi = 0, hi = 0;
  std::uint32_t last_il = 0;
  bool have_last = false;
  while (vi < h.visible || hi < h.hidden) {
    const std::uint32_t vil = vi < h.visible ? d::get_visible_il(rec, vi, h) : 0;
    std::uint32_t hil = 0, hdoc = 0;
    if (hi < h.hidden) d::get_hidden(rec, hi, h, hil, hdoc);
    const fb::HiddenPoint* x = xp != xe && xp->hidden() == hi ? xp : nullptr;
    if (x && (x->visible_before() > h.visible || (xp + 1 != xe && xp[1].hidden() <= hi)))
      return {Errc::kMalformed, format("hidden_points: the entry of method row %u, hidden record %u, is out of order or places it past the visible records", rid, hi)};
    const bool take_visible = vi < h.visible && (hi >= h.hidden || (x ? vi < x->visible_before() : vil < hil));
    CachePoint p;
    if (take_visible) {
      const d::VisibleRecord v = d::get_visible(rec, vi, h);
      p.il_offset = v.il;
      p.start_line = v.line;
      p.start_column = v.column;
      p.end_line = v.end_line;
      p.end_column = v.end_column;
      p.document = v.document;
      ++vi;
    } else {
      p.il_offset = hil;
      p.start_line = p.end_line = 0xFEEFEE;
      p.document = hdoc;
      p.hidden = true;
      if (x) {
        p.end_line = x->end_line();
        p.start_column = x->start_column();
        p.end_column = x->end_column();
        ++xp;
      }
      ++hi;
    }
    if (std::uint64_t(p.il_offset) >> h.w_il)
      return {Errc::kMalformed, format("point block of method row %u: IL offset 0x%x wider than the block's %u-bit IL field", rid, p.il_offset, unsigned(h.w_il))};
    if (have_last && p.il_offset < last_il)
      return {Errc::kMalformed, format("point block of method row %u: IL offsets decrease", rid)};
    if (p.document >= ndocs)
      return {Errc::kMalformed, format("point block of method row %u: document index %u beyond the %u documents", rid, p.document, ndocs)};
    if (!p.hidden && (p.end_line >= 0xFEEFEE || p.start_line >= 0xFEEFEE || p.end_line < p.start_line))
      return {Errc::kMalformed, format("point block of method row %u: line out of range", rid)};
    last_il = p.il_offset;
    have_last = true;
    out.push_back(p);
  }
  return {};
}

Status Cache::verify() const {
  Status s = verify_unchecked();
  if (changed()) return impl_->changed_error();
  return s;
}

Status Cache::verify_unchecked() const {
  const Impl& m = *impl_;
  const std::uint64_t sum = XXH3_64bits(m.data + d::kHeaderSize, static_cast<std::size_t>(m.header.payload_size));
  if (sum != m.header.payload_xxh3)
    return {Errc::kChecksum, format("payload checksum mismatch: header says %016llx, payload hashes to %016llx", static_cast<unsigned long long>(m.header.payload_xxh3), static_cast<unsigned long long>(sum))};
  // Directory (SPEC.md section 4): each group starts where the one before it ended, the block
  // ends are non-decreasing and inside the blocks, and the high halves of wide groups follow
  // each other in group order and fill block_ends_high exactly.
  const std::uint64_t blocks_end = m.blocks_size - d::kBlockTailPadding;
  std::uint64_t at_block = 0, at_high = 0;
  for (std::uint32_t g = 0; g < m.groups_count; ++g) {
    const fb::MethodGroup& grp = m.groups[g];
    const std::uint32_t first = g * d::kGroupRows;
    const std::uint32_t rows_here = std::min<std::uint32_t>(d::kGroupRows, m.method_rows - first);
    if (grp.base() != at_block)
      return {Errc::kMalformed, format("method directory group %u: base 0x%x is not where the group before it ends (0x%llx)", g, grp.base(), static_cast<unsigned long long>(at_block))};
    const bool wide = grp.high() != d::kGroupNarrow;
    if (wide && (grp.high() != at_high || at_high + rows_here > m.high_count))
      return {Errc::kMalformed, format("method directory group %u: high halves at %u, expected at %llu inside the %u of block_ends_high", g, grp.high(), static_cast<unsigned long long>(at_high), m.high_count)};
    for (std::uint32_t k = 0; k < rows_here; ++k) {
      std::uint64_t end = grp.base() + std::uint64_t(d::load_le16(m.ends + 2 * std::size_t(first + k)));
      if (wide) end += std::uint64_t(d::load_le16(m.high + 2 * (at_high + k))) << 16;
      if (end < at_block || end > blocks_end)
        return {Errc::kMalformed, format("method directory entry of method row %u: block end 0x%llx is out of order or beyond the point blocks", first + k + 1, static_cast<unsigned long long>(end))};
      at_block = end;
    }
    if (wide) at_high += rows_here;
  }
  if (at_high != m.high_count) return {Errc::kMalformed, "method directory: block_ends_high holds entries of no group"};
  if (at_block != blocks_end)
    return {Errc::kMalformed, "point blocks: bytes after the last method block"};
  for (std::size_t i = m.blocks_size - d::kBlockTailPadding; i < m.blocks_size; ++i)
    if (m.blocks[i] != 0) return {Errc::kMalformed, "point blocks: tail padding is not zero"};
  for (std::uint32_t i = 0; i < m.profiles.count; ++i)
    if (d::load_le64(m.profiles.data + std::size_t(i) * 8) & d::kProfileReservedBits)
      return {Errc::kMalformed, format("block profile %u: reserved bits are set", i)};
  // hidden_points (SPEC.md 5.5): sorted by (row, hidden), each naming a hidden record of its row.
  const auto* hp = m.root->hidden_points();
  const std::uint32_t hp_count = hp ? hp->size() : 0;
  std::uint32_t at_hp = 0;
  std::uint64_t total = 0, hidden = 0;
  std::vector<CachePoint> pts;
  for (std::uint32_t rid = 1; rid <= m.method_rows; ++rid) {
    pts.clear();
    if (Status s = points(rid, pts); !s) return s;
    const std::uint64_t row_hidden = static_cast<std::uint64_t>(std::count_if(pts.begin(), pts.end(), [](const CachePoint& p) { return p.hidden; }));
    for (std::uint64_t prev = 0, first = 1; at_hp < hp_count && hp->Get(at_hp)->row() == rid; ++at_hp, first = 0) {
      const std::uint32_t k = hp->Get(at_hp)->hidden();
      if (k >= row_hidden || (!first && k <= prev))
        return {Errc::kMalformed, format("hidden_points entry %u: hidden record %u of method row %u is out of order or absent", at_hp, k, rid)};
      prev = k;
    }
    if (at_hp < hp_count && hp->Get(at_hp)->row() < rid)
      return {Errc::kMalformed, format("hidden_points entry %u: method rows out of order", at_hp)};
    // A non-empty block (points() above accepted its header) must be exactly header +
    // records, rounded up to a byte.
    const std::uint8_t* rec;
    const std::uint8_t* end;
    d::BlockHeader h;
    if (m.block(rid, rec, end, h)) {
      if (std::uint64_t(end - rec) != h.records_bytes() || h.visible + h.hidden == 0)
        return {Errc::kMalformed, format("point block of method row %u: size does not match its header", rid)};
    }
    total += pts.size();
    for (const CachePoint& p : pts) hidden += p.hidden;
  }
  if (at_hp != hp_count)
    return {Errc::kMalformed, format("hidden_points entry %u: method row %u is not a row of the cache", at_hp, hp->Get(at_hp)->row())};
  if (total != m.root->point_count() || hidden != m.root->hidden_count())
    return {Errc::kMalformed, "point counts in the cache do not match its blocks"};
  if (m.strings_section.packed && !m.strings().ok) {
    Impl::Bytes again;
    std::unique_ptr<std::uint8_t[]> buffer;
    return m.unpack(*m.strings_section.packed, m.strings_section.what, buffer, again);
  }
  for (std::uint32_t i = 0; i < m.docs_count; ++i) {
    std::string_view t;
    if (!m.text(m.docs[i].path_offset(), m.docs[i].path_length(), t) ||
        !m.text(m.docs[i].url_offset(), m.docs[i].url_length(), t))
      return {Errc::kMalformed, format("document %u: path or URL range lies outside the string bytes", i)};
    if (static_cast<unsigned>(m.docs[i].language()) > static_cast<unsigned>(fb::Language::MAX))
      return {Errc::kMalformed, format("document %u: unknown language code %u", i, static_cast<unsigned>(m.docs[i].language()))};
  }
  auto details = this->details();
  if (!details) return details.status();
  if (const auto* es = static_cast<const fb::Details*>(*details)->embedded_sources()) {
    for (const fb::EmbeddedSource* e : *es)
      if (e->document() >= document_count())
        return {Errc::kMalformed, "embedded source names a document beyond the document table"};
  }
  if (const auto* id = m.root->identity(); !id || !id->pdb_id() || id->pdb_id()->size() != 20)
    return {Errc::kMalformed, "identity: PDB id missing or not 20 bytes"};
  if (Status s = m.verify_names(); !s) return s;
  return verify_line_index();
}

Status Cache::packed_line_index(std::span<const std::uint8_t>& out) const {
  const Impl& m = *impl_;
  out = {};
  if (!m.lines_section.packed) return {};
  const Impl::Bytes& b = m.bytes_of(m.lines_section);
  if (!b.ok) return m.lines_section.failure;
  out = {b.data, b.size};
  return {};
}

bool Cache::has_method_names() const noexcept { return impl_->names != nullptr; }
std::uint32_t Cache::method_name_count() const noexcept {
  const fb::MethodNameRef* refs;
  return impl_->name_refs(refs);
}

std::optional<MethodNameView> Cache::method_name(std::uint32_t token) const noexcept {
  const fb::MethodNameRef* m = impl_->name_ref(token);
  if (!m) return std::nullopt;
  MethodNameView v;
  if (!impl_->name_text(m->coreclr_offset(), m->coreclr_length(), v.coreclr) ||
      !impl_->name_text(m->mono_offset(), m->mono_length(), v.mono))
    return std::nullopt;
  v.kickoff = m->kickoff();
  v.iterator = (m->flags() & d::kNameIterator) != 0;
  v.bad_signature = (m->flags() & d::kNameBadSignature) != 0;
  if (changed()) return std::nullopt;
  return v;
}

std::size_t Cache::find_methods(std::string_view full_name, std::vector<std::uint32_t>& tokens) const {
  tokens.clear();
  const Impl& m = *impl_;
  const std::uint64_t h = XXH3_64bits(full_name.data(), full_name.size());
  if (!m.names) return 0;
  const std::vector<fb::NameIndexEntry>& index = m.name_index();
  const fb::NameIndexEntry* const end = index.data() + index.size();
  const fb::NameIndexEntry* it = std::lower_bound(index.data(), end, h,
      [](const fb::NameIndexEntry& e, std::uint64_t k) { return e.hash() < k; });
  for (; it != end && it->hash() == h; ++it) {
    std::string_view key;  // confirm: the stored key must equal the name
    if (m.entry_key(*it, key) && key == full_name) tokens.push_back(it->token());
  }
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  if (changed()) tokens.clear();
  return tokens.size();
}

std::optional<std::array<std::uint8_t, 16>> Cache::mvid() const noexcept {
  const fb::Guid* g = impl_->names ? impl_->names->mvid() : nullptr;
  if (!g && impl_->root->identity()) g = impl_->root->identity()->mvid();
  if (!g) return std::nullopt;
  std::array<std::uint8_t, 16> out{};
  std::copy(g->bytes()->begin(), g->bytes()->end(), out.begin());
  return out;
}

std::string_view Cache::assembly_name() const noexcept {
  const auto* s = impl_->names ? impl_->names->assembly_name() : nullptr;
  return s ? std::string_view(s->data(), s->size()) : std::string_view();
}

std::string_view Cache::module_name() const noexcept {
  const auto* s = impl_->names ? impl_->names->module_name() : nullptr;
  return s ? std::string_view(s->data(), s->size()) : std::string_view();
}

}  // namespace ilmap
