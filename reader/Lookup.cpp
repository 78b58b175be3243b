// Lookup.cpp - the normative lookup (SPEC.md section 6) and the points of a method in PDB
// order (5.3, 5.5). Every read is bounded by the block's range: a corrupt block gives no answer.
//
// The lookup on one screen (SPEC.md 4, 5, 6; what each step refuses is in section 6):
//
//   token 0x06RRRRRR, IL offset x            (x >= 2^31, another table, r = 0 or r > M: none)
//     |  method directory (4): group g = (r-1)/64 -> MethodGroup{base, high}
//     |    e(r) = base + block_ends[r-1] (+ block_ends_high[high + k] << 16 in a wide group)
//     |    b(r) = base, or e(r-1) within the group            -> the block is [b, e)
//     v
//   block [b, e) of point_blocks (5.1):
//     [profile: 5 bytes, only when block_profile_index[r-1] = 0; else block_profiles[i-1]]
//     [V][H][base_line][base_doc]      each 0/1/2/4 bytes, as the profile's length codes say
//     [IL column: V entries of s = ceil(w_il/8) bytes]            <- searched, byte-aligned
//     [bit string: V records (line col dline ecol doc), then H records (il doc)]
//     [16 zero bytes of tail padding after the last block: loads need no bounds checks]
//     |  n = number of IL column entries <= x (sorted: halving to 64, three probes, then
//     |  eight at once with SSE2 in count_le); n = 0: none
//     v
//   visible record n-1: line = base_line + line, doc = base_doc + doc; documents[doc] gives
//   path, URL and language from the strings (3.3, 3.8)  -> LookupResult
//
// Hidden records are never read by a lookup: they never answer and never end the walk (6), so
// the last visible record at or before x is the runtime's answer. The profile table, each
// profile's decoded layout (BlockLayout) and the directory's vectors are found once at open
// (CacheOpen.cpp); a lookup is then a handful of dependent loads.
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>

#include "reader/CacheImpl.h"

