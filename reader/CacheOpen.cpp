// CacheOpen.cpp - open a cache (SPEC.md section 7, open steps): the header checked before
// anything is mapped, the mapping taken under a read lease (or the file read into memory), the
// FlatBuffers payload verified, and the sections lookups need located. Nothing proportional to
// the number of points.
#include <cerrno>
#include <cstring>

#include "reader/CacheImpl.h"

namespace ilmap {

// The checks of the 32-byte header against the file size: made on the bytes read with pread
// before a file is mapped (a multi-GB file that is no cache is never mapped), and again by
// validate() on the bytes the Cache holds.
Status Cache::Impl::check_header(const d::FileHeader& header, std::uint64_t size) {
  if (header.magic == d::kMagicSwapped)
    return {Errc::kBadMagic, CacheStructure::kHeader, "cache header at offset 0x0: written with the other byte order"};
  if (header.magic != d::kMagic || std::memcmp(header.identifier, d::kIdentifier, 4) != 0)
    return {Errc::kBadMagic, CacheStructure::kHeader, "cache header at offset 0x0: not an ilmap cache (magic/identifier mismatch)"};
  if (header.version_major != d::kVersionMajor)
    return {Errc::kBadVersion, CacheStructure::kHeader, format("cache header at offset 0x8: format version %u.%u is not supported (this reader reads %u.x)", header.version_major, header.version_minor, d::kVersionMajor)};
  if (header.header_size != d::kHeaderSize)
    return {Errc::kMalformed, CacheStructure::kHeader, format("cache header at offset 0xc: header size %u, expected %u", header.header_size, d::kHeaderSize)};
  if (header.payload_size != size - d::kHeaderSize)
    return {Errc::kTruncated, CacheStructure::kHeader, format("cache header at offset 0x10: payload size %llu but the file holds %llu bytes after the header", static_cast<unsigned long long>(header.payload_size), static_cast<unsigned long long>(size - d::kHeaderSize))};
  if (header.payload_size > d::kMaxPayloadSize)
    return {Errc::kTooLarge, CacheStructure::kHeader, "cache payload exceeds the 2 GiB FlatBuffers limit"};
  // The FlatBuffers root offset and file identifier take the first 8 payload bytes.
  if (header.payload_size < 8)
    return {Errc::kTruncated, CacheStructure::kHeader, format("cache payload at offset 0x20: %llu bytes, too short for a FlatBuffers root and identifier", static_cast<unsigned long long>(header.payload_size))};
  return {};
}

Status Cache::Impl::validate() {
  if (size < d::kHeaderSize)
    return {Errc::kTruncated, CacheStructure::kHeader, format("cache header: file has %zu bytes, the header needs %u", size, d::kHeaderSize)};
  std::memcpy(&header, data, sizeof header);
  if (Status s = check_header(header, size); !s) return s;
  const std::uint8_t* payload = data + d::kHeaderSize;
  flatbuffers::Verifier::Options vo;
  vo.max_depth = 16;
  vo.max_tables = 1u << 24;
  flatbuffers::Verifier v(payload, static_cast<std::size_t>(header.payload_size), vo);
  if (!fb::CacheBufferHasIdentifier(payload))
    return {Errc::kBadMagic, CacheStructure::kPayload, "cache payload at offset 0x20: FlatBuffers identifier is not ILMP"};
  if (!fb::VerifyCacheBuffer(v))
    return {Errc::kMalformed, CacheStructure::kPayload, "cache payload at offset 0x20: FlatBuffers verification failed (corrupt offsets, sizes or strings)"};
  root = fb::GetCache(payload);
  auto* mg = root->method_groups();
  auto* be = root->block_ends();
  auto* pb = root->point_blocks();
  if (!mg || !be)
    return {Errc::kMalformed, CacheStructure::kMethodDirectory, "cache: method directory (method_groups, block_ends) missing"};
  const std::uint64_t rows = root->method_rows(), need_groups = (rows + d::kGroupRows - 1) / d::kGroupRows;
  if (be->size() != rows || mg->size() != need_groups)
    return {Errc::kMalformed, CacheStructure::kMethodDirectory, format("cache: method directory of %u method rows has %u block ends and %u groups (expected %u and %u)",
                                     root->method_rows(), be->size(), mg->size(), root->method_rows(), static_cast<unsigned>(need_groups))};
  if (!pb || pb->size() < d::kBlockTailPadding)
    return {Errc::kMalformed, CacheStructure::kPointBlocks, "cache: point blocks missing or shorter than their tail padding"};
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
      return {Errc::kMalformed, CacheStructure::kBlockProfiles, format("cache: %u block profiles, more than the %u a one-byte index can name", bp->size(), d::kMaxProfiles)};
    profiles.data = reinterpret_cast<const std::uint8_t*>(bp->data());
    profiles.count = bp->size();
    layouts.reserve(profiles.count);
    for (std::uint32_t i = 0; i < profiles.count; ++i)
      layouts.push_back(d::block_layout(d::load_le64(profiles.data + std::size_t(i) * 8) & d::kProfileBits));
  }
  profiles.layouts = layouts.data();
  const auto* bpi = root->block_profile_index();
  if (!bpi || bpi->size() != rows)
    return {Errc::kMalformed, CacheStructure::kBlockProfiles, format("cache: block profiles: block_profile_index has %u entries, expected one per method row (%u)", bpi ? bpi->size() : 0u,
                                     root->method_rows())};
  profiles.index = bpi->data();
  if (Status s = check_one_form(); !s) return s;
  if (const auto* dv = root->documents()) {
    docs = reinterpret_cast<const fb::DocumentRef*>(dv->Data());
    docs_count = dv->size();
  }
  strings_section.what = "document strings (strings_zstd)";
  strings_section.structure = CacheStructure::kStrings;
  strings_section.set(root->strings(), root->strings_zstd());
  name_strings_section.what = "names: strings (strings_zstd)";
  name_methods_section.what = "names: methods (methods_zstd)";
  name_strings_section.structure = name_methods_section.structure = CacheStructure::kNames;
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
  details_section.what = "details (details_zstd)";
  details_section.structure = CacheStructure::kDetails;
  details_section.set(root->details(), root->details_zstd());
  // The line index (SPEC.md 3.7, open step 16): every 2.x writer writes it.
  const fb::LineIndex* li = root->lines();
  if (!li) return {Errc::kMalformed, CacheStructure::kLineIndex, "cache: line index (lines) missing"};
  if (!li->index_zstd() && !(li->doc_blocks() && li->blocks() && li->data()))
    return {Errc::kMalformed, CacheStructure::kLineIndex, "cache: line index (lines) has neither index_zstd nor doc_blocks, blocks and data"};
  lines_section.what = "line index (lines.index_zstd)";
  lines_section.structure = CacheStructure::kLineIndex;
  lines_section.decode = decode_line_index;
  lines_section.set(nullptr, li->index_zstd());
  return {};
}

