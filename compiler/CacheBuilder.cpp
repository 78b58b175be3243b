// CacheBuilder.cpp - writes format 2.0: 32-byte header + FlatBuffers payload (schema/ilmap.fbs)
// with bit-packed point blocks (schema/ilmap_format.h, SPEC.md section 5).
#include "compiler/CacheBuilder.h"

#include <flatbuffers/flatbuffers.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "decode/EmbeddedSources.h"
#include "compiler/BuildInput.h"
#include "compiler/LineIndexWriter.h"
#include "compiler/ScratchBuffers.h"
#include "compiler/NamesSection.h"
#include "decode/PdbChecksum.h"
#include "decode/SourceLink.h"
#include "support/ZstdPack.h"
#include "decode/msf/MsfPdb.h"
#include "decode/msf/SrcSrv.h"
#include "format/ilmap_format.h"
#include "ilmap_generated.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

// Writes bits LSB-first: each put stores 8 bytes at the current byte (so the buffer needs 8
// bytes of slack after the last byte written) and advances by the whole bytes filled.
class BitWriter {
 public:
  explicit BitWriter(std::uint8_t* out) : p_(out) {}
  // v < 2^width, width <= 56.
  void put(std::uint64_t v, unsigned width) {
    acc_ |= v << fill_;  // fill_ < 8
    std::memcpy(p_, &acc_, 8);
    fill_ += width;
    p_ += fill_ >> 3;
    acc_ >>= fill_ & ~7u;  // at most 56
    fill_ &= 7;
  }
  // One past the last byte holding a bit.
  std::uint8_t* finish() const { return p_ + (fill_ ? 1 : 0); }

 private:
  std::uint8_t* p_;
  std::uint64_t acc_ = 0;
  unsigned fill_ = 0;
};

// Chooses a base for a field: the minimum (so widths cover max-min) or zero (so the base takes
// no header byte), whichever makes the block smaller.
void choose_base(std::uint32_t lo, std::uint32_t hi, std::size_t count, std::uint32_t& base,
                 std::uint8_t& width) {
  const unsigned w_min = f::bit_width(hi - lo);
  const unsigned w_zero = f::bit_width(hi);
  const std::uint64_t cost_min = f::code_bytes(f::length_code(lo)) * 8 + std::uint64_t(w_min) * count;
  const std::uint64_t cost_zero = std::uint64_t(w_zero) * count;
  if (cost_zero <= cost_min) {
    base = 0;
    width = static_cast<std::uint8_t>(w_zero);
  } else {
    base = lo;
    width = static_cast<std::uint8_t>(w_min);
  }
}

// Collects one method's points as they are decoded (the sink of decode_sequence_points_to:
// visible and hidden points into separate arrays, no capacity checks thanks to reserve), then
// appends its block (SPEC.md section 5) to the point blocks.
class BlockEncoder {
 public:
  struct Visible {
    std::uint32_t il, line, dline, doc;  // doc: 0-based
    std::uint16_t col, ecol;
  };
  struct Hidden {
    std::uint32_t il, doc;
  };

  void reserve(std::size_t n) {
    if (n > cap_) {
      cap_ = std::max(n, cap_ * 2);
      visible_.reset(new Visible[cap_]);
      hidden_.reset(new Hidden[cap_]);
    }
    nv_ = visible_.get();
    nh_ = hidden_.get();
  }
  void reset() {
    nv_ = visible_.get();
    nh_ = hidden_.get();
  }

  void operator()(const SequencePoint& p) {
    if (p.hidden()) {
      *nh_++ = {p.il_offset, p.document - 1};
    } else {
      *nv_++ = {p.il_offset, p.start_line, p.end_line - p.start_line, p.document - 1,
                p.start_column, p.end_column};
    }
  }

  // The method's visible points for the reverse line index (SPEC.md 3.7): ordinal = position
  // among the visible records, which are in IL order.
  void line_points(std::uint32_t rid, std::vector<LinePoint>& out) const {
    std::uint32_t k = 0;
    for (const Visible* v = visible_.get(); v != nv_; ++v, ++k) out.push_back({v->doc, v->line, v->col, rid, k});
  }

  std::uint32_t visible() const { return static_cast<std::uint32_t>(nv_ - visible_.get()); }
  std::uint32_t hidden() const { return static_cast<std::uint32_t>(nh_ - hidden_.get()); }
  std::uint32_t count() const { return visible() + hidden(); }

  // Appends the block's header values and records and returns its profile (the writer puts the
  // profile in the table or in front of the block, SPEC.md 5.1); nothing for a method without
  // points.
  std::uint64_t append_to(ByteBuffer& out) const {
    if (count() == 0) return 0;
    std::uint64_t profile;
    const f::BlockHeader h = header(profile);
    // Room for the header, the records and 8 bytes of store slack.
    std::uint8_t* const start = out.room(f::kMaxBlockHeaderSize + static_cast<std::size_t>(h.records_bytes()) + 8);
    out.set_size(out.size() + static_cast<std::size_t>(write(h, profile, start) - start));
    return profile;
  }

  // The block's header and profile. Needs count() >= 1.
  f::BlockHeader header(std::uint64_t& profile) const {
    const Visible* const vb = visible_.get();
    const Hidden* const hb = hidden_.get();
    const std::uint32_t nv = visible(), nh = hidden();
    // Ranges. A width depends only on the highest set bit, so OR stands in for max.
    std::uint32_t or_il = 0, or_col = 0, or_dline = 0, or_ecol = 0;
    std::uint32_t min_line = UINT32_MAX, max_line = 0, min_doc = UINT32_MAX, max_doc = 0;
    for (const Visible* v = vb; v != nv_; ++v) {
      or_il |= v->il;
      or_col |= v->col;
      or_dline |= v->dline;
      or_ecol |= v->ecol;
      min_line = std::min(min_line, v->line);
      max_line = std::max(max_line, v->line);
      min_doc = std::min(min_doc, v->doc);
      max_doc = std::max(max_doc, v->doc);
    }
    for (const Hidden* q = hb; q != nh_; ++q) {
      or_il |= q->il;
      min_doc = std::min(min_doc, q->doc);
      max_doc = std::max(max_doc, q->doc);
    }
    f::BlockHeader h;
    h.visible = nv;
    h.hidden = nh;
    h.w_il = static_cast<std::uint8_t>(f::bit_width(or_il));
    h.w_col = static_cast<std::uint8_t>(f::bit_width(or_col));
    h.w_dline = static_cast<std::uint8_t>(f::bit_width(or_dline));
    h.w_ecol = static_cast<std::uint8_t>(f::bit_width(or_ecol));
    if (nv == 0) {
      h.base_line = 0;
      h.w_line = 0;
    } else {
      choose_base(min_line, max_line, nv, h.base_line, h.w_line);
    }
    choose_base(min_doc, max_doc, std::size_t(nv) + nh, h.base_doc, h.w_doc);
    profile = f::block_profile(h);
    return h;
  }

