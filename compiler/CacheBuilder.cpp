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
#include "compiler/PointEncoder.h"
#include "compiler/ProfilePlanner.h"
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

  // Point blocks, method by method, in chunks of consecutive rows.
  auto encoded = encode_point_blocks(in, opt);
  if (!encoded) return encoded.error();
  std::vector<BlockChunk>& chunks = *encoded;
  const std::uint32_t methods = in.methods;
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
            blocks_size += block_size_in(w, c.counts[k - c.first_block]);
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