// SPEC.md 3.8 and open step 15: a section that may be packed is stored either as is or packed,
// never both. ilmap's writers never write both; a reader that picked one form would answer from
// bytes that verify never compares with the other's, so such a cache is refused at open.
Status Cache::Impl::check_one_form() const {
  const char* both = nullptr;
  CacheStructure where = CacheStructure::kNone;
  const fb::LineIndex* li = root->lines();
  const fb::Names* n = root->names();
  if (root->strings() && root->strings_zstd()) both = "strings and strings_zstd", where = CacheStructure::kStrings;
  else if (root->details() && root->details_zstd()) both = "details and details_zstd", where = CacheStructure::kDetails;
  else if (n && n->methods() && n->methods_zstd()) both = "names: methods and methods_zstd", where = CacheStructure::kNames;
  else if (n && n->strings() && n->strings_zstd()) both = "names: strings and strings_zstd", where = CacheStructure::kNames;
  else if (li && li->index_zstd() && (li->doc_blocks() || li->blocks() || li->data()))
    both = "lines: index_zstd and doc_blocks, blocks or data", where = CacheStructure::kLineIndex;
  if (!both) return {};
  return {Errc::kMalformed, where, format("cache: %s are both present (a section is stored as is or packed, not both)", both)};
}

namespace {

// Reads exactly `n` bytes at `offset`; false with errno set (0 at an early end of file).
bool read_at(int fd, std::uint8_t* dst, std::size_t n, std::uint64_t offset, std::size_t& got) {
  got = 0;
  while (got < n) {
    const long long r = platform::read_at(fd, dst + got, n - got, offset + got);
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
    if (fd >= 0) platform::close_fd(fd);
  }
};

}  // namespace