  // Writes the block's header values and records in the widths and codes of `h` and `profile`
  // at `p`, which must have room for them and 8 bytes more; returns the end of the block.
  std::uint8_t* write(const f::BlockHeader& h, std::uint64_t profile, std::uint8_t* p) const {
    const Visible* const vb = visible_.get();
    const Hidden* const hb = hidden_.get();
    const std::uint32_t nh = hidden();
    const unsigned hbits = h.hidden_bits(), il_bytes = h.il_bytes();
    p += f::put_block_values(p, h, static_cast<unsigned>(profile >> 32));
    const std::uint32_t base_line = h.base_line, base_doc = h.base_doc;
    // The IL column first (what a lookup searches; byte-aligned entries, each stored as 8
    // little-endian bytes that the next entry overwrites), then the bit string.
    const Visible* const ve = nv_;
    if (il_bytes) {
      for (const Visible* v = vb; v != ve; ++v) {
        std::uint64_t x = v->il;
        if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
        std::memcpy(p, &x, 8);
        p += il_bytes;
      }
    }
    BitWriter bw(p);
    const unsigned rest = h.rest_bits();
    if (rest <= 56) {
      // Usual case: a whole record in one put. Fields are placed by multiplying with 2^shift
      // (no shift-count register juggling without BMI2).
      const std::uint64_t m2 = std::uint64_t(1) << h.w_line, m3 = m2 << h.w_col,
                          m4 = m3 << h.w_dline, m5 = m4 << h.w_ecol;
      for (const Visible* v = vb; v != ve; ++v) {
        const std::uint64_t r = std::uint64_t(v->line - base_line) + std::uint64_t(v->col) * m2 +
                                std::uint64_t(v->dline) * m3 + std::uint64_t(v->ecol) * m4 +
                                std::uint64_t(v->doc - base_doc) * m5;
        bw.put(r, rest);
      }
    } else {
      for (const Visible* v = vb; v != ve; ++v) {
        bw.put(v->line - base_line, h.w_line);
        bw.put(v->col, h.w_col);
        bw.put(v->dline, h.w_dline);
        bw.put(v->ecol, h.w_ecol);
        bw.put(v->doc - base_doc, h.w_doc);
      }
    }
    if (nh) {
      if (hbits <= 56) {
        for (const Hidden* q = hb; q != nh_; ++q)
          bw.put(std::uint64_t(q->il) | std::uint64_t(q->doc - base_doc) << h.w_il, hbits);
      } else {
        for (const Hidden* q = hb; q != nh_; ++q) {
          bw.put(q->il, h.w_il);
          bw.put(q->doc - base_doc, h.w_doc);
        }
      }
    }
    return bw.finish();
  }

 private:
  std::unique_ptr<Visible[]> visible_;
  std::unique_ptr<Hidden[]> hidden_;
  std::size_t cap_ = 0;
  Visible* nv_ = nullptr;
  Hidden* nh_ = nullptr;
};

// A run of consecutive methods [first, last] and their encoded blocks; ends[i] is the end of
// method first+i's block within `blocks`.
struct BlockChunk {
  std::uint32_t first = 1, last = 0;
  ByteBuffer blocks;
  std::vector<std::uint32_t> ends;
  std::vector<std::uint64_t> profiles;  // of each block (methods with points), in row order
  std::vector<std::uint64_t> counts;    // of each block: V | H << 32
  std::size_t first_block = 0;          // index of the chunk's first block among all blocks
  std::vector<LinePoint> lines;  // visible points for the line index
  std::vector<fb::HiddenPoint> hidden_points;  // SPEC.md 5.5, by (row, hidden)
  std::uint64_t total = 0, hidden = 0;
  Status status;
};

constexpr unsigned kMaxEncodeThreads = 64;

// Decodes the points of method row `rid` into `enc` (reset first); a Windows PDB's hidden
// points that their hidden records cannot describe go to `hidden_points` (SPEC.md 5.5).
Status decode_row(const BuildInput& in, std::uint32_t rid, BlockEncoder& enc, std::vector<fb::HiddenPoint>& hidden_points) {
  enc.reset();
  if (in.portable) return in.portable->for_each_sequence_point(rid, enc);
  const msf::MsfMethod* m = in.msf_by_row[rid - 1];
  if (!m) return {};
  if (Status s = check_msf_points(*m, rid, hidden_points); !s) return s;
  enc.reserve(m->points.size());
  for (const SequencePoint& p : m->points) enc(p);
  return {};
}

void encode_chunk(const BuildInput& in, BlockChunk& c) {
  BlockEncoder enc;
  c.ends.reserve(c.last >= c.first ? c.last - c.first + 1 : 0);
  for (std::uint32_t rid = c.first; rid <= c.last; ++rid) {
    if (Status s = decode_row(in, rid, enc, c.hidden_points); !s) {
      c.status = s;
      return;
    }
    c.total += enc.count();
    c.hidden += enc.hidden();
    enc.line_points(rid, c.lines);
    if (enc.count()) {
      c.profiles.push_back(enc.append_to(c.blocks));
      c.counts.push_back(std::uint64_t(enc.visible()) | std::uint64_t(enc.hidden()) << 32);
    }
    if (c.blocks.size() > UINT32_MAX) {
      c.status = {Errc::kTooLarge, "point blocks exceed 4 GiB, the limit of the cache format"};
      return;
    }
    c.ends.push_back(static_cast<std::uint32_t>(c.blocks.size()));
  }
}

fb::Language language_of(const Guid& g) {
  if (g == Guid{}) return fb::Language::Unknown;
  if (g == guids::kLanguageCSharp) return fb::Language::CSharp;
  if (g == guids::kLanguageVisualBasic) return fb::Language::VisualBasic;
  if (g == guids::kLanguageFSharp) return fb::Language::FSharp;
  return fb::Language::Other;
}

fb::HashAlgorithm hash_algorithm_of(const Guid& g) {
  if (g == Guid{}) return fb::HashAlgorithm::None;
  if (g == guids::kHashSha1) return fb::HashAlgorithm::Sha1;
  if (g == guids::kHashSha256) return fb::HashAlgorithm::Sha256;
  return fb::HashAlgorithm::Other;
}

fb::Guid to_fb(const Guid& g) { return fb::Guid(flatbuffers::span<const std::uint8_t, 16>(g.data(), 16)); }

