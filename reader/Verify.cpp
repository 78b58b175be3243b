// Verify.cpp - Cache::verify (SPEC.md section 7, verify steps): the payload checksum, the method
// directory, every point block, hidden_points, the document table, the details, the names and
// the line index.
#include <xxhash.h>

#include <algorithm>

#include "reader/CacheImpl.h"

namespace ilmap {

Status Cache::verify() const {
  Status s = verify_unchecked();
  if (changed()) return impl_->changed_error();
  return s;
}

Status Cache::verify_unchecked() const {
  const Impl& m = *impl_;
  const std::uint64_t sum = XXH3_64bits(m.data + d::kHeaderSize, static_cast<std::size_t>(m.header.payload_size));
  if (sum != m.header.payload_xxh3)
    return {Errc::kChecksum, CacheStructure::kPayload, format("payload checksum mismatch: header says %016llx, payload hashes to %016llx", static_cast<unsigned long long>(m.header.payload_xxh3), static_cast<unsigned long long>(sum))};
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
      return {Errc::kMalformed, CacheStructure::kMethodDirectory, format("method directory group %u: base 0x%x is not where the group before it ends (0x%llx)", g, grp.base(), static_cast<unsigned long long>(at_block))};
    const bool wide = grp.high() != d::kGroupNarrow;
    if (wide && (grp.high() != at_high || at_high + rows_here > m.high_count))
      return {Errc::kMalformed, CacheStructure::kMethodDirectory, format("method directory group %u: high halves at %u, expected at %llu inside the %u of block_ends_high", g, grp.high(), static_cast<unsigned long long>(at_high), m.high_count)};
    for (std::uint32_t k = 0; k < rows_here; ++k) {
      std::uint64_t end = grp.base() + std::uint64_t(d::load_le16(m.ends + 2 * std::size_t(first + k)));
      if (wide) end += std::uint64_t(d::load_le16(m.high + 2 * (at_high + k))) << 16;
      if (end < at_block || end > blocks_end)
        return {Errc::kMalformed, CacheStructure::kMethodDirectory, format("method directory entry of method row %u: block end 0x%llx is out of order or beyond the point blocks", first + k + 1, static_cast<unsigned long long>(end))};
      at_block = end;
    }
    if (wide) at_high += rows_here;
  }
  if (at_high != m.high_count) return {Errc::kMalformed, CacheStructure::kMethodDirectory, "method directory: block_ends_high holds entries of no group"};
  if (at_block != blocks_end)
    return {Errc::kMalformed, CacheStructure::kMethodDirectory, "method directory: the last block end is not the end of the point blocks (bytes after the last method block)"};
  for (std::size_t i = m.blocks_size - d::kBlockTailPadding; i < m.blocks_size; ++i)
    if (m.blocks[i] != 0) return {Errc::kMalformed, CacheStructure::kPointBlocks, "point blocks: tail padding is not zero"};
  for (std::uint32_t i = 0; i < m.profiles.count; ++i)
    if (d::load_le64(m.profiles.data + std::size_t(i) * 8) & d::kProfileReservedBits)
      return {Errc::kMalformed, CacheStructure::kBlockProfiles, format("block profile %u: reserved bits are set", i)};
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
        return {Errc::kMalformed, CacheStructure::kHiddenPoints, format("hidden_points entry %u: hidden record %u of method row %u is out of order or absent", at_hp, k, rid)};
      prev = k;
    }
    if (at_hp < hp_count && hp->Get(at_hp)->row() < rid)
      return {Errc::kMalformed, CacheStructure::kHiddenPoints, format("hidden_points entry %u: method rows out of order", at_hp)};
    // A non-empty block (points() above accepted its header) must be exactly header +
    // records, rounded up to a byte.
    const std::uint8_t* rec;
    const std::uint8_t* end;
    d::BlockHeader h;
    if (m.block(rid, rec, end, h)) {
      if (std::uint64_t(end - rec) != h.records_bytes() || h.visible + h.hidden == 0)
        return {Errc::kMalformed, CacheStructure::kPointBlocks, format("point block of method row %u: size does not match its header", rid)};
    }
    total += pts.size();
    for (const CachePoint& p : pts) hidden += p.hidden;
  }
  if (at_hp != hp_count)
    return {Errc::kMalformed, CacheStructure::kHiddenPoints, format("hidden_points entry %u: method row %u is not a row of the cache", at_hp, hp->Get(at_hp)->row())};
  if (total != m.root->point_count() || hidden != m.root->hidden_count())
    return {Errc::kMalformed, CacheStructure::kPointBlocks, "point blocks: the point counts in the cache do not match its blocks"};
  if (!m.strings().ok) return m.strings_section.failure;
  for (std::uint32_t i = 0; i < m.docs_count; ++i) {
    std::string_view t;
    if (!m.text(m.docs[i].path_offset(), m.docs[i].path_length(), t) ||
        !m.text(m.docs[i].url_offset(), m.docs[i].url_length(), t))
      return {Errc::kMalformed, CacheStructure::kDocuments, format("document table: document %u: path or URL range lies outside the string bytes", i)};
    if (static_cast<unsigned>(m.docs[i].language()) > static_cast<unsigned>(fb::Language::MAX))
      return {Errc::kMalformed, CacheStructure::kDocuments, format("document table: document %u: unknown language code %u", i, static_cast<unsigned>(m.docs[i].language()))};
  }
  auto details = this->details();
  if (!details) return details.status();
  if (const auto* es = static_cast<const fb::Details*>(*details)->embedded_sources()) {
    for (const fb::EmbeddedSource* e : *es)
      if (e->document() >= document_count())
        return {Errc::kMalformed, CacheStructure::kDetails, "details: an embedded source names a document beyond the document table"};
  }
  if (const auto* id = m.root->identity(); !id || !id->pdb_id() || id->pdb_id()->size() != 20)
    return {Errc::kMalformed, CacheStructure::kIdentity, "identity: PDB id missing or not 20 bytes"};
  if (Status s = m.verify_names(); !s) return in_structure(s, CacheStructure::kNames);
  return in_structure(verify_line_index(), CacheStructure::kLineIndex);
}

}  // namespace ilmap
