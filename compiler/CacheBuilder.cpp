// CacheBuilder.cpp - build_cache: a decoded PDB to the bytes of a cache file.
//
// Writes what SPEC.md describes: the 32-byte file header (section 2) in front of one
// FlatBuffers payload (section 3, format/ilmap.fbs) whose root holds the identity (3.2), the
// documents (3.3-3.5), the method directory (4), the point blocks (5), the method names (3.6),
// the reverse line index (3.7) and packed sections (3.8). Each section is made by its own file
// of compiler/; this one runs the steps in order and assembles the FlatBuffer. The bytes depend
// only on the input (section 8), never on the thread count.
#include "compiler/CacheBuilder.h"

#include <flatbuffers/flatbuffers.h>
#include <xxhash.h>

#include <cstring>
#include <optional>
#include <span>
#include <utility>

#include "compiler/BlockLayout.h"
#include "compiler/BuildInput.h"
#include "compiler/DocumentsWriter.h"
#include "compiler/LineIndexFromBlocks.h"
#include "compiler/LineIndexWriter.h"
#include "compiler/NamesSection.h"
#include "compiler/PointEncoder.h"
#include "compiler/ProfilePlanner.h"
#include "compiler/ScratchBuffers.h"
#include "decode/PdbChecksum.h"
#include "decode/SourceLink.h"
#include "format/ilmap_format.h"
#include "ilmap_generated.h"
#include "support/ZstdPack.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

// Everything of a cache but its identity, computed before the FlatBuffer is written.
struct Sections {
  std::vector<BlockChunk> chunks;  // the encoded blocks, in row order
  ProfilePlan plan;
  BlockLayout layout;
  MethodDirectory directory;
  DocumentTable documents;
  LineIndexSection line_index;
  std::vector<std::uint8_t> details;
  bool holds_sources = false;
  std::optional<std::vector<std::uint8_t>> strings_z, details_z;  // packed, when smaller
  std::optional<std::vector<std::uint8_t>> pdb_sha256;            // Identity.pdb_sha256
};

// Identity.pdb_sha256 of a Portable PDB: the caller's, or computed from the whole file.
Result<std::optional<std::vector<std::uint8_t>>> pdb_sha256_of(const CacheSource& src) {
  if (src.pdb_sha256) return src.pdb_sha256;
  if (!src.pdb || !src.pdb->has_pdb_stream()) return std::optional<std::vector<std::uint8_t>>();
  // What a store or a resolver compares with the PDB it holds and with the PE's PdbChecksum:
  // the 20-byte id alone is public and proves nothing about the rest of the bytes.
  auto sum = compute_pdb_checksum("SHA256", src.pdb->bytes(), src.pdb->metadata().pdb_stream_offset());
  if (!sum) return Error{sum.error().code, src.source_name + ": " + sum.error().message};
  return std::optional<std::vector<std::uint8_t>>(std::move(*sum));
}

// The SourceLink mappings of the input, if it has any that can be read. SourceLink is advice
// for finding the sources: one that cannot be read costs its URLs (a warning), never the points.
std::optional<SourceLinkMap> parse_sourcelink(const BuildInput& in, CacheStats* stats) {
  std::optional<SourceLinkMap> sourcelink;
  if (!in.sourcelink_json) return sourcelink;
  auto m = SourceLinkMap::parse(*in.sourcelink_json);
  if (m) sourcelink = std::move(*m);
  else if (stats) stats->warnings.push_back(m.error().message + "; the cache has no SourceLink URLs");
  return sourcelink;
}

// Document paths and URLs, and the Details buffer, packed like the other sections (SPEC.md 3.8,
// support/ZstdPack: level 1, one context and scratch memory per thread outside the malloc
// heap): they compress 5-15x (paths share directories, each URL repeats its path). `bytes` as
// one zstd frame (content size recorded), or nothing when that is not smaller or zstd fails.
std::optional<std::vector<std::uint8_t>> pack_section(std::span<const std::uint8_t> bytes) {
  const std::span<const std::uint8_t> z = zstd_pack(bytes);
  if (z.empty()) return std::nullopt;
  return std::vector<std::uint8_t>(z.begin(), z.end());
}

