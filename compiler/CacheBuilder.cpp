// CacheBuilder.cpp - writes format v1: 32-byte header + FlatBuffers payload (schema/ilmap.fbs)
// with bit-packed point blocks (schema/ilmap_format.h, SPEC.md section 5).
#include "CacheBuilder.h"

#include <flatbuffers/flatbuffers.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>

#include "SourceLink.h"
#include "ilmap_format.h"
#include "ilmap_generated.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

// Appends bits LSB-first to a byte vector.
class BitWriter {
 public:
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out) {}
  void put(std::uint32_t v, unsigned width) {
    if (width == 0) return;
    acc_ |= std::uint64_t(v) << fill_;
    fill_ += width;
    while (fill_ >= 8) {
      out_.push_back(static_cast<std::uint8_t>(acc_));
      acc_ >>= 8;
      fill_ -= 8;
    }
  }
  void flush() {
    if (fill_ > 0) out_.push_back(static_cast<std::uint8_t>(acc_));
    acc_ = 0;
    fill_ = 0;
  }

 private:
  std::vector<std::uint8_t>& out_;
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

// Encodes one method's points (blob order) as a block appended to `out`.
void encode_block(const std::vector<SequencePoint>& pts, std::vector<std::uint8_t>& out) {
  if (pts.empty()) return;
  f::BlockHeader h;
  std::uint32_t max_il = 0, max_col = 0, max_dline = 0, max_ecol = 0;
  std::uint32_t min_line = UINT32_MAX, max_line = 0, min_doc = UINT32_MAX, max_doc = 0;
  for (const SequencePoint& p : pts) {
    max_il = std::max(max_il, p.il_offset);
    const std::uint32_t doc = p.document - 1;
    min_doc = std::min(min_doc, doc);
    max_doc = std::max(max_doc, doc);
    if (p.hidden()) {
      ++h.hidden;
      continue;
    }
    ++h.visible;
    min_line = std::min(min_line, p.start_line);
    max_line = std::max(max_line, p.start_line);
    max_col = std::max<std::uint32_t>(max_col, p.start_column);
    max_dline = std::max(max_dline, p.end_line - p.start_line);
    max_ecol = std::max<std::uint32_t>(max_ecol, p.end_column);
  }
  if (h.visible == 0) min_line = max_line = 0;
  h.w_il = static_cast<std::uint8_t>(f::bit_width(max_il));
  h.w_col = static_cast<std::uint8_t>(f::bit_width(max_col));
  h.w_dline = static_cast<std::uint8_t>(f::bit_width(max_dline));
  h.w_ecol = static_cast<std::uint8_t>(f::bit_width(max_ecol));
  choose_base(min_line, max_line, h.visible, h.base_line, h.w_line);
  choose_base(min_doc, max_doc, pts.size(), h.base_doc, h.w_doc);
  std::uint8_t hdr[32];
  const std::size_t n = f::put_block_header(hdr, h);
  out.insert(out.end(), hdr, hdr + n);
  BitWriter bw(out);
  for (const SequencePoint& p : pts) {
    if (p.hidden()) continue;
    bw.put(p.il_offset, h.w_il);
    bw.put(p.start_line - h.base_line, h.w_line);
    bw.put(p.start_column, h.w_col);
    bw.put(p.end_line - p.start_line, h.w_dline);
    bw.put(p.end_column, h.w_ecol);
    bw.put(p.document - 1 - h.base_doc, h.w_doc);
  }
  for (const SequencePoint& p : pts) {
    if (!p.hidden()) continue;
    bw.put(p.il_offset, h.w_il);
    bw.put(p.document - 1 - h.base_doc, h.w_doc);
  }
  bw.flush();
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

  // Point blocks, method by method.
  const std::uint32_t methods = pdb.method_count();
  std::vector<std::uint32_t> offsets;
  offsets.reserve(std::size_t(methods) + 1);
  std::vector<std::uint8_t> blocks;
  std::vector<SequencePoint> pts;
  std::uint64_t total = 0, hidden = 0;
  offsets.push_back(0);
  for (std::uint32_t rid = 1; rid <= methods; ++rid) {
    pts.clear();
    if (Status s = pdb.sequence_points(rid, pts); !s) return s.error();
    total += pts.size();
    for (const SequencePoint& p : pts) hidden += p.hidden();
    encode_block(pts, blocks);
    if (blocks.size() > UINT32_MAX - f::kBlockTailPadding)
      return Error{Errc::kTooLarge, "point blocks exceed 4 GiB, the limit of format v1"};
    offsets.push_back(static_cast<std::uint32_t>(blocks.size()));
  }
  blocks.insert(blocks.end(), f::kBlockTailPadding, 0);
  if (blocks.size() + offsets.size() * 4 > f::kMaxPayloadSize)
    return Error{Errc::kTooLarge, format("%s: the cache would exceed FlatBuffers' 2 GiB limit", src.source_name.c_str())};

  flatbuffers::FlatBufferBuilder fbb(1024 + blocks.size() + offsets.size() * 4);
  fbb.ForceDefaults(false);

  // Documents.
  std::vector<flatbuffers::Offset<fb::Document>> doc_offsets;
  doc_offsets.reserve(docs->size());
  for (const Document& d : *docs) {
    auto path = fbb.CreateSharedString(d.name);
    auto hash = fbb.CreateVector(d.hash.data(), d.hash.size());
    flatbuffers::Offset<flatbuffers::String> url;
    if (sourcelink) {
      if (auto u = sourcelink->map(d.name)) url = fbb.CreateString(*u);
    }
    const fb::Language lang = language_of(d.language);
    const fb::HashAlgorithm alg = hash_algorithm_of(d.hash_algorithm);
    const fb::Guid lang_guid = to_fb(d.language), alg_guid = to_fb(d.hash_algorithm);
    fb::DocumentBuilder db(fbb);
    db.add_path(path);
    db.add_language(lang);
    if (lang == fb::Language::Other) db.add_language_guid(&lang_guid);
    db.add_hash_algorithm(alg);
    if (alg == fb::HashAlgorithm::Other) db.add_hash_algorithm_guid(&alg_guid);
    db.add_hash(hash);
    if (!url.IsNull()) db.add_source_url(url);
    doc_offsets.push_back(db.Finish());
  }
  auto documents = fbb.CreateVector(doc_offsets);

  // SourceLink entries.
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::SourceLinkEntry>>> sl_vec;
  if (sourcelink) {
    std::vector<flatbuffers::Offset<fb::SourceLinkEntry>> v;
    for (const SourceLinkEntry& e : sourcelink->entries())
      v.push_back(fb::CreateSourceLinkEntry(fbb, fbb.CreateString(e.key), e.prefix, fbb.CreateString(e.url),
                                            e.url_has_star ? fbb.CreateString(e.url_suffix) : 0));
    sl_vec = fbb.CreateVector(v);
  }

  // Embedded sources (zstd), only on request.
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::EmbeddedSource>>> es_vec;
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
    if (!v.empty()) es_vec = fbb.CreateVector(v);
  }

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
  auto identity = ib.Finish();

  auto method_offsets = fbb.CreateVector(offsets);
  fbb.ForceVectorAlignment(blocks.size(), 1, 8);
  auto point_blocks = fbb.CreateVector(blocks);

  fb::CacheBuilder cb(fbb);
  cb.add_identity(identity);
  cb.add_documents(documents);
  cb.add_method_offsets(method_offsets);
  cb.add_point_blocks(point_blocks);
  cb.add_point_count(total);
  cb.add_hidden_count(hidden);
  if (!sl_vec.IsNull()) cb.add_source_link(sl_vec);
  if (!es_vec.IsNull()) cb.add_embedded_sources(es_vec);
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