namespace ilmap {

namespace {

// Number of IL column entries lo .. lo+n-1 (n <= 8, lo + n <= V = last + 1) that are <= il, in
// a column of w-byte entries starting at rec; on a sorted column they form a prefix. 1- and
// 2-byte entries (most methods) are compared eight at a time with SSE2: the 16-byte load stays
// inside the block or its tail padding, and lanes from n on are masked off. Otherwise each entry
// is probed, clamped to the last one and capped at n (as the probes of the search below).
inline std::uint32_t count_le(const std::uint8_t* rec, unsigned w, std::uint32_t lo, std::uint32_t n,
                              std::uint32_t last, std::uint32_t il) noexcept {
  if (w == 0) return n;  // every IL offset is 0 (a method whose points all start at IL 0)
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

// Inlined into Cache::lookup and Cache::lookup_row, which hand it the answer they return.
[[gnu::always_inline]] inline bool Cache::Impl::lookup_row(std::uint32_t rid, std::uint32_t il,
                                                           LookupResult& r) const noexcept {
  // The block and its layout (SPEC.md 6, steps 3-5). Unlike Impl::block, which decodes the
  // whole header for points() and verify, a lookup reads V and H first and the two bases only
  // once a record answers, and keeps the layout instead of copying its widths: fewer values
  // live across the search, one bounds check for header and records together.
  std::uint32_t b, e;
  if (block_range(rid, b, e) != Range::kBlock) return false;
  const std::uint8_t* p = blocks + b;
  const std::uint8_t* const end = blocks + e;
  // ProfileTable::layout_of's choice, with the table entry (what ilmap writes) as the likely
  // path: through layout_of a lookup took 2% more instructions.
  d::BlockLayout own;
  const d::BlockLayout* l;
  if (const std::uint32_t i = profiles.index[rid - 1]; i - 1 < profiles.count) [[likely]] {
    l = profiles.layouts + (i - 1);
  } else {
    if (i || e - b < d::kInlineProfileSize) return false;
    own = d::block_layout(d::load_le64(p) & d::kProfileBits);
    l = &own;
    p += d::kInlineProfileSize;
  }
  // p <= end here, so the header values (each read by a 4-byte load within 16 bytes of p) lie
  // inside the block or its tail padding; whether they and the records fit in the block is
  // checked next, before any record is read.
  if (!l->ok) return false;
  const std::uint32_t visible = d::load_le32(p) & l->mask[0];
  const std::uint32_t hidden = d::load_le32(p + l->at[1]) & l->mask[1];
  const std::uint8_t* const rec = p + l->size;
  const unsigned w = l->il_bytes;
  // Header, V * s bytes of IL column and ceil((V * R + H * (w_il + w_doc)) / 8) bytes of bit
  // string must fit in the block (step 5): the same comparison counted in bits.
  if (l->header_bits + std::uint64_t(visible) * l->visible_bits + std::uint64_t(hidden) * l->hidden_bits >
          8 * std::uint64_t(end - p) ||
      visible == 0)
    return false;
  // Visible records are in increasing IL order: count those with offset <= il. Invariant:
  // records below lo are <= il, records from lo + n on are > il. Long columns are first halved
  // down to 64 entries; from there the search has a fixed shape, and a column of at most 8
  // entries (most methods) skips straight to its last step. Every probe is a record index
  // below V, so it stays inside the block whatever the values are (a corrupt, unsorted column
  // gives some record, or none).
  const std::uint64_t mask = (std::uint64_t(1) << (8 * w)) - 1;
  auto il_at = [&](std::uint32_t k) { return d::load_le64(rec + std::size_t(k) * w) & mask; };
  std::uint32_t lo = 0, n = visible;
  while (n > 64) {
    const std::uint32_t half = n / 2;
    lo = il_at(lo + half) <= il ? lo + half : lo;
    n -= half;
  }
  // n <= 64: find j, the number of the entries lo + 8, lo + 16, ... lo + 56 that are <= il,
  // by three halving probes (lo + 32, then lo + 8j + 16, then lo + 8j + 8; none when n <= 8),
  // which leaves at most 8 candidates from lo + 8j; count those (count_le). Probes past the
  // column are clamped to its last entry, and j is capped at the number of probes that lie
  // below lo + n: on a sorted column, entries from lo + n on are > il, and a clamped probe is
  // <= il only when the whole range is, so the cap gives the exact count; on a corrupt column
  // it keeps lo within the column.
  const std::uint32_t last = visible - 1;
  std::uint32_t j = 0;
  if (n > 8) {
    for (std::uint32_t step = 4; step; step /= 2) j += il_at(std::min(lo + 8 * (j + step), last)) <= il ? step : 0;
    j = std::min(j, (n - 1) / 8);
  }
  lo += 8 * j;
  n = std::min<std::uint32_t>(n - 8 * j, 8);
  lo += count_le(rec, w, lo, n, last, il);
  if (lo == 0) return false;
  // Visible record lo - 1 (SPEC.md 5.2): its IL offset from the column, its other fields from
  // the bit string after the column, by one 8-byte load when they fit in 57 bits (all but
  // blocks of the widest fields).
  const std::uint64_t k = lo - 1;
  const std::uint32_t vil = d::load_le32(rec + k * w) & d::kLowBytes[w];
  // On a sorted column the record found is at or before `il`; on a corrupt one it may not be,
  // and then there is no answer (never a point after the offset).
  if (vil > il) return false;
  const std::uint8_t* const bits = rec + std::uint64_t(visible) * w;
  const std::uint64_t bit = k * l->rest_bits;
  const std::uint32_t base_line = d::load_le32(p + l->at[2]) & l->mask[2];
  const std::uint32_t base_doc = d::load_le32(p + l->at[3]) & l->mask[3];
  std::uint32_t line, column, dline, end_column, document;
  if (l->rest_bits <= 57) [[likely]] {
    const std::uint64_t x = d::load_le64(bits + (bit >> 3)) >> (bit & 7);
    line = static_cast<std::uint32_t>(x) & l->m_line;
    column = static_cast<std::uint32_t>(x >> l->at_col) & l->m_col;
    dline = static_cast<std::uint32_t>(x >> l->at_dline) & l->m_dline;
    end_column = static_cast<std::uint32_t>(x >> l->at_ecol) & l->m_ecol;
    document = static_cast<std::uint32_t>(x >> l->at_doc) & l->m_doc;
  } else {
    line = d::get_bits(bits, bit, l->w_line);
    column = d::get_bits(bits, bit + l->at_col, l->w_col);
    dline = d::get_bits(bits, bit + l->at_dline, l->w_dline);
    end_column = d::get_bits(bits, bit + l->at_ecol, l->w_ecol);
    document = d::get_bits(bits, bit + l->at_doc, l->w_doc);
  }
  line += base_line;  // the three sums modulo 2^32 (SPEC.md 5.2)
  document += base_doc;
  if (document >= docs_count) return false;
  const fb::DocumentRef& doc = docs[document];
  const Bytes& s = strings();  // one acquire load for both views
  const std::uint64_t po = doc.path_offset(), pl = doc.path_length(), uo = doc.url_offset(), ul = doc.url_length();
  if (po + pl > s.size || uo + ul > s.size) return false;
  const char* const text = reinterpret_cast<const char*>(s.data);
  r.file = {text + po, static_cast<std::size_t>(pl)};
  r.source_url = {text + uo, static_cast<std::size_t>(ul)};
  r.language = static_cast<Language>(doc.language());
  r.document = document;
  r.il_offset = vil;
  r.line = line;
  r.column = column;
  r.end_line = line + dline;
  r.end_column = end_column;
  return true;
}

// Lookups check changed() after their reads, a seqlock's re-check (ilmap/mapping_guard.h): an
// answer built from bytes a writer changed is dropped. The check is a fence and one load.
std::optional<LookupResult> Cache::lookup(std::uint32_t token, std::uint32_t il_offset) const noexcept {
  LookupResult r;
  if ((token >> 24) == 0x06 && il_offset < kNoIlOffsetFrom && impl_->lookup_row(token & 0xFFFFFF, il_offset, r) &&
      !impl_->guard.changed())
    return r;
  return std::nullopt;
}

std::optional<LookupResult> Cache::lookup_row(std::uint32_t rid, std::uint32_t il_offset) const noexcept {
  LookupResult r;
  if (il_offset < kNoIlOffsetFrom && impl_->lookup_row(rid, il_offset, r) && !impl_->guard.changed()) return r;
  return std::nullopt;
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
    return {Errc::kMalformed, CacheStructure::kMethodDirectory, format("method directory entry of method row %u: block range out of order or beyond the point blocks", rid)};
  const std::uint8_t* rec;
  const std::uint8_t* end;
  d::BlockHeader h;
  if (!impl_->block(rid, rec, end, h))
    return {Errc::kMalformed, CacheStructure::kPointBlocks, format("point block of method row %u (bytes 0x%x-0x%x): corrupt header or records past its end", rid, b, e)};
  // At most 8 records per byte of the block (SPEC.md 5.1), checked before listing them: records
  // of no bits could claim 2^32 points in a few bytes. A lookup, O(log V) and inside the
  // block's bytes whatever V is, does not need the check.
  if (std::uint64_t(h.visible) + h.hidden > 8 * std::uint64_t(e - b))
    return {Errc::kMalformed, CacheStructure::kPointBlocks, format("point block of method row %u (bytes 0x%x-0x%x): %llu points in %u bytes (at most 8 per byte)", rid, b, e,
                                     static_cast<unsigned long long>(std::uint64_t(h.visible) + h.hidden), e - b)};
  const std::uint32_t ndocs = document_count();
  // The row's entries of hidden_points (SPEC.md 5.5), sorted by (row, hidden).
  const fb::HiddenPoint* xp = nullptr;
  const fb::HiddenPoint* xe = nullptr;
  if (const auto* hp = impl_->root->hidden_points(); hp && hp->size()) {
    const fb::HiddenPoint* all = hp->Get(0);
    xp = std::lower_bound(all, all + hp->size(), rid, [](const fb::HiddenPoint& x, std::uint32_t r) { return x.row() < r; });
    xe = std::upper_bound(xp, all + hp->size(), rid, [](std::uint32_t r, const fb::HiddenPoint& x) { return r < x.row(); });
    if (xp != xe && (h.hidden == 0 || xe[-1].hidden() >= h.hidden))
      return {Errc::kMalformed, CacheStructure::kHiddenPoints, format("hidden_points: method row %u has no hidden record %u", rid, xe[-1].hidden())};
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
      return {Errc::kMalformed, CacheStructure::kHiddenPoints, format("hidden_points: the entry of method row %u, hidden record %u, is out of order or places it past the visible records", rid, hi)};
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
      return {Errc::kMalformed, CacheStructure::kPointBlocks, format("point block of method row %u: IL offset 0x%x wider than the block's %u-bit IL field", rid, p.il_offset, unsigned(h.w_il))};
    if (have_last && p.il_offset < last_il)
      return {Errc::kMalformed, CacheStructure::kPointBlocks, format("point block of method row %u: IL offsets decrease", rid)};
    if (p.document >= ndocs)
      return {Errc::kMalformed, CacheStructure::kPointBlocks, format("point block of method row %u: document index %u beyond the %u documents", rid, p.document, ndocs)};
    if (!p.hidden && (p.end_line >= 0xFEEFEE || p.start_line >= 0xFEEFEE || p.end_line < p.start_line))
      return {Errc::kMalformed, CacheStructure::kPointBlocks, format("point block of method row %u: line out of range", rid)};
    last_il = p.il_offset;
    have_last = true;
    out.push_back(p);
  }
  return {};
}

}  // namespace ilmap