// Steps 1-6 of a build: point blocks, their profiles and places, documents, line index, details.
Result<Sections> build_sections(const CacheSource& src, const BuildInput& in, const CacheBuildOptions& opt,
                                CacheStats* stats) {
  Sections s;
  // The checksum reads the whole file: before its pages are given back.
  auto sha256 = pdb_sha256_of(src);
  if (!sha256) return sha256.error();
  s.pdb_sha256 = std::move(*sha256);
  const std::optional<SourceLinkMap> sourcelink = parse_sourcelink(in, stats);
  // 1. Every method's points as a block in its own profile. The sequence points were most of
  // the input's pages, and no later step reads them: the pages go back to the system (a
  // mapped file gives them again; the later steps read a few of them, the document names and
  // custom debug information).
  auto encoded = encode_point_blocks(in, opt);
  if (!encoded) return encoded.error();
  s.chunks = std::move(*encoded);
  if (src.pdb_file) src.pdb_file->release_pages();
  // 2. The profile table, each row's index, and the blocks to write again in a wider profile.
  s.plan = plan_profiles(s.chunks, in.methods, opt.rare_profiles_in_blocks, opt.profile_table_entries);
  // 3. Each block's place in the cache.
  auto layout = lay_out_blocks(s.chunks, s.plan, in.methods);
  if (!layout) return layout.error();
  s.layout = std::move(*layout);
  // 4. Documents: the hot part (paths, URLs, language) at the root, the rest in Details.
  const SourceLinkMap* const map = sourcelink ? &*sourcelink : nullptr;
  auto documents = build_document_table(in.docs, map, in.srcsrv_urls, src.document_urls, in.name_budget);
  if (!documents) return documents.error();
  s.documents = std::move(*documents);
  // 5. The reverse line index, read back from the encoded blocks a range of documents at a time.
  // The blocks' document spans served only the index; it is packed at once: from here the
  // build holds its frame, not its unpacked bytes.
  s.line_index = build_line_index_from_blocks(s.chunks, static_cast<std::uint32_t>(in.docs.size()));
  for (BlockChunk& c : s.chunks) std::vector<std::uint64_t>().swap(c.docs);
  pack_line_index(s.line_index);
  // 6. The Details buffer; embedded sources are zstd frames already, so a Details buffer
  // holding them is stored as is.
  auto details = build_details(in.portable, in.docs, map, opt, s.holds_sources, stats);
  if (!details) return details.error();
  s.details = std::move(*details);
  s.strings_z = pack_section(s.documents.strings);
  if (!s.holds_sources) s.details_z = pack_section(s.details);
  s.directory = build_directory(s.layout.offsets);
  return s;
}

// An upper bound of the payload's size, which the FlatBuffers builder reserves up front.
std::uint64_t payload_estimate(const Sections& s, const CacheSource& src) {
  return 4096 + s.layout.blocks_size + f::kBlockTailPadding + s.layout.offsets.size() * 5 + s.plan.table.size() * 8 +
         s.documents.strings.size() + s.documents.refs.size() * sizeof(fb::DocumentRef) + s.details.size() +
         (src.names ? src.names->bytes() : 0) + s.line_index.bytes();
}

// The Identity table (SPEC.md 3.2).
Result<flatbuffers::Offset<fb::Identity>> write_identity(flatbuffers::FlatBufferBuilder& fbb, const CacheSource& src,
                                                         const BuildInput& in, const Sections& s) {
  auto pdb_id = fbb.CreateVector(in.id.data(), in.id.size());
  flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> pdb_sha256;
  if (s.pdb_sha256) pdb_sha256 = fbb.CreateVector(*s.pdb_sha256);
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
  ib.add_holds_embedded_sources(s.holds_sources);
  if (!pdb_sha256.IsNull()) ib.add_pdb_sha256(pdb_sha256);
  ib.add_package_source_urls(s.documents.package_urls);
  return ib.Finish();
}

// The whole payload: every section, then the Cache root (SPEC.md 3.1), finished with the
// file identifier. The order of the writes fixes the bytes. The chunks' blocks are freed as
// they are copied in.
Status write_payload(flatbuffers::FlatBufferBuilder& fbb, const CacheSource& src, const BuildInput& in,
                     Sections& s) {
  auto identity = write_identity(fbb, src, in, s);
  if (!identity) return identity.error();
  auto documents = fbb.CreateVectorOfStructs(s.documents.refs);
  auto string_bytes = s.strings_z ? fbb.CreateVector(*s.strings_z) : fbb.CreateVector(s.documents.strings);
  auto method_groups = fbb.CreateVectorOfStructs(s.directory.groups);
  auto block_ends = fbb.CreateVector(s.directory.ends);
  auto block_ends_high = fbb.CreateVector(s.directory.high);
  auto block_profiles = fbb.CreateVector(s.plan.table);
  auto block_profile_index = fbb.CreateVector(s.plan.index);
  const std::size_t blocks_size = static_cast<std::size_t>(s.layout.blocks_size) + f::kBlockTailPadding;
  fbb.ForceVectorAlignment(blocks_size, 1, 8);
  std::uint8_t* blocks_out = nullptr;
  auto point_blocks = fbb.CreateUninitializedVector(blocks_size, 1, &blocks_out);
  if (Status st = write_point_blocks(s.chunks, s.plan, s.layout, blocks_out); !st) return st;
  std::vector<std::uint64_t>().swap(s.plan.written);
  const std::vector<std::uint8_t>& details_out = s.details_z ? *s.details_z : s.details;
  fbb.ForceVectorAlignment(details_out.size(), 1, 8);
  auto details = fbb.CreateVector(details_out);
  flatbuffers::Offset<fb::Names> names;
  if (src.names) names = write_names_section(fbb, *src.names);
  auto lines = write_line_index(fbb, s.line_index);
  s.line_index.frame.release();  // copied: the section's largest part goes now
  flatbuffers::Offset<flatbuffers::Vector<const fb::HiddenPoint*>> hidden_points;
  if (const std::vector<fb::HiddenPoint> all = hidden_points_of(s.chunks); !all.empty())
    hidden_points = fbb.CreateVectorOfStructs(all);

  fb::CacheBuilder cb(fbb);
  cb.add_identity(*identity);
  cb.add_documents(documents);
  if (s.strings_z) {
    cb.add_strings_zstd(string_bytes);
  } else {
    cb.add_strings(string_bytes);
  }
  cb.add_method_rows(in.methods);
  cb.add_method_groups(method_groups);
  cb.add_block_ends(block_ends);
  cb.add_block_ends_high(block_ends_high);
  cb.add_point_blocks(point_blocks);
  cb.add_block_profiles(block_profiles);
  cb.add_block_profile_index(block_profile_index);
  cb.add_point_count(s.layout.points);
  cb.add_hidden_count(s.layout.hidden);
  if (s.details_z) {
    cb.add_details_zstd(details);
  } else {
    cb.add_details(details);
  }
  if (src.names) cb.add_names(names);
  cb.add_lines(lines);
  if (!hidden_points.IsNull()) cb.add_hidden_points(hidden_points);
  fb::FinishCacheBuffer(fbb, cb.Finish());
  return {};
}