// The nested Details buffer: cold per-document data, SourceLink entries, embedded sources.
Result<std::vector<std::uint8_t>> build_details(const PortablePdb* pdb, const std::vector<Document>& docs,
                                                const SourceLinkMap* sourcelink,
                                                const CacheBuildOptions& opt, bool& holds_sources,
                                                CacheStats* stats) {
  flatbuffers::FlatBufferBuilder fbb(1024 + docs.size() * 64);
  std::vector<flatbuffers::Offset<fb::DocumentDetails>> dd;
  dd.reserve(docs.size());
  for (const Document& d : docs) {
    const fb::Guid lang = to_fb(d.language), alg = to_fb(d.hash_algorithm);
    auto hash = fbb.CreateVector(d.hash.data(), d.hash.size());
    dd.push_back(fb::CreateDocumentDetails(fbb, &lang, hash_algorithm_of(d.hash_algorithm), &alg, hash));
  }
  auto documents = fbb.CreateVector(dd);
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::SourceLinkEntry>>> sl_vec;
  if (sourcelink) {
    std::vector<flatbuffers::Offset<fb::SourceLinkEntry>> v;
    for (const SourceLinkEntry& e : sourcelink->entries())
      v.push_back(fb::CreateSourceLinkEntry(fbb, fbb.CreateString(e.key), e.prefix, fbb.CreateString(e.url),
                                            e.url_has_star ? fbb.CreateString(e.url_suffix) : 0));
    sl_vec = fbb.CreateVector(v);
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::EmbeddedSource>>> es_vec;
  holds_sources = false;
  if (opt.embed_sources && pdb) {
    // Each distinct blob is inflated and compressed once; documents sharing it share the
    // compressed bytes too (one FlatBuffers vector referenced by several tables).
    EmbeddedSourceReader reader(*pdb, opt.max_embedded_source,
                                opt.max_embedded_total ? opt.max_embedded_total : opt.max_embedded_source);
    std::unordered_map<std::uint32_t, flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>>> stored;
    std::vector<flatbuffers::Offset<fb::EmbeddedSource>> v;
    for (std::uint32_t rid = 1; rid <= pdb->document_count(); ++rid) {
      auto src = reader.read(rid);
      if (!src) return src.error();
      if (!*src) continue;
      const EmbeddedSource& es = **src;
      auto& data = stored[es.blob_offset];
      if (!es.shared) {
        // Left uninitialised (not a zero-filled vector): only the pages zstd writes become
        // resident, so the peak is the source plus its compressed form, not twice the source.
        const std::size_t bound = ZSTD_compressBound(es.bytes.size());
        std::unique_ptr<std::uint8_t[]> z(new (std::nothrow) std::uint8_t[bound]);
        if (!z) return Error{Errc::kTooLarge, format("out of memory compressing the embedded source of Document row %u", rid)};
        const std::size_t zn = ZSTD_compress(z.get(), bound, es.bytes.data(), es.bytes.size(), opt.zstd_level);
        if (ZSTD_isError(zn)) return Error{Errc::kIo, format("zstd compression failed: %s", ZSTD_getErrorName(zn))};
        data = fbb.CreateVector(z.get(), zn);
      }
      v.push_back(fb::CreateEmbeddedSource(fbb, rid - 1, es.size, data));
    }
    if (stats) {
      stats->embedded_source_inflations = reader.inflations();
      stats->embedded_source_bytes = reader.inflated_bytes();
    }
    if (!v.empty()) {
      es_vec = fbb.CreateVector(v);
      holds_sources = true;
    }
  }
  fb::DetailsBuilder db(fbb);
  db.add_documents(documents);
  if (!sl_vec.IsNull()) db.add_source_link(sl_vec);
  if (!es_vec.IsNull()) db.add_embedded_sources(es_vec);
  fbb.Finish(db.Finish());
  return std::vector<std::uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// Document paths and URLs, deduplicated, in one byte vector.
class StringPool {
 public:
  std::pair<std::uint32_t, std::uint32_t> add(std::string_view s) {
    auto [it, fresh] = index_.try_emplace(std::string(s), static_cast<std::uint32_t>(bytes_.size()));
    if (fresh) bytes_.insert(bytes_.end(), s.begin(), s.end());
    return {it->second, static_cast<std::uint32_t>(s.size())};
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }

 private:
  std::unordered_map<std::string, std::uint32_t> index_;
  std::vector<std::uint8_t> bytes_;
};

// The method directory of format 2.0 (SPEC.md section 4) from the block ends of rows 1..M
// (offsets[r] = end of row r's block, offsets[0] = 0): per 64 rows the start of the group's
// first block, and per row the end of its block relative to that start, in 16 bits, with the
// high 16 bits kept apart for a group that spans 64 KiB or more.
struct MethodDirectory {
  std::vector<fb::MethodGroup> groups;
  std::vector<std::uint16_t> ends, high;
};
MethodDirectory build_directory(const std::vector<std::uint32_t>& offsets) {
  MethodDirectory dir;
  const std::size_t rows = offsets.size() - 1;
  dir.groups.reserve((rows + f::kGroupRows - 1) / f::kGroupRows);
  dir.ends.reserve(rows);
  for (std::size_t first = 0; first < rows; first += f::kGroupRows) {
    const std::size_t last = std::min(rows, first + f::kGroupRows);
    const std::uint32_t base = offsets[first];
    const bool wide = offsets[last] - base > 0xFFFF;
    dir.groups.emplace_back(base, wide ? static_cast<std::uint32_t>(dir.high.size()) : f::kGroupNarrow);
    for (std::size_t r = first; r < last; ++r) {
      const std::uint32_t rel = offsets[r + 1] - base;
      dir.ends.push_back(static_cast<std::uint16_t>(rel));
      if (wide) dir.high.push_back(static_cast<std::uint16_t>(rel >> 16));
    }
  }
  return dir;
}

// Document paths and URLs, and the Details buffer, packed like the other sections (SPEC.md 3.8,
// compiler/ZstdPack: level 1, one context and scratch memory per thread outside the malloc
// heap): they compress 5-15x (paths share directories, each URL repeats its path). `bytes` as
// one zstd frame (content size recorded), or nothing when that is not smaller or zstd fails.
std::optional<std::vector<std::uint8_t>> pack_section(std::span<const std::uint8_t> bytes) {
  const std::span<const std::uint8_t> z = zstd_pack(bytes);
  if (z.empty()) return std::nullopt;
  return std::vector<std::uint8_t>(z.begin(), z.end());
}

// The six widths of a profile (SPEC.md 5.1) into `h`.
void set_widths(f::BlockHeader& h, std::uint64_t profile) {
  const auto w = static_cast<std::uint32_t>(profile);
  h.w_il = w & 31;
  h.w_col = w >> 5 & 31;
  h.w_ecol = w >> 10 & 31;
  h.w_line = w >> 15 & 31;
  h.w_dline = w >> 20 & 31;
  h.w_doc = w >> 25 & 31;
}

// Bytes of the header values in a profile's length codes.
unsigned header_bytes(std::uint64_t profile) {
  unsigned n = 0;
  for (unsigned i = 0; i < 4; ++i) n += f::code_bytes(static_cast<unsigned>(profile >> (32 + 2 * i) & 3));
  return n;
}

// Writes the block [src, end) of profile `own` (not in front of it) in profile `target`, which
// dominates it, at `out`; returns the end of the new block. The header values and every field
// keep their values (bases included), only widths and length codes grow. [src, end) must be
// followed by 8 readable bytes (the encoder's slack) and `out` by 8 writable ones.
std::uint8_t* rewrite_block(const std::uint8_t* src, const std::uint8_t* end, std::uint64_t own, std::uint64_t target,
                            std::uint8_t* out) {
  f::BlockHeader h;
  const std::uint8_t* p = src;
  if (!f::get_block_header(p, end, own, h)) return out;  // not reached: the encoder wrote it
  f::BlockHeader t = h;
  set_widths(t, target);
  out += f::put_block_values(out, t, static_cast<unsigned>(target >> 32));
  const unsigned from = h.il_bytes(), to = t.il_bytes();
  for (std::uint32_t k = 0; k < h.visible; ++k) {
    std::uint64_t x = f::get_visible_il(p, k, h);
    if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);
    std::memcpy(out, &x, 8);
    out += to;
  }
  const std::uint8_t* const bits = p + std::size_t(h.visible) * from;
  std::uint64_t at = 0;
  BitWriter bw(out);
  auto copy = [&](unsigned width_from, unsigned width_to) {
    bw.put(f::get_bits(bits, at, width_from), width_to);
    at += width_from;
  };
  const unsigned rest_from = h.rest_bits(), rest_to = t.rest_bits();
  if (rest_from <= 56) {
    // Usual case: each record read in one load and its fields moved to their new places,
    // written in one put (or one per field when the new record is wider than 56 bits).
    const unsigned s1 = h.w_line, s2 = s1 + h.w_col, s3 = s2 + h.w_dline, s4 = s3 + h.w_ecol;
    const std::uint64_t m1 = (std::uint64_t(1) << h.w_line) - 1, m2 = (std::uint64_t(1) << h.w_col) - 1,
                        m3 = (std::uint64_t(1) << h.w_dline) - 1, m4 = (std::uint64_t(1) << h.w_ecol) - 1;
    const unsigned d1 = t.w_line, d2 = d1 + t.w_col, d3 = d2 + t.w_dline, d4 = d3 + t.w_ecol;
    const std::uint64_t all = (std::uint64_t(1) << rest_from) - 1;
    for (std::uint32_t k = 0; k < h.visible; ++k) {
      const std::uint64_t r = f::load_le64(bits + (at >> 3)) >> (at & 7) & all;
      at += rest_from;
      if (rest_to <= 56) {
        bw.put((r & m1) | (r >> s1 & m2) << d1 | (r >> s2 & m3) << d2 | (r >> s3 & m4) << d3 | (r >> s4) << d4, rest_to);
      } else {
        bw.put(r & m1, t.w_line);
        bw.put(r >> s1 & m2, t.w_col);
        bw.put(r >> s2 & m3, t.w_dline);
        bw.put(r >> s3 & m4, t.w_ecol);
        bw.put(r >> s4, t.w_doc);
      }
    }
  } else {
    for (std::uint32_t k = 0; k < h.visible; ++k) {
      copy(h.w_line, t.w_line);
      copy(h.w_col, t.w_col);
      copy(h.w_dline, t.w_dline);
      copy(h.w_ecol, t.w_ecol);
      copy(h.w_doc, t.w_doc);
    }
  }
  for (std::uint32_t k = 0; k < h.hidden; ++k) {
    copy(h.w_il, t.w_il);
    copy(h.w_doc, t.w_doc);
  }
  return bw.finish();
}

// Size of a block with counts V | H << 32 written in `profile` (SPEC.md 5.1, 5.2), profile not
// included.
std::uint64_t block_size(std::uint64_t profile, std::uint64_t counts) {
  f::BlockHeader h;
  h.visible = static_cast<std::uint32_t>(counts);
  h.hidden = static_cast<std::uint32_t>(counts >> 32);
  set_widths(h, profile);
  return header_bytes(profile) + h.records_bytes();
}

// Where the block profiles go (SPEC.md 5.1).
struct ProfilePlan {
  std::vector<std::uint64_t> table;    // Cache.block_profiles
  std::vector<std::uint8_t> index;     // Cache.block_profile_index (row r at r - 1)
  std::vector<std::uint64_t> written;  // per block, in row order: the profile it is written in (0: its own, in front)
  std::uint64_t inline_blocks = 0;     // blocks that keep their profile in front
  std::uint64_t rewritten = 0;         // blocks to write again in a wider profile of the table
};

// A profile's six widths and four length codes in 6-bit lanes (the value in the low 5 bits, a
// guard bit above), so that one subtraction compares all ten fields.
constexpr std::uint64_t kLaneGuards = [] {
  std::uint64_t g = 0;
  for (unsigned i = 0; i < 10; ++i) g |= std::uint64_t(1) << (6 * i + 5);
  return g;
}();
std::uint64_t profile_lanes(std::uint64_t p) {
  std::uint64_t x = 0;
  for (unsigned i = 0; i < 6; ++i) x |= (p >> (5 * i) & 31) << (6 * i);
  for (unsigned i = 0; i < 4; ++i) x |= (p >> (32 + 2 * i) & 3) << (6 * (6 + i));
  return x;
}
std::uint64_t lanes_profile(std::uint64_t x) {
  std::uint64_t p = 0;
  for (unsigned i = 0; i < 6; ++i) p |= (x >> (6 * i) & 31) << (5 * i);
  for (unsigned i = 0; i < 4; ++i) p |= (x >> (6 * (6 + i)) & 3) << (32 + 2 * i);
  return p;
}
// True when a block of profile b can be written in profile a: every width and code of a is at
// least b's (each lane of (a | guards) - b keeps its guard bit exactly when a's field >= b's).
bool dominates(std::uint64_t lanes_a, std::uint64_t lanes_b) {
  return (((lanes_a | kLaneGuards) - lanes_b) & kLaneGuards) == kLaneGuards;
}
// Bits that n blocks with v visible and h hidden points in all take in profile p (header
// values and records; the rounding of each block to a byte left out).
std::uint64_t profile_bits(std::uint64_t p, std::uint64_t n, std::uint64_t v, std::uint64_t h) {
  f::BlockHeader w;
  set_widths(w, p);
  return n * header_bytes(p) * 8 + v * (w.il_bytes() * 8 + w.rest_bits()) + h * w.hidden_bits();
}

// The profile table (SPEC.md 5.1, "what ilmap writes") of at most N = `table_entries` entries
// (clamped to 1..255). By default every block names a table entry: when there are at most N
// distinct profiles, each is in the table; otherwise the N - 1 that weigh most (records plus 8
// per block; equal weights: earlier first use) and the fieldwise maximum of all the others, and
// a block of another profile is written in the first entry that dominates its own in order of
// bits per visible record, bits per hidden record, header bits, then rank. So a lookup always
// takes its profile from the table, a branch that never mispredicts (BENCHMARKS.md, issue 14).
// With `rare_in_blocks` (format 2.0's first writer; tests use it for caches with both kinds),
// the table holds the at most N most used profiles used twice or more (equal counts: earlier
// first use) and every other block keeps its own in front. Either way the table is in order of
// first use by ascending row.
constexpr std::size_t kFoldHeads = 32;

ProfilePlan plan_profiles(const std::vector<BlockChunk>& chunks, std::uint32_t methods, bool rare_in_blocks,
                          unsigned table_entries) {
  const std::size_t limit = std::clamp<unsigned>(table_entries, 1, f::kMaxProfiles);
  struct Use {
    std::uint32_t count = 0, first = 0;
    std::uint64_t visible = 0, hidden = 0;
    int target = -1;  // the candidate entry the blocks are written in; -1: their own, in front
  };
  std::vector<std::uint64_t> candidates;  // table entries, before ordering by first use
  ProfilePlan plan;
  plan.index.assign(methods, 0);
  // Distinct profiles in order of first use, found through an open-addressing table whose
  // slots hold a profile (40 bits) and 1 + its position in `uses` (above bit 40); a profile is
  // never 0 (V + H >= 1 gives a nonzero length code).
  std::size_t nblocks = 0;
  for (const BlockChunk& c : chunks) nblocks += c.profiles.size();
  std::vector<std::uint64_t> order;      // distinct profiles in order of first use
  std::vector<Use> uses;                 // in the same order
  std::vector<std::uint32_t> block_use;  // per block, in row order: position in uses
  block_use.reserve(nblocks);
  const unsigned bits = static_cast<unsigned>(std::bit_width(std::max<std::size_t>(nblocks + nblocks / 2, 16) - 1));
  const std::size_t mask = (std::size_t(1) << bits) - 1;
  std::vector<std::uint64_t> table(mask + 1, 0);
  constexpr std::uint64_t kProfile = (std::uint64_t(1) << 40) - 1;
  std::uint64_t last = 0;
  std::uint32_t last_use = 0;
  for (const BlockChunk& c : chunks) {
    for (std::size_t j = 0; j < c.profiles.size(); ++j) {
      const std::uint64_t p = c.profiles[j];
      if (p != last) {
        std::size_t h = static_cast<std::size_t>((p * 0x9E3779B97F4A7C15ull) >> (64 - bits));
        while (table[h] != 0 && (table[h] & kProfile) != p) h = (h + 1) & mask;
        if (table[h] == 0) {
          table[h] = p | std::uint64_t(uses.size() + 1) << 40;
          uses.push_back({});
          uses.back().first = static_cast<std::uint32_t>(order.size());
          order.push_back(p);
        }
        last = p;
        last_use = static_cast<std::uint32_t>((table[h] >> 40) - 1);
      }
      Use& u = uses[last_use];
      ++u.count;
      u.visible += static_cast<std::uint32_t>(c.counts[j]);
      u.hidden += c.counts[j] >> 32;
      block_use.push_back(last_use);
    }
  }
  // The ranking (equal weights keep the order of first use). Kept in blocks, a profile saves 5
  // bytes per block over its 8 in the table: by count. Rewritten in a wider entry, a profile
  // costs bits in every record of its blocks: by records plus 8 per block (measured against
  // count alone and against the bits lost to the fieldwise maximum: Mono.Cecil 158,560 and
  // 153,664 bytes, this 153,080 before folding; BENCHMARKS.md).
  // One 64-bit key per profile: the weight (below 2^40: at most the points, counted in 32 bits,
  // plus 8 per block) inverted above its position in `uses` (below 2^24, a block per row), so
  // that ascending keys give descending weights, earlier first use first.
  constexpr std::uint64_t kMaxWeight = (std::uint64_t(1) << 40) - 1;
  std::vector<std::uint64_t> by_weight;
  by_weight.reserve(uses.size());
  for (std::uint32_t i = 0; i < uses.size(); ++i) {
    const Use& u = uses[i];
    if (rare_in_blocks && u.count < 2) continue;
    const std::uint64_t weight = rare_in_blocks ? std::uint64_t(u.count) : u.visible + u.hidden + 8 * std::uint64_t(u.count);
    by_weight.push_back((kMaxWeight - std::min(weight, kMaxWeight)) << 24 | i);
  }
  std::sort(by_weight.begin(), by_weight.end());
  std::vector<std::pair<std::uint64_t, Use*>> ranked;
  ranked.reserve(by_weight.size());
  for (const std::uint64_t key : by_weight) {
    const std::uint32_t i = static_cast<std::uint32_t>(key & 0xFFFFFF);
    ranked.emplace_back(order[i], &uses[i]);
  }
  // Folding: a profile whose blocks one of the kFoldHeads heaviest profiles dominates, at fewer
  // extra bits than a table entry takes (64), is written in that one (the cheapest; equal: the
  // heavier) and needs no entry of its own. Small PDBs get fewer entries, full tables room.
  std::vector<std::pair<Use*, Use*>> folded;  // (profile, the heavier profile it is written in)
  if (!rare_in_blocks) {
    const std::size_t heads = std::min<std::size_t>(ranked.size(), kFoldHeads);
    struct Head {
      std::uint64_t lanes, visible_bits, hidden_bits, header_bits;
      bool folded;
    };
    std::vector<Head> head(heads);
    for (std::size_t j = 0; j < heads; ++j) {
      const std::uint64_t p = ranked[j].first;
      head[j] = {profile_lanes(p), profile_bits(p, 0, 1, 0), profile_bits(p, 0, 0, 1), profile_bits(p, 1, 0, 0), false};
    }
    std::vector<std::pair<std::uint64_t, Use*>> kept;
    kept.reserve(ranked.size());
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      const auto [p, u] = ranked[i];
      const std::uint64_t l = i < heads ? head[i].lanes : profile_lanes(p);
      const std::uint64_t own = profile_bits(p, u->count, u->visible, u->hidden);
      std::uint64_t best = 64;
      std::size_t into = heads;
      for (std::size_t j = 0; j < std::min(i, heads); ++j) {  // without branches on the data
        const Head& h = head[j];
        const std::uint64_t extra = u->count * h.header_bits + u->visible * h.visible_bits + u->hidden * h.hidden_bits - own;
        const std::uint64_t e = !h.folded && dominates(h.lanes, l) ? extra : UINT64_MAX;
        into = e < best ? j : into;
        best = e < best ? e : best;
      }
      if (into < heads) {
        folded.emplace_back(u, ranked[into].second);
        if (i < heads) head[i].folded = true;
        plan.rewritten += u->count;
      } else {
        kept.push_back(ranked[i]);
      }
    }
    ranked.swap(kept);
  }
  if (rare_in_blocks || ranked.size() <= limit) {
    if (ranked.size() > limit) ranked.resize(limit);
    for (const auto& [p, u] : ranked) {
      u->target = static_cast<int>(candidates.size());
      candidates.push_back(p);
    }
  } else {
    // N - 1 entries as they are, the fieldwise maximum of the rest as the last (it dominates
    // every profile of the rest, so each has an entry). Each profile of the rest is written in
    // the first entry that dominates it in order of bits per visible record, then per hidden
    // record, then header bits, then rank (an ordering that spares a search of all N entries
    // per profile).
    struct Entry {
      std::uint64_t lanes, visible_bits, hidden_bits, header_bits;
      int rank;  // index in candidates
    };
    std::vector<Entry> entries;
    auto add = [&](std::uint64_t p, std::uint64_t l) {
      entries.push_back({l, profile_bits(p, 0, 1, 0), profile_bits(p, 0, 0, 1), profile_bits(p, 1, 0, 0),
                         static_cast<int>(candidates.size())});
      candidates.push_back(p);
    };
    for (std::size_t i = 0; i + 1 < limit; ++i) {
      ranked[i].second->target = static_cast<int>(candidates.size());
      add(ranked[i].first, profile_lanes(ranked[i].first));
    }
    std::uint64_t top = 0;
    for (std::size_t i = limit - 1; i < ranked.size(); ++i) {
      const std::uint64_t l = profile_lanes(ranked[i].first);
      for (unsigned lane = 0; lane < 10; ++lane) {
        const std::uint64_t m = std::uint64_t(63) << (6 * lane);
        if ((l & m) > (top & m)) top = (top & ~m) | (l & m);
      }
    }
    add(lanes_profile(top), top);
    // Each field below 2^8 (bits per visible record at most 4 * 8 + 5 * 31, per hidden record
    // 62, header bits 128; rank below 255): one 32-bit key.
    auto entry_key = [](const Entry& e) {
      return static_cast<std::uint32_t>(e.visible_bits << 24 | e.hidden_bits << 16 | e.header_bits << 8 | std::uint64_t(e.rank));
    };
    std::sort(entries.begin(), entries.end(), [&](const Entry& x, const Entry& y) { return entry_key(x) < entry_key(y); });
    for (std::size_t i = limit - 1; i < ranked.size(); ++i) {
      Use* u = ranked[i].second;
      const std::uint64_t l = profile_lanes(ranked[i].first);
      // An entry that dominates takes at least as many bits per visible record: skip the others.
      const std::uint64_t own = profile_bits(ranked[i].first, 0, 1, 0);
      const auto from = std::partition_point(entries.begin(), entries.end(), [&](const Entry& e) { return e.visible_bits < own; });
      for (auto e = from; e != entries.end(); ++e) {
        if (dominates(e->lanes, l)) {
          u->target = e->rank;
          break;
        }
      }
      plan.rewritten += u->count;
    }
  }
  for (const auto& [u, into] : folded) u->target = into->target;  // into was kept: it has one
  // The table in order of first use of its entries, by ascending row.
  std::array<int, f::kMaxProfiles> slot;
  slot.fill(0);
  plan.written.reserve(nblocks);
  std::size_t k = 0;
  for (const BlockChunk& c : chunks) {
    std::uint32_t prev = 0;
    for (std::uint32_t i = 0; i < c.ends.size(); ++i) {
      if (c.ends[i] == prev) continue;
      prev = c.ends[i];
      const int t = uses[block_use[k++]].target;
      if (t < 0) {
        plan.written.push_back(0);
        ++plan.inline_blocks;
        continue;
      }
      plan.written.push_back(candidates[t]);
      if (slot[t] == 0) {
        plan.table.push_back(candidates[t]);
        slot[t] = static_cast<int>(plan.table.size());
      }
      plan.index[c.first - 1 + i] = static_cast<std::uint8_t>(slot[t]);
    }
  }
  return plan;
}

}  // namespace

