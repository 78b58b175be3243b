// Metadata.cpp - metadata root, stream headers, #Pdb, #~/#- header and table layout.
//
// ECMA-335 II.24.2.1-2.6 and PortablePdb-Metadata.md "#Pdb stream", with the checks
// System.Reflection.Metadata applies (MetadataReader.ReadMetadataHeader/ReadStreamHeaders,
// ReadStandalonePortablePdbStream, InitializeTableReaders).
#include "decode/Metadata.h"

#include <bit>

namespace ilmap {
namespace {

constexpr std::uint32_t kBsjb = 0x424A5342;
constexpr std::uint32_t kMaxVersionLength = 255;
constexpr std::uint8_t kHeapStrings4 = 0x01, kHeapGuid4 = 0x02, kHeapBlob4 = 0x04,
                       kHeapExtraData = 0x40;
// Type-system tables a #Pdb stream may reference: all of 0x00-0x2C except the Ptr and EnC
// tables (SRM MetadataFlags.ValidPortablePdbExternalTables).
constexpr std::uint64_t kTypeSystemTables = (std::uint64_t(1) << 0x2D) - 1;
constexpr std::uint64_t kPtrAndEncTables =
    (1ull << kFieldPtr) | (1ull << kMethodPtr) | (1ull << kParamPtr) | (1ull << kEventPtr) |
    (1ull << kPropertyPtr) | (1ull << kEncLog) | (1ull << kEncMap);
constexpr std::uint64_t kValidExternalTables = kTypeSystemTables & ~kPtrAndEncTables;
constexpr std::uint64_t kKnownTables =
    kTypeSystemTables | (((1ull << 8) - 1) << kFirstDebugTable);
constexpr std::uint64_t kMustBeSorted =
    (1ull << kLocalScope) | (1ull << kStateMachineMethod) | (1ull << kCustomDebugInformation);

}  // namespace

Result<Metadata> Metadata::parse(std::span<const std::uint8_t> bytes, std::size_t base) {
  Metadata md;
  md.bytes_ = bytes;
  md.base_ = base;
  ByteCursor c(bytes, base);
  std::uint32_t sig = 0, reserved = 0, version_len = 0;
  std::uint16_t major = 0, minor = 0;
  if (!c.read(sig) || !c.read(major) || !c.read(minor) || !c.read(reserved) ||
      !c.read(version_len))
    return Error{Errc::kTruncated, format("metadata root at offset 0x%zx: header truncated (%zu bytes available)", base, bytes.size())};
  if (sig != kBsjb)
    return Error{Errc::kBadMagic, format("metadata root at offset 0x%zx: signature 0x%08x is not BSJB", base, sig)};
  if (version_len > kMaxVersionLength || version_len > c.remaining())
    return Error{Errc::kMalformed, format("metadata root at offset 0x%zx: version string length %u invalid", base, version_len)};
  std::span<const std::uint8_t> vbytes;
  (void)c.bytes(version_len, vbytes);
  std::size_t vlen = 0;
  while (vlen < vbytes.size() && vbytes[vlen] != 0) ++vlen;
  md.version_ = {reinterpret_cast<const char*>(vbytes.data()), vlen};
  std::uint16_t flags = 0, streams = 0;
  if (!c.read(flags) || !c.read(streams))
    return Error{Errc::kTruncated, format("metadata root at offset 0x%zx: stream count truncated", base)};
  if (Status s = md.parse_streams(c, streams); !s) return s.error();
  if (md.pdb_.present) {
    if (Status s = md.parse_pdb_stream(); !s) return s.error();
  }
  if (Status s = md.parse_table_stream(); !s) return s.error();
  return md;
}

Status Metadata::parse_streams(ByteCursor& c, std::uint16_t count) {
  for (unsigned i = 0; i < count; ++i) {
    const std::size_t at = c.abs();
    std::uint32_t off = 0, size = 0;
    std::string_view name;
    if (!c.read(off) || !c.read(size))
      return {Errc::kTruncated, format("stream header %u at offset 0x%zx: truncated", i, at)};
    // Name: NUL-terminated ASCII, at most 32 bytes, padded to a 4-byte boundary.
    const std::size_t name_at = c.pos();
    const std::size_t left = c.remaining();
    if (!c.read_cstring(name)) {
      if (left < 32)
        return {Errc::kTruncated, format("stream header %u at offset 0x%zx: name runs past the end of the metadata", i, at)};
      return {Errc::kMalformed, format("stream header %u at offset 0x%zx: name not terminated within 32 bytes", i, at)};
    }
    if (name.size() >= 32)
      return {Errc::kMalformed, format("stream header %u at offset 0x%zx: name not terminated within 32 bytes", i, at)};
    std::size_t padded = (c.pos() - name_at + 3) & ~std::size_t(3);
    if (!c.seek(name_at + padded))
      return {Errc::kTruncated, format("stream header %u at offset 0x%zx: name padding truncated", i, at)};
    if (std::uint64_t(off) + size > bytes_.size())
      return {Errc::kTruncated, format("stream '%.*s' at offset 0x%zx: range 0x%x+0x%x exceeds metadata size 0x%zx", int(name.size()), name.data(), base_ + off, off, size, bytes_.size())};
    StreamRange r{base_ + off, bytes_.subspan(off, size), true};
    if (name == "#~" || name == "#-") {
      tables_ = r;
      uncompressed_ = name == "#-";
    } else if (name == "#Strings") {
      strings_ = r;
    } else if (name == "#US") {
      us_ = r;
    } else if (name == "#GUID") {
      guid_ = r;
    } else if (name == "#Blob") {
      blob_ = r;
    } else if (name == "#Pdb") {
      pdb_ = r;
    } else if (name == "#JTD") {
      minimal_delta_ = true;
    }
    // Unknown streams are skipped (obfuscators insert them; SRM does the same).
  }
  if (!tables_.present)
    return {Errc::kMalformed, format("metadata root at offset 0x%zx: no #~ or #- table stream", base_)};
  return {};
}

Status Metadata::parse_pdb_stream() {
  ByteCursor c(pdb_.data, pdb_.offset);
  std::span<const std::uint8_t> id;
  if (!c.bytes(20, id) || !c.read(pdb_header_.entry_point) || !c.read(pdb_header_.referenced_tables))
    return {Errc::kTruncated, format("#Pdb stream at offset 0x%zx: header truncated (size %zu)", pdb_.offset, pdb_.data.size())};
  std::copy(id.begin(), id.end(), pdb_header_.id.begin());
  const std::uint32_t ep = pdb_header_.entry_point;
  if (ep != 0 && ((ep >> 24) != kMethodDef || (ep & 0xFFFFFF) == 0))
    return {Errc::kMalformed, format("#Pdb stream at offset 0x%zx: entry point 0x%08x is not a MethodDef token", pdb_.offset, ep)};
  const std::uint64_t mask = pdb_header_.referenced_tables;
  if (mask & ~kValidExternalTables)
    return {Errc::kMalformed, format("#Pdb stream at offset 0x%zx: referenced-tables mask 0x%016llx names tables a PDB cannot reference", pdb_.offset, static_cast<unsigned long long>(mask))};
  for (unsigned t = 0; t < 64; ++t) {
    if (!(mask >> t & 1)) continue;
    std::uint32_t n = 0;
    if (!c.read(n))
      return {Errc::kTruncated, format("#Pdb stream at offset 0x%zx: row count of table 0x%02x truncated", c.abs(), t)};
    if (n > 0xFFFFFF)
      return {Errc::kMalformed, format("#Pdb stream at offset 0x%zx: row count %u of %s exceeds 0xFFFFFF", c.abs() - 4, n, table_name(t))};
    pdb_header_.external_rows[t] = n;
  }
  return {};
}

Status Metadata::parse_table_stream() {
  ByteCursor c(tables_.data, tables_.offset);
  std::uint32_t reserved = 0;
  std::uint8_t major = 0, minor = 0, reserved2 = 0;
  if (!c.read(reserved) || !c.read(major) || !c.read(minor) || !c.read(heap_sizes_) ||
      !c.read(reserved2) || !c.read(valid_) || !c.read(sorted_))
    return {Errc::kTruncated, format("table stream at offset 0x%zx: header truncated (size %zu)", tables_.offset, tables_.data.size())};
  if (valid_ & ~kKnownTables)
    return {Errc::kMalformed, format("table stream at offset 0x%zx: valid mask 0x%016llx has unknown tables", tables_.offset, static_cast<unsigned long long>(valid_))};
  std::array<std::uint32_t, kTableSlots> local{};
  for (unsigned t = 0; t < kTableSlots; ++t) {
    if (!(valid_ >> t & 1)) continue;
    if (!c.read(local[t]))
      return {Errc::kTruncated, format("table stream at offset 0x%zx: row count of %s truncated", c.abs(), table_name(t))};
    if (local[t] > 0xFFFFFF)
      return {Errc::kMalformed, format("table stream at offset 0x%zx: row count %u of %s exceeds 0xFFFFFF", c.abs() - 4, local[t], table_name(t))};
  }
  if (heap_sizes_ & kHeapExtraData) {
    if (!c.skip(4))
      return {Errc::kTruncated, format("table stream at offset 0x%zx: extra data truncated", c.abs())};
  }
  for (unsigned t = kFirstDebugTable; t < kTableSlots; ++t) {
    if (local[t] != 0 && (kMustBeSorted >> t & 1) && !(sorted_ >> t & 1))
      return {Errc::kMalformed, format("table stream at offset 0x%zx: %s has rows but is not marked sorted", tables_.offset, table_name(t))};
  }
  // Row counts used to size indices: a standalone PDB takes type-system counts from #Pdb.
  std::array<std::uint32_t, kTableSlots> sizing = local;
  if (pdb_.present) {
    for (unsigned t = 0; t < kFirstDebugTable; ++t) sizing[t] = pdb_header_.external_rows[t];
  }
  const bool all4 = minimal_delta_;
  const unsigned str_w = all4 || (heap_sizes_ & kHeapStrings4) ? 4 : 2;
  const unsigned guid_w = all4 || (heap_sizes_ & kHeapGuid4) ? 4 : 2;
  const unsigned blob_w = all4 || (heap_sizes_ & kHeapBlob4) ? 4 : 2;
  auto table_w = [&](unsigned t) -> unsigned { return all4 || sizing[t] >= 0x10000 ? 4 : 2; };
  auto coded_w = [&](CodedIndex k) -> unsigned {
    if (all4) return 4;
    const CodedIndexInfo& info = coded_index_info(k);
    const std::uint32_t limit = 1u << (16 - info.tag_bits);
    for (std::uint8_t t : info.tables)
      if (t != 0xFF && sizing[t] >= limit) return 4;
    return 2;
  };
  std::uint64_t offset = c.pos();
  for (unsigned t = 0; t < kTableSlots; ++t) {
    TableLayout& l = layout_[t];
    l.rows = local[t];
    unsigned size = 0, col = 0;
    for (const ColumnDef& d : table_columns(t)) {
      unsigned w = 0;
      switch (d.kind) {
        case ColumnKind::kU8x2:
        case ColumnKind::kU16: w = 2; break;
        case ColumnKind::kU32: w = 4; break;
        case ColumnKind::kString: w = str_w; break;
        case ColumnKind::kGuid: w = guid_w; break;
        case ColumnKind::kBlob: w = blob_w; break;
        case ColumnKind::kTable: w = table_w(d.arg); break;
        case ColumnKind::kCoded: w = coded_w(static_cast<CodedIndex>(d.arg)); break;
      }
      l.col_offset[col] = static_cast<std::uint8_t>(size);
      l.col_width[col] = static_cast<std::uint8_t>(w);
      size += w;
      ++col;
    }
    l.row_size = size;
    l.offset = static_cast<std::size_t>(offset);
    offset += std::uint64_t(l.rows) * size;  // at most 2^24 * 36: no overflow in 64 bits
    if (offset > tables_.data.size())
      return {Errc::kTruncated, format("table stream at offset 0x%zx: %s (%u rows of %u bytes) ends at 0x%llx, past the stream size 0x%zx", tables_.offset, table_name(t), l.rows, size, static_cast<unsigned long long>(offset), tables_.data.size())};
  }
  return {};
}

std::size_t Metadata::stream_size(std::string_view name) const {
  if (name == "#~" || name == "#-") return tables_.data.size();
  if (name == "#Strings") return strings_.data.size();
  if (name == "#US") return us_.data.size();
  if (name == "#GUID") return guid_.data.size();
  if (name == "#Blob") return blob_.data.size();
  if (name == "#Pdb") return pdb_.data.size();
  return 0;
}

Result<std::span<const std::uint8_t>> Metadata::blob(std::uint32_t offset) const {
  if (offset == 0) return std::span<const std::uint8_t>{};
  if (offset >= blob_.data.size())
    return Error{Errc::kMalformed, format("#Blob offset 0x%x beyond heap size 0x%zx", offset, blob_.data.size())};
  ByteCursor c(blob_.data, blob_.offset);
  (void)c.seek(offset);
  std::uint32_t len = 0;
  std::span<const std::uint8_t> out;
  if (!c.read_compressed(len) || !c.bytes(len, out))
    return Error{Errc::kTruncated, format("#Blob offset 0x%x (file offset 0x%zx): blob length invalid or past the heap end", offset, blob_.offset + offset)};
  return out;
}

Result<std::string_view> Metadata::string(std::uint32_t offset) const {
  if (offset == 0 && strings_.data.empty()) return std::string_view{};
  if (offset >= strings_.data.size())
    return Error{Errc::kMalformed, format("#Strings offset 0x%x beyond heap size 0x%zx", offset, strings_.data.size())};
  ByteCursor c(strings_.data, strings_.offset);
  (void)c.seek(offset);
  std::string_view s;
  if (!c.read_cstring(s))
    return Error{Errc::kTruncated, format("#Strings offset 0x%x: string not terminated before the heap end", offset)};
  return s;
}

Result<Guid> Metadata::guid(std::uint32_t index) const {
  Guid g{};
  if (index == 0) return g;
  if (std::uint64_t(index) * 16 > guid_.data.size())
    return Error{Errc::kMalformed, format("#GUID index %u beyond heap size 0x%zx", index, guid_.data.size())};
  std::memcpy(g.data(), guid_.data.data() + std::size_t(index - 1) * 16, 16);
  return g;
}

}  // namespace ilmap