// The file header (SPEC.md section 2) in front of the finished payload. The builder writes
// back to front: the header goes right before the payload, in the same buffer, and that buffer
// becomes the result (no copy of the payload).
CacheBytes finish_file(flatbuffers::FlatBufferBuilder& fbb) {
  const std::size_t payload = fbb.GetSize();
  f::FileHeader h{};
  h.magic = f::kMagic;
  std::memcpy(h.identifier, f::kIdentifier, 4);
  h.version_major = f::kVersionMajor;
  h.version_minor = f::kVersionMinor;
  h.header_size = f::kHeaderSize;
  h.payload_size = payload;
  h.payload_xxh3 = XXH3_64bits(fbb.GetBufferPointer(), payload);
  fbb.PushBytes(reinterpret_cast<const std::uint8_t*>(&h), sizeof h);
  const std::size_t file_size = fbb.GetSize();
  std::size_t reserved = 0, offset = 0;
  std::uint8_t* block = fbb.ReleaseRaw(reserved, offset);
  return CacheBytes(block, scratch_block_size(reserved), block + offset, file_size);
}

}  // namespace

void CacheBytes::release() noexcept {
  scratch_pool().give({std::exchange(block_, nullptr), std::exchange(block_size_, 0)});
}

std::string compiler_version() {
  return format("ilmap %s/format %u.%u", ILMAP_VERSION_STRING, f::kVersionMajor, f::kVersionMinor);
}

Result<CacheBytes> build_cache(const CacheSource& src, const CacheBuildOptions& opt, CacheStats* stats) {
  // The input, whatever kind of PDB it is.
  auto input = read_build_input(src);
  if (!input) return input.error();
  const BuildInput& in = *input;
  // Every section but the identity, in memory.
  auto sections = build_sections(src, in, opt, stats);
  if (!sections) return sections.error();
  Sections& s = *sections;
  // The payload, in one FlatBuffers builder whose buffer comes from the scratch pool and is
  // reserved at its estimated size up front.
  const std::uint64_t estimate = payload_estimate(s, src);
  if (estimate > f::kMaxPayloadSize)
    return Error{Errc::kTooLarge, format("%s: the cache would exceed FlatBuffers' 2 GiB limit", src.source_name.c_str())};
  ScratchAllocator alloc;
  flatbuffers::FlatBufferBuilder fbb(static_cast<std::size_t>(estimate), &alloc);
  fbb.ForceDefaults(false);
  if (Status st = write_payload(fbb, src, in, s); !st) return st.error();
  if (fbb.GetSize() > f::kMaxPayloadSize)
    return Error{Errc::kTooLarge, format("%s: the cache payload (%zu bytes) exceeds FlatBuffers' 2 GiB limit",
                                         src.source_name.c_str(), std::size_t(fbb.GetSize()))};
  // The file header in front of it.
  CacheBytes out = finish_file(fbb);
  if (stats) {
    const MethodDirectory& dir = s.directory;
    stats->points = s.layout.points;
    stats->hidden = s.layout.hidden;
    stats->point_bytes = s.layout.blocks_size + f::kBlockTailPadding + dir.groups.size() * sizeof(fb::MethodGroup) +
                         (dir.ends.size() + dir.high.size()) * 2 + s.plan.table.size() * 8 + in.methods;
    stats->total_bytes = out.size();
  }
  return out;
}

}  // namespace ilmap
