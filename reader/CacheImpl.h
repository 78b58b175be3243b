// CacheImpl.h - the reader's private state (Cache::Impl) and the method-directory and block
// access every reader file shares (SPEC.md sections 4 and 5). Not installed: the public API is
// include/ilmap/cache.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/ilmap_format.h"
#include "format/ilmap_lines_format.h"
#include "ilmap/cache.h"
#include "ilmap_generated.h"
#include "support/Platform.h"

namespace ilmap {

namespace d = ilmap::disk;

// The runtime's IL offsets are signed 32-bit; from here on (-1 = OFFSET_UNKNOWN) there is no answer.
inline constexpr std::uint32_t kNoIlOffsetFrom = 0x80000000u;

// What identifies the file a Cache was opened from, to notice it being replaced or rewritten.
struct FileStamp {
  std::uint64_t dev = 0, inode = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileStamp& o) const noexcept {
    return dev == o.dev && inode == o.inode && size == o.size && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns;
  }
  static FileStamp of(const platform::FileInfo& st) noexcept {
    return {st.device, st.inode, st.size, st.mtime_ns, st.ctime_ns};
  }
};

namespace detail {
struct BindingModel;  // reader/LineBinding.h
}

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
  std::vector<d::BlockLayout> layouts;  // the table's profiles decoded at open (profiles.layouts)
  const fb::DocumentRef* docs = nullptr;
  std::uint32_t docs_count = 0;
  // Document strings: the `strings` vector, or `strings_zstd` unpacked on first use
  // (SPEC.md 3.3, 3.8). `strings_ready` is published once (acquire/release) and never changes.
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
    CacheStructure structure = CacheStructure::kNone;  // named by its failures
    Decode decode = nullptr;
    Bytes plain;
    const flatbuffers::Vector<std::uint8_t>* packed = nullptr;
    mutable std::atomic<const Bytes*> ready{nullptr};
    mutable std::unique_ptr<std::uint8_t[]> buffer;
    mutable Bytes unpacked;
    mutable Status failure;  // why the packed form did not unpack (set before `ready`)
    // Sets the section from its two fields (at most one present: open step 15).
    void set(const flatbuffers::Vector<std::uint8_t>* raw, const flatbuffers::Vector<std::uint8_t>* z) noexcept {
      packed = raw ? nullptr : z;
      if (raw) plain = {raw->data(), raw->size(), true};
      if (!packed) ready.store(&plain, std::memory_order_release);
    }
  };
  Section strings_section, name_strings_section, name_methods_section, lines_section, details_section;
  mutable std::mutex unpack_mutex;
  // The debugger rule's model of a document set (SPEC.md 6.2 steps 6 and 7), built by the first
  // source-line query of that set (reader/LineIndex.cpp); at most one per distinct path.
  mutable std::mutex binding_mutex;
  mutable std::map<std::vector<std::uint32_t>, std::shared_ptr<const detail::BindingModel>> binding_models;

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
  // Method names (SPEC.md 3.6); names == nullptr without them. The method refs are `methods`,
  // or `methods_zstd` unpacked on first use (SPEC.md 3.8); the name index is
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
    if (map) platform::unmap(map, map_size);
    if (fd >= 0) platform::close_fd(fd);
  }

  Status changed_error() const { return Cache::changed_status(path.empty() ? std::string("cache") : path); }

  static Status check_header(const d::FileHeader& header, std::uint64_t size);
  Status validate();
  Status check_one_form() const;
  enum class Range { kNone, kBlock, kCorrupt };
  Range block_range(std::uint32_t rid, std::uint32_t& b, std::uint32_t& e) const noexcept;
  bool block(std::uint32_t rid, const std::uint8_t*& rec, const std::uint8_t*& end,
             d::BlockHeader& h) const noexcept;
  // The same, giving the block's layout too (`own` holds it for an inline profile), or null.
  const d::BlockLayout* block(std::uint32_t rid, const std::uint8_t*& rec, const std::uint8_t*& end, d::BlockHeader& h,
                              d::BlockLayout& own) const noexcept;
  // The normative lookup (SPEC.md 6) of row `rid`: sets `r` and returns true, or false (no answer).
  bool lookup_row(std::uint32_t rid, std::uint32_t il, LookupResult& r) const noexcept;
};

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

// Locates and decodes the header of method `rid`'s block; null (false) if absent or corrupt.
[[gnu::always_inline]] inline const d::BlockLayout* Cache::Impl::block(std::uint32_t rid, const std::uint8_t*& rec,
                                                                      const std::uint8_t*& end, d::BlockHeader& h,
                                                                      d::BlockLayout& own) const noexcept {
  std::uint32_t b, e;
  if (block_range(rid, b, e) != Range::kBlock) return nullptr;
  rec = blocks + b;
  end = blocks + e;
  const d::BlockLayout* l = profiles.layout_of(rid, rec, own);
  if (!l || !l->ok || !d::get_block_header(rec, end, *l, h)) return nullptr;
  // Widths are at most 31 by construction of the 5-bit fields; the records must fit.
  return d::records_bytes(h, *l) <= std::uint64_t(end - rec) ? l : nullptr;
}
inline bool Cache::Impl::block(std::uint32_t rid, const std::uint8_t*& rec, const std::uint8_t*& end,
                               d::BlockHeader& h) const noexcept {
  d::BlockLayout own;
  return block(rid, rec, end, h, own) != nullptr;
}

// The reader's files outside the Cache members (LineIndex.cpp) reach the Impl through this.
struct CacheInternals {
  using Impl = Cache::Impl;
  static const Impl& of(const Cache& c) noexcept { return *c.impl_; }
};

}  // namespace ilmap
