// Sections.cpp - the sections a cache may store packed (SPEC.md 3.8): one zstd frame each,
// unpacked once on first use under the Impl's mutex and published with release/acquire; the
// method-name columns and the line index are rebuilt into their plain layout as they unpack.
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "reader/CacheImpl.h"
#include "support/HugePages.h"

namespace ilmap {

// A packed section (SPEC.md 3.8): one zstd frame (not a skippable frame) whose header records
// its content size, at most max(64 MiB, 64 x the cache file's size) (a small frame cannot claim
// gigabytes), with nothing after it, that unpacks to exactly that size.
Status Cache::Impl::unpack(const flatbuffers::Vector<std::uint8_t>& packed, const char* what,
                           std::unique_ptr<std::uint8_t[]>& buffer, Bytes& out) const noexcept {
  out = {nullptr, 0, false};
  const unsigned long long n = packed.size() >= 4 && d::load_le32(packed.data()) == ZSTD_MAGICNUMBER
                                   ? ZSTD_getFrameContentSize(packed.data(), packed.size())
                                   : ZSTD_CONTENTSIZE_ERROR;
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN)
    return {Errc::kMalformed, format("cache: %s: not a zstd frame with a recorded content size", what)};
  // ZSTD_decompress would go on into a second frame, and skip a skippable one: the section is
  // the one frame alone.
  const std::size_t frame = ZSTD_findFrameCompressedSize(packed.data(), packed.size());
  if (!ZSTD_isError(frame) && frame < packed.size())
    return {Errc::kMalformed, format("cache: %s: %zu bytes after its zstd frame", what, packed.size() - frame)};
  const std::uint64_t cap = std::max<std::uint64_t>(std::uint64_t(64) << 20, std::uint64_t(size) * 64);
  if (n > cap || n > d::kMaxPayloadSize)
    return {Errc::kTooLarge, format("cache: %s: unpacks to %llu bytes, more than the limit of %llu for this cache", what, n,
                                    static_cast<unsigned long long>(std::min<std::uint64_t>(cap, d::kMaxPayloadSize)))};
  buffer.reset(new (std::nothrow) std::uint8_t[n ? n : 1]);
  if (!buffer) return {Errc::kTooLarge, format("cache: %s: out of memory unpacking %llu bytes", what, n)};
  prefault_for_write(buffer.get(), static_cast<std::size_t>(n));  // zstd writes it whole
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
  prefault_for_write(out.get(), in.size);
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
  sec.failure = in_structure(std::move(sec.failure), sec.structure);
  sec.ready.store(&sec.unpacked, std::memory_order_release);
  return sec.unpacked;
}

Status Cache::document_strings_status() const {
  const Impl& m = *impl_;
  Status s = m.strings().ok ? Status{} : m.strings_section.failure;
  if (changed()) return changed_status();
  return s;
}

Result<const void*> Cache::details() const {
  const Impl& m = *impl_;
  if (!m.root->details() && !m.root->details_zstd()) return {Errc::kMalformed, CacheStructure::kDetails, "cache: the details section is missing"};
  const Impl::Bytes& bytes = m.bytes_of(m.details_section);
  if (!bytes.ok) return m.details_section.failure.error();
  flatbuffers::Verifier::Options vo;
  vo.max_depth = 16;
  vo.max_tables = 1u << 24;
  flatbuffers::Verifier verifier(bytes.data, bytes.size, vo);
  if (!verifier.VerifyBuffer<fb::Details>(nullptr))
    return {Errc::kMalformed, CacheStructure::kDetails, "cache: the details section fails FlatBuffers verification"};
  const fb::Details* d = flatbuffers::GetRoot<fb::Details>(bytes.data);
  if (d->documents() && d->documents()->size() != impl_->docs_count)
    return {Errc::kMalformed, CacheStructure::kDetails, "cache: the details section describes a different number of documents"};
  if (changed()) return impl_->changed_error().error();
  return static_cast<const void*>(d);
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

}  // namespace ilmap