Result<Cache> Cache::open(const std::string& path, const CacheOpenOptions& options) {
  auto impl = std::make_unique<Impl>();
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  Fd file{platform::open_read(path, platform::kNonBlock)};
  if (file.fd < 0) {
    // EMFILE: say which limit, since caches opened under a lease each hold a descriptor.
    if (errno == EMFILE)
      return Error{Errc::kIo, format("%s: cannot open: %s (the process's descriptor limit, RLIMIT_NOFILE, is reached; each cache mapped under a read lease holds one descriptor until closed)", path.c_str(), std::strerror(errno))};
    return Error{Errc::kIo, format("%s: cannot open: %s", path.c_str(), std::strerror(errno))};
  }
  platform::FileInfo st;
  if (!platform::stat_fd(file.fd, st))
    return Error{Errc::kIo, format("%s: cannot stat: %s", path.c_str(), std::strerror(errno))};
  if (st.directory()) return Error{Errc::kIo, format("%s: is a directory, expected a cache file", path.c_str())};
  if (!st.regular()) return Error{Errc::kIo, format("%s: not a regular file", path.c_str())};
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
      if (!platform::stat_fd(impl->fd, st))
        return Error{Errc::kIo, format("%s: cannot stat: %s", path.c_str(), std::strerror(errno))};
    }
  }
  const int fd = impl->fd >= 0 ? impl->fd : file.fd;
  impl->path = path;
  impl->stamp = FileStamp::of(st);
  const std::uint64_t size = st.size;
  // Check the header before mapping or reading the rest: a large file that is not a cache
  // costs one small read.
  if (size < d::kHeaderSize)
    return Error{Errc::kTruncated, format("%s: cache header: file has %llu bytes, the header needs %u", path.c_str(), static_cast<unsigned long long>(size), d::kHeaderSize), CacheStructure::kHeader};
  {
    d::FileHeader head{};
    std::size_t got = 0;
    if (!read_at(fd, reinterpret_cast<std::uint8_t*>(&head), sizeof head, 0, got))
      return Error{Errc::kIo, errno ? format("%s: read failed: %s", path.c_str(), std::strerror(errno))
                                    : format("%s: the file shrank to %zu bytes while being read", path.c_str(), got)};
    if (Status s = Impl::check_header(head, size); !s) return Error{s.code(), path + ": " + s.message(), s.structure()};
  }
  const auto n = static_cast<std::size_t>(size);
  if (impl->guard.valid()) {
    void* p = const_cast<void*>(platform::map_read(fd, n));
    if (p) {
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
    platform::FileInfo after;
    if (!platform::stat_fd(fd, after) || !(FileStamp::of(after) == impl->stamp) || impl->guard.changed())
      return impl->changed_error().error();
    impl->data = dst;
    if (impl->guard.valid()) {  // read after a failed mmap: no lease needed any more
      impl->guard.reset();
      platform::close_fd(impl->fd);
      impl->fd = -1;
    }
  }
  impl->size = n;
  if (Status s = impl->validate(); !s) {
    if (impl->guard.changed()) return impl->changed_error().error();
    return Error{s.code(), path + ": " + s.message(), s.structure()};
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

}  // namespace ilmap
