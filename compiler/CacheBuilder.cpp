// CacheBuilder.cpp - writes format v1: 32-byte header + FlatBuffers payload (schema/ilmap.fbs)
// with bit-packed point blocks (schema/ilmap_format.h, SPEC.md section 5).
#include "CacheBuilder.h"

#include <flatbuffers/flatbuffers.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "SourceLink.h"
#include "ilmap_format.h"
#include "ilmap_generated.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

// Writes bits LSB-first into a buffer sized in advance, 32 bits at a time.
class BitWriter {
 public:
  explicit BitWriter(std::uint8_t* out) : p_(out) {}
  void put(std::uint32_t v, unsigned width) {
    acc_ |= std::uint64_t(v) << fill_;  // v < 2^width, width <= 32, fill_ < 32
    fill_ += width;
    if (fill_ >= 32) {
      const std::uint32_t lo = static_cast<std::uint32_t>(acc_);
      std::memcpy(p_, &lo, 4);
      p_ += 4;
      acc_ >>= 32;
      fill_ -= 32;
    }
  }
  // Writes the remaining bits; returns one past the last byte written.
  std::uint8_t* finish() {
    for (; fill_ > 0; fill_ = fill_ > 8 ? fill_ - 8 : 0) {
      *p_++ = static_cast<std::uint8_t>(acc_);
      acc_ >>= 8;
    }
    return p_;
  }

 private:
  std::uint8_t* p_;
  std::uint64_t acc_ = 0;
  unsigned fill_ = 0;
};