std::string compiler_version() {
  return format("ilmap %s/format %u.%u", ILMAP_VERSION_STRING, f::kVersionMajor, f::kVersionMinor);
}

Result<CacheBytes> build_cache(const CacheSource& src, const CacheBuildOptions& opt, CacheStats* stats) {
  auto input = read_build_input(src);
  if (!input) return input.error();
  const BuildInput& in = *input;
  const std::vector<Document>* const docs = &in.docs;

  std::optional<SourceLinkMap> sourcelink;
  if (in.sourcelink_json) {
    // SourceLink is advice for finding the sources: one that cannot be read costs its URLs,
    // never the points.
    auto m = SourceLinkMap::parse(*in.sourcelink_json);
    if (m) sourcelink = std::move(*m);
    else if (stats) stats->warnings.push_back(m.error().message + "; the cache has no SourceLink URLs");
  }

  // Point blocks, method by method, in chunks of consecutive methods (one chunk, or several
  // encoded by worker threads when opt.threads > 1 and the PDB is large enough to repay them);
  // the chunks are concatenated in order, so the bytes do not depend on the thread count.
  const std::uint32_t methods = in.methods;
  const std::size_t blob_bytes = in.parallel_bytes;
  unsigned workers = 1;
  if (opt.threads > 1 && methods >= opt.parallel_min_methods && blob_bytes >= opt.parallel_min_blob_bytes)
    workers = std::min<unsigned>(opt.threads, kMaxEncodeThreads);
  const std::uint32_t nchunks = workers == 1 ? 1 : std::min<std::uint32_t>(methods, workers * 8);
  std::vector<BlockChunk> chunks(nchunks);
  for (std::uint32_t c = 0; c < nchunks; ++c) {
    chunks[c].first = static_cast<std::uint32_t>(std::uint64_t(methods) * c / nchunks) + 1;
    chunks[c].last = static_cast<std::uint32_t>(std::uint64_t(methods) * (c + 1) / nchunks);
  }
  if (workers == 1) {
    if (nchunks) {
      chunks[0].blocks.reserve(blob_bytes + 64);
      // A visible point takes at least 4 bytes of a sequence-points blob: room for them all up
      // front (capped), so the vector never grows by copying; pages are touched only as used.
      chunks[0].lines.reserve(std::min<std::size_t>(blob_bytes / 4 + 64, std::size_t(1) << 22));
    }
    for (BlockChunk& c : chunks) encode_chunk(in, c);
  } else {
    std::atomic<std::uint32_t> next{0};
    auto work = [&] {
      for (std::uint32_t c; (c = next.fetch_add(1)) < nchunks;) encode_chunk(in, chunks[c]);
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
  }
  std::size_t nblocks = 0;
  for (BlockChunk& c : chunks) {
    if (!c.status) return c.status.error();
    c.first_block = nblocks;
    nblocks += c.profiles.size();
  }
  // Block profiles (SPEC.md 5.1): the table, each row's index, and the blocks to write again
  // in a wider profile of the table (their own did not get a place).
  ProfilePlan plan = plan_profiles(chunks, methods, opt.rare_profiles_in_blocks, opt.profile_table_entries);
  const std::vector<std::uint64_t>& profiles = plan.table;
  const std::vector<std::uint8_t>& profile_index = plan.index;
  const std::uint64_t inline_profiles = plan.inline_blocks;
  // Each block's size in the cache: as encoded, 5 bytes more when it keeps its profile in
  // front, or, when the plan writes it in a wider table profile, the size that profile gives
  // (the block is written there when the blocks are copied into the cache).
  std::vector<std::uint32_t> offsets;
  offsets.reserve(std::size_t(methods) + 1);
  offsets.push_back(0);
  std::uint64_t total = 0, hidden = 0, blocks_size = 0;
  {
    std::size_t k = 0;
    for (const BlockChunk& c : chunks) {
      std::uint32_t prev = 0;
      for (std::uint32_t i = 0; i < c.ends.size(); ++i) {
        const std::uint32_t end = c.ends[i];
        if (end != prev) {
          const std::uint64_t w = plan.written[k];
          if (w == 0) {
            blocks_size += end - prev + f::kInlineProfileSize;
          } else if (w == c.profiles[k - c.first_block]) {
            blocks_size += end - prev;
          } else {
            blocks_size += block_size(w, c.counts[k - c.first_block]);
          }
          ++k;
        }
        prev = end;
        if (blocks_size > UINT32_MAX - f::kBlockTailPadding)
          return Error{Errc::kTooLarge, "point blocks exceed 4 GiB, the limit of the cache format"};
        offsets.push_back(static_cast<std::uint32_t>(blocks_size));
      }
      total += c.total;
      hidden += c.hidden;
    }
  }

  // Documents: hot part (paths, URLs, language) at the root, the rest in Details.
  StringPool strings;
  std::vector<fb::DocumentRef> refs;
  refs.reserve(docs->size());
  // Every URL repeats its entry's URL prefix, so a large prefix times many documents could
  // grow without bound: the resolved URLs share the document-name budget.
  std::size_t url_budget = in.name_budget;
  bool package_urls = false;
  for (std::size_t i = 0; i < docs->size(); ++i) {
    const Document& d = (*docs)[i];
    auto [po, pl] = strings.add(d.name);
    std::pair<std::uint32_t, std::uint32_t> url{0, 0};
    std::optional<std::string> u;
    if (sourcelink) u = sourcelink->map(d.name);
    if (!u && i < in.srcsrv_urls.size() && !in.srcsrv_urls[i].empty()) u = in.srcsrv_urls[i];
    if (!u && src.document_urls && i < src.document_urls->size() && !(*src.document_urls)[i].empty()) {
      u = (*src.document_urls)[i];
      package_urls = true;
    }
    if (u) {
      if (u->size() > url_budget)
        return Error{Errc::kTooLarge, format("SourceLink: the resolved document URLs exceed %zu bytes (the limit for this PDB: max(64 MiB, 16 x its size))", in.name_budget)};
      url_budget -= u->size();
      url = strings.add(*u);
    }
    refs.emplace_back(po, pl, url.first, url.second, language_of(d.language));
  }
  // The reverse line index (format 1.2) over every chunk's visible points.
  std::vector<LinePoint> line_points;
  if (chunks.size() == 1) {
    line_points.swap(chunks[0].lines);  // one chunk (most compiles): no copy
  } else {
    std::size_t n = 0;
    for (const BlockChunk& c : chunks) n += c.lines.size();
    line_points.reserve(n);
    for (BlockChunk& c : chunks) {
      line_points.insert(line_points.end(), c.lines.begin(), c.lines.end());
      std::vector<LinePoint>().swap(c.lines);
    }
  }
  const LineIndexSection line_index = build_line_index(line_points, static_cast<std::uint32_t>(docs->size()));
  std::vector<LinePoint>().swap(line_points);

  bool holds_sources = false;
  auto details = build_details(in.portable, *docs, sourcelink ? &*sourcelink : nullptr, opt, holds_sources, stats);
  if (!details) return details.error();
  const std::optional<std::vector<std::uint8_t>> strings_z = pack_section(strings.bytes());
  // Embedded sources are zstd frames already: a Details buffer holding them is stored as is.
  std::optional<std::vector<std::uint8_t>> details_z;
  if (!holds_sources) details_z = pack_section(*details);

  const std::uint64_t estimate = 4096 + blocks_size + f::kBlockTailPadding + offsets.size() * 5 + profiles.size() * 8 +
                                 strings.bytes().size() + refs.size() * sizeof(fb::DocumentRef) +
                                 details->size() + (src.names ? src.names->bytes() : 0) + line_index.bytes();
  if (estimate > f::kMaxPayloadSize)
    return Error{Errc::kTooLarge, format("%s: the cache would exceed FlatBuffers' 2 GiB limit", src.source_name.c_str())};
  ScratchAllocator alloc;
  flatbuffers::FlatBufferBuilder fbb(static_cast<std::size_t>(estimate), &alloc);
  fbb.ForceDefaults(false);

  // Identity.
  auto pdb_id = fbb.CreateVector(in.id.data(), in.id.size());
  flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> pdb_sha256;
  if (src.pdb_sha256) {
    pdb_sha256 = fbb.CreateVector(*src.pdb_sha256);
  } else if (src.pdb && src.pdb->has_pdb_stream()) {
    // What a store or a resolver compares with the PDB it holds and with the PE's PdbChecksum:
    // the 20-byte id alone is public and proves nothing about the rest of the bytes.
    auto sum = compute_pdb_checksum("SHA256", src.pdb->bytes(), src.pdb->metadata().pdb_stream_offset());
    if (!sum) return Error{sum.error().code, src.source_name + ": " + sum.error().message};
    pdb_sha256 = fbb.CreateVector(*sum);
  }
  auto pdb_key = fbb.CreateString(src.pdb_key);
  auto debug_id = fbb.CreateString(src.debug_id);
  auto cver = fbb.CreateString(compiler_version());
  auto sname = fbb.CreateString(src.source_name);
  flatbuffers::Offset<flatbuffers::String> pe_name, pe_key, code_id;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::CodeView>>> cv_vec;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> ck_vec;
  fb::Guid mvid;
  if (src.pe) {
    pe_name = fbb.CreateString(src.pe->name);
    pe_key = fbb.CreateString(src.pe->pe_key);
    code_id = fbb.CreateString(src.pe->code_id);
    std::vector<flatbuffers::Offset<fb::CodeView>> cvs;
    for (const CacheCodeView& cv : src.pe->codeview) {
      const fb::Guid g = to_fb(cv.guid);
      cvs.push_back(fb::CreateCodeView(fbb, &g, cv.age, cv.stamp, fbb.CreateString(cv.path), cv.portable));
    }
    cv_vec = fbb.CreateVector(cvs);
    std::vector<flatbuffers::Offset<flatbuffers::String>> cks;
    for (const std::string& c : src.pe->pdb_checksums) cks.push_back(fbb.CreateString(c));
    ck_vec = fbb.CreateVector(cks);
    if (src.pe->mvid) mvid = to_fb(*src.pe->mvid);
  }
  fb::IdentityBuilder ib(fbb);
  ib.add_pdb_id(pdb_id);
  ib.add_entry_point(in.entry_point);
  ib.add_pdb_key(pdb_key);
  ib.add_debug_id(debug_id);
  if (src.pe) {
    ib.add_pe_name(pe_name);
    ib.add_pe_timestamp(src.pe->timestamp);
    ib.add_pe_size_of_image(src.pe->size_of_image);
    ib.add_pe_key(pe_key);
    ib.add_code_id(code_id);
    if (src.pe->mvid) ib.add_mvid(&mvid);
    ib.add_codeview(cv_vec);
    ib.add_pdb_checksums(ck_vec);
  }
  ib.add_source_xxh3(src.source_xxh3);
  ib.add_source_size(src.source_size);
  ib.add_compiler_version(cver);
  ib.add_source_name(sname);
  ib.add_holds_embedded_sources(holds_sources);
  if (!pdb_sha256.IsNull()) ib.add_pdb_sha256(pdb_sha256);
  ib.add_package_source_urls(package_urls);
  auto identity = ib.Finish();

  auto documents = fbb.CreateVectorOfStructs(refs);
  auto string_bytes = strings_z ? fbb.CreateVector(*strings_z) : fbb.CreateVector(strings.bytes());
  const MethodDirectory dir = build_directory(offsets);
  auto method_groups = fbb.CreateVectorOfStructs(dir.groups);
  auto block_ends = fbb.CreateVector(dir.ends);
  auto block_ends_high = fbb.CreateVector(dir.high);
  auto block_profiles = fbb.CreateVector(profiles);
  auto block_profile_index = fbb.CreateVector(profile_index);
  fbb.ForceVectorAlignment(static_cast<std::size_t>(blocks_size) + f::kBlockTailPadding, 1, 8);
  std::uint8_t* blocks_out = nullptr;
  auto point_blocks = fbb.CreateUninitializedVector(static_cast<std::size_t>(blocks_size) + f::kBlockTailPadding, 1, &blocks_out);
  {
    std::size_t k = 0;
    std::uint8_t* const blocks_begin = blocks_out;
    for (const BlockChunk& c : chunks) {
      if (inline_profiles == 0 && plan.rewritten == 0) {
        if (c.blocks.size()) std::memcpy(blocks_out, c.blocks.data(), c.blocks.size());
        blocks_out += c.blocks.size();
        continue;
      }
      // Block by block: one that keeps its profile gets it in front (widths word, codes byte);
      // one that the plan puts in a wider profile is encoded again, in that profile, in place.
      std::uint32_t prev = 0;
      for (std::uint32_t i = 0; i < c.ends.size(); ++i) {
        const std::uint32_t end = c.ends[i];
        if (end == prev) continue;
        const std::uint64_t own = c.profiles[k - c.first_block], w = plan.written[k++];
        if (w == 0) {
          for (unsigned b = 0; b < f::kInlineProfileSize; ++b) *blocks_out++ = static_cast<std::uint8_t>(own >> (8 * b));
        }
        if (w == 0 || w == own) {
          std::memcpy(blocks_out, c.blocks.data() + prev, end - prev);
          blocks_out += end - prev;
        } else {
          // The block is followed by the next ones or by the tail padding (16 bytes, zeroed
          // below): room for the 8 bytes of store slack the writer needs.
          blocks_out = rewrite_block(c.blocks.data() + prev, c.blocks.data() + end, own, w, blocks_out);
        }
        prev = end;
        if (static_cast<std::uint64_t>(blocks_out - blocks_begin) != offsets[c.first + i])
          return Error{Errc::kMalformed, format("internal error: method row %u: its block is not of the planned size", c.first + i)};
      }
    }
  }
  std::memset(blocks_out, 0, f::kBlockTailPadding);
  const std::vector<std::uint8_t>& details_out = details_z ? *details_z : *details;
  fbb.ForceVectorAlignment(details_out.size(), 1, 8);
  auto details_vec = fbb.CreateVector(details_out);
  flatbuffers::Offset<fb::Names> names;
  if (src.names) names = write_names_section(fbb, *src.names);
  auto lines = write_line_index(fbb, line_index);
  flatbuffers::Offset<flatbuffers::Vector<const fb::HiddenPoint*>> hidden_points;
  {
    std::vector<fb::HiddenPoint> all;
    for (const BlockChunk& c : chunks) all.insert(all.end(), c.hidden_points.begin(), c.hidden_points.end());
    if (!all.empty()) hidden_points = fbb.CreateVectorOfStructs(all);
  }

  fb::CacheBuilder cb(fbb);
  cb.add_identity(identity);
  cb.add_documents(documents);
  if (strings_z) {
    cb.add_strings_zstd(string_bytes);
  } else {
    cb.add_strings(string_bytes);
  }
  cb.add_method_rows(methods);
  cb.add_method_groups(method_groups);
  cb.add_block_ends(block_ends);
  cb.add_block_ends_high(block_ends_high);
  cb.add_point_blocks(point_blocks);
  cb.add_block_profiles(block_profiles);
  cb.add_block_profile_index(block_profile_index);
  cb.add_point_count(total);
  cb.add_hidden_count(hidden);
  if (details_z) {
    cb.add_details_zstd(details_vec);
  } else {
    cb.add_details(details_vec);
  }
  if (src.names) cb.add_names(names);
  cb.add_lines(lines);
  if (!hidden_points.IsNull()) cb.add_hidden_points(hidden_points);
  fb::FinishCacheBuffer(fbb, cb.Finish());

  const std::size_t payload = fbb.GetSize();
  if (payload > f::kMaxPayloadSize)
    return Error{Errc::kTooLarge, format("%s: the cache payload (%zu bytes) exceeds FlatBuffers' 2 GiB limit", src.source_name.c_str(), payload)};
  f::FileHeader h{};
  h.magic = f::kMagic;
  std::memcpy(h.identifier, f::kIdentifier, 4);
  h.version_major = f::kVersionMajor;
  h.version_minor = f::kVersionMinor;
  h.header_size = f::kHeaderSize;
  h.payload_size = payload;
  h.payload_xxh3 = XXH3_64bits(fbb.GetBufferPointer(), payload);
  // The builder writes back to front: the header goes right before the payload, in the same
  // buffer, and that buffer becomes the result (no copy of the payload).
  fbb.PushBytes(reinterpret_cast<const std::uint8_t*>(&h), sizeof h);
  const std::size_t file_size = fbb.GetSize();
  std::size_t reserved = 0, offset = 0;
  std::uint8_t* block = fbb.ReleaseRaw(reserved, offset);
  CacheBytes out(block, block + offset, file_size);
  if (stats) {
    stats->points = total;
    stats->hidden = hidden;
    stats->point_bytes = blocks_size + f::kBlockTailPadding + dir.groups.size() * sizeof(fb::MethodGroup) +
                         (dir.ends.size() + dir.high.size()) * 2 + profiles.size() * 8 + methods;
    stats->total_bytes = out.size();
  }
  return out;
}

}  // namespace ilmap