std::size_t varint_size(std::uint32_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Chooses a base for a field: the minimum (so widths cover max-min) or zero (so the base
// varint is one byte), whichever makes the block smaller.
void choose_base(std::uint32_t lo, std::uint32_t hi, std::size_t count, std::uint32_t& base,
                 std::uint8_t& width) {
  const unsigned w_min = f::bit_width(hi - lo);
  const unsigned w_zero = f::bit_width(hi);
  const std::uint64_t cost_min = varint_size(lo) * 8 + std::uint64_t(w_min) * count;
  const std::uint64_t cost_zero = 8 + std::uint64_t(w_zero) * count;
  if (cost_zero <= cost_min) {
    base = 0;
    width = static_cast<std::uint8_t>(w_zero);
  } else {
    base = lo;
    width = static_cast<std::uint8_t>(w_min);
  }
}

// Collects one method's points as they are decoded (ranges tracked on the way), then appends
// its block (SPEC.md section 5) to the point blocks.
class BlockEncoder {
 public:
  void reset() {
    points_.clear();
    max_il_ = max_col_ = max_dline_ = max_ecol_ = max_line_ = max_doc_ = 0;
    min_line_ = min_doc_ = UINT32_MAX;
    visible_ = hidden_ = 0;
  }

  void operator()(const SequencePoint& p) {
    points_.push_back(p);
    max_il_ = std::max(max_il_, p.il_offset);
    const std::uint32_t doc = p.document - 1;
    min_doc_ = std::min(min_doc_, doc);
    max_doc_ = std::max(max_doc_, doc);
    if (p.hidden()) {
      ++hidden_;
      return;
    }
    ++visible_;
    min_line_ = std::min(min_line_, p.start_line);
    max_line_ = std::max(max_line_, p.start_line);
    max_col_ = std::max<std::uint32_t>(max_col_, p.start_column);
    max_dline_ = std::max(max_dline_, p.end_line - p.start_line);
    max_ecol_ = std::max<std::uint32_t>(max_ecol_, p.end_column);
  }

  std::uint32_t count() const { return visible_ + hidden_; }
  std::uint32_t hidden() const { return hidden_; }

  void append_to(std::vector<std::uint8_t>& out) const {
    if (points_.empty()) return;
    f::BlockHeader h;
    h.visible = visible_;
    h.hidden = hidden_;
    h.w_il = static_cast<std::uint8_t>(f::bit_width(max_il_));
    h.w_col = static_cast<std::uint8_t>(f::bit_width(max_col_));
    h.w_dline = static_cast<std::uint8_t>(f::bit_width(max_dline_));
    h.w_ecol = static_cast<std::uint8_t>(f::bit_width(max_ecol_));
    if (visible_ == 0) {
      h.base_line = 0;
      h.w_line = 0;
    } else {
      choose_base(min_line_, max_line_, visible_, h.base_line, h.w_line);
    }
    choose_base(min_doc_, max_doc_, points_.size(), h.base_doc, h.w_doc);
    const std::uint64_t bits = std::uint64_t(h.visible) * h.visible_bits() +
                               std::uint64_t(h.hidden) * h.hidden_bits();
    const std::size_t at = out.size();
    // Room for the header (at most 25 bytes), the records and 4 bytes of word slack.
    out.resize(at + 25 + static_cast<std::size_t>((bits + 7) / 8) + 4);
    std::uint8_t* p = out.data() + at;
    p += f::put_block_header(p, h);
    BitWriter bw(p);
    const unsigned rb = h.visible_bits();
    if (rb < 64) {
      // Usual case: a whole record fits 63 bits (shifts precomputed, one or two puts).
      const unsigned s1 = h.w_il, s2 = s1 + h.w_line, s3 = s2 + h.w_col, s4 = s3 + h.w_dline,
                     s5 = s4 + h.w_ecol;
      for (const SequencePoint& sp : points_) {
        if (sp.hidden()) continue;
        const std::uint64_t r = std::uint64_t(sp.il_offset) |
                                std::uint64_t(sp.start_line - h.base_line) << s1 |
                                std::uint64_t(sp.start_column) << s2 |
                                std::uint64_t(sp.end_line - sp.start_line) << s3 |
                                std::uint64_t(sp.end_column) << s4 |
                                std::uint64_t(sp.document - 1 - h.base_doc) << s5;
        if (rb <= 32) {
          bw.put(static_cast<std::uint32_t>(r), rb);
        } else {
          bw.put(static_cast<std::uint32_t>(r), 32);
          bw.put(static_cast<std::uint32_t>(r >> 32), rb - 32);
        }
      }
    } else {
      for (const SequencePoint& sp : points_) {
        if (sp.hidden()) continue;
        bw.put(sp.il_offset, h.w_il);
        bw.put(sp.start_line - h.base_line, h.w_line);
        bw.put(sp.start_column, h.w_col);
        bw.put(sp.end_line - sp.start_line, h.w_dline);
        bw.put(sp.end_column, h.w_ecol);
        bw.put(sp.document - 1 - h.base_doc, h.w_doc);
      }
    }
    if (hidden_) {
      for (const SequencePoint& sp : points_) {
        if (!sp.hidden()) continue;
        bw.put(sp.il_offset, h.w_il);
        bw.put(sp.document - 1 - h.base_doc, h.w_doc);
      }
    }
    out.resize(static_cast<std::size_t>(bw.finish() - out.data()));
  }

 private:
  std::vector<SequencePoint> points_;
  std::uint32_t max_il_ = 0, max_col_ = 0, max_dline_ = 0, max_ecol_ = 0;
  std::uint32_t min_line_ = UINT32_MAX, max_line_ = 0, min_doc_ = UINT32_MAX, max_doc_ = 0;
  std::uint32_t visible_ = 0, hidden_ = 0;
};

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
Result<std::vector<std::uint8_t>> build_details(const PortablePdb& pdb, const std::vector<Document>& docs,
                                                const SourceLinkMap* sourcelink,
                                                const CacheBuildOptions& opt, bool& holds_sources) {
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
  if (opt.embed_sources) {
    std::vector<flatbuffers::Offset<fb::EmbeddedSource>> v;
    for (std::uint32_t rid = 1; rid <= pdb.document_count(); ++rid) {
      auto text = pdb.embedded_source(rid, opt.max_embedded_source);
      if (!text) return text.error();
      if (!*text) continue;
      const std::vector<std::uint8_t>& raw = **text;
      std::vector<std::uint8_t> z(ZSTD_compressBound(raw.size()));
      const std::size_t zn = ZSTD_compress(z.data(), z.size(), raw.data(), raw.size(), opt.zstd_level);
      if (ZSTD_isError(zn)) return Error{Errc::kIo, format("zstd compression failed: %s", ZSTD_getErrorName(zn))};
      v.push_back(fb::CreateEmbeddedSource(fbb, rid - 1, raw.size(), fbb.CreateVector(z.data(), zn)));
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

}  // namespace

std::string compiler_version() {
  return format("ilmap %s/format %u.%u", ILMAP_VERSION_STRING, f::kVersionMajor, f::kVersionMinor);
}

Result<std::vector<std::uint8_t>> build_cache(const CacheSource& src, const CacheBuildOptions& opt,
                                              CacheStats* stats) {
  const PortablePdb& pdb = *src.pdb;
  auto docs = pdb.documents();
  if (!docs) return docs.error();

  std::optional<SourceLinkMap> sourcelink;
  auto sl_json = pdb.source_link();
  if (!sl_json) return sl_json.error();
  if (*sl_json) {
    auto m = SourceLinkMap::parse(**sl_json);
    if (!m) return m.error();
    sourcelink = std::move(*m);
  }

  // Point blocks, method by method. The blocks take well under the size of the #Blob heap.
  const std::uint32_t methods = pdb.method_count();
  std::vector<std::uint32_t> offsets;
  offsets.reserve(std::size_t(methods) + 1);
  std::vector<std::uint8_t> blocks;
  blocks.reserve(pdb.metadata().stream_size("#Blob") + 64);
  BlockEncoder enc;
  std::uint64_t total = 0, hidden = 0;
  offsets.push_back(0);
  for (std::uint32_t rid = 1; rid <= methods; ++rid) {
    enc.reset();
    if (Status s = pdb.for_each_sequence_point(rid, enc); !s) return s.error();
    total += enc.count();
    hidden += enc.hidden();
    enc.append_to(blocks);
    if (blocks.size() > UINT32_MAX - f::kBlockTailPadding)
      return Error{Errc::kTooLarge, "point blocks exceed 4 GiB, the limit of format v1"};
    offsets.push_back(static_cast<std::uint32_t>(blocks.size()));
  }
  blocks.insert(blocks.end(), f::kBlockTailPadding, 0);

  // Documents: hot part (paths, URLs, language) at the root, the rest in Details.
  StringPool strings;
  std::vector<fb::DocumentRef> refs;
  refs.reserve(docs->size());
  for (const Document& d : *docs) {
    auto [po, pl] = strings.add(d.name);
    std::pair<std::uint32_t, std::uint32_t> url{0, 0};
    if (sourcelink) {
      if (auto u = sourcelink->map(d.name)) url = strings.add(*u);
    }
    refs.emplace_back(po, pl, url.first, url.second, language_of(d.language));
  }
  bool holds_sources = false;
  auto details = build_details(pdb, *docs, sourcelink ? &*sourcelink : nullptr, opt, holds_sources);
  if (!details) return details.error();

  const std::uint64_t estimate = 4096 + blocks.size() + offsets.size() * 4 +
                                 strings.bytes().size() + refs.size() * sizeof(fb::DocumentRef) +
                                 details->size();
  if (estimate > f::kMaxPayloadSize)
    return Error{Errc::kTooLarge, format("%s: the cache would exceed FlatBuffers' 2 GiB limit", src.source_name.c_str())};
  flatbuffers::FlatBufferBuilder fbb(static_cast<std::size_t>(estimate));
  fbb.ForceDefaults(false);

  // Identity.
  const PdbId id = pdb.id();
  auto pdb_id = fbb.CreateVector(id.bytes.data(), id.bytes.size());
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
  ib.add_entry_point(pdb.entry_point());
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
  auto identity = ib.Finish();

  auto documents = fbb.CreateVectorOfStructs(refs);
  auto string_bytes = fbb.CreateVector(strings.bytes());
  auto method_offsets = fbb.CreateVector(offsets);
  fbb.ForceVectorAlignment(blocks.size(), 1, 8);
  auto point_blocks = fbb.CreateVector(blocks);
  fbb.ForceVectorAlignment(details->size(), 1, 8);
  auto details_vec = fbb.CreateVector(*details);

  fb::CacheBuilder cb(fbb);
  cb.add_identity(identity);
  cb.add_documents(documents);
  cb.add_strings(string_bytes);
  cb.add_method_offsets(method_offsets);
  cb.add_point_blocks(point_blocks);
  cb.add_point_count(total);
  cb.add_hidden_count(hidden);
  cb.add_details(details_vec);
  fb::FinishCacheBuffer(fbb, cb.Finish());

  const std::size_t payload = fbb.GetSize();
  if (payload > f::kMaxPayloadSize)
    return Error{Errc::kTooLarge, format("%s: the cache payload (%zu bytes) exceeds FlatBuffers' 2 GiB limit", src.source_name.c_str(), payload)};
  std::vector<std::uint8_t> out(f::kHeaderSize + payload);
  f::FileHeader h{};
  h.magic = f::kMagic;
  std::memcpy(h.identifier, f::kIdentifier, 4);
  h.version_major = f::kVersionMajor;
  h.version_minor = f::kVersionMinor;
  h.header_size = f::kHeaderSize;
  h.payload_size = payload;
  h.payload_xxh3 = XXH3_64bits(fbb.GetBufferPointer(), payload);
  std::memcpy(out.data(), &h, sizeof h);
  std::memcpy(out.data() + f::kHeaderSize, fbb.GetBufferPointer(), payload);
  if (stats) {
    stats->points = total;
    stats->hidden = hidden;
    stats->point_bytes = blocks.size() + offsets.size() * 4;
    stats->total_bytes = out.size();
  }
  return out;
}

}  // namespace ilmap
