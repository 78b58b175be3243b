// cmd_info_cache.cpp - `ilmap info CACHE`: header, identity, section sizes, bytes per point.
#include "tools/CacheFields.h"
#include "tools/Commands.h"
#include "decode/Guids.h"
#include "ilmap/cache.h"
#include "reader/RawCache.h"

namespace ilmap::cli {
namespace {

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

}  // namespace

int info_cache(const std::string& path, bool json) {
  auto cache = Cache::open(path);
  if (!cache) return report_error(cache.error());
  const auto* root = raw_root(*cache);
  const CacheHeaderInfo h = cache->header();
  nlohmann::ordered_json j;
  j["input"] = path;
  j["kind"] = "ilmap-cache";
  j["format_version"] = format("%u.%u", h.version_major, h.version_minor);
  j["file_size"] = cache->bytes().size();
  j["payload_xxh3"] = format("%016llx", static_cast<unsigned long long>(h.payload_xxh3));
  if (const fb::Identity* id = root->identity()) {
    j["pdb_id"] = hex_of(id->pdb_id());
    j["debug_id"] = str(id->debug_id());
    j["ssqp_key"] = str(id->pdb_key());
    j["entry_point"] = format("0x%08x", id->entry_point());
    if (id->pe_name()) {
      j["pe_name"] = str(id->pe_name());
      j["pe_timestamp"] = format("0x%08x", id->pe_timestamp());
      j["pe_size_of_image"] = format("0x%x", id->pe_size_of_image());
      j["pe_ssqp_key"] = str(id->pe_key());
      j["pe_code_id"] = str(id->code_id());
      if (id->mvid()) j["mvid"] = guid_to_text(guid_of(id->mvid()));
      nlohmann::ordered_json cvs = nlohmann::ordered_json::array();
      if (id->codeview())
        for (const fb::CodeView* cv : *id->codeview())
          cvs.push_back({{"guid", guid_to_text(guid_of(cv->guid()))}, {"age", cv->age()},
                         {"stamp", format("0x%08x", cv->stamp())}, {"path", str(cv->path())},
                         {"portable", cv->portable()}});
      j["codeview"] = cvs;
      nlohmann::ordered_json cks = nlohmann::ordered_json::array();
      if (id->pdb_checksums())
        for (const flatbuffers::String* c : *id->pdb_checksums()) cks.push_back(c->str());
      j["pdb_checksums"] = cks;
    }
    j["source_name"] = str(id->source_name());
    j["source_size"] = id->source_size();
    j["source_xxh3"] = format("%016llx", static_cast<unsigned long long>(id->source_xxh3()));
    j["compiler_version"] = str(id->compiler_version());
    // Format 2.1's identity fields 17 and 18 (SPEC.md 3.2): the hash a PE's PdbChecksum names,
    // absent from 2.0 caches and from a Windows PDB's, and where the document URLs came from.
    if (id->pdb_sha256()) j["pdb_sha256"] = hex_of(id->pdb_sha256());
    j["package_source_urls"] = id->package_source_urls();
  }
  const std::uint64_t points = cache->point_count();
  const std::uint64_t point_bytes = cache->point_section_bytes();
  j["methods"] = cache->method_count();
  j["documents"] = cache->document_count();
  j["sequence_points"] = points;
  j["hidden_sequence_points"] = cache->hidden_count();
  j["section_method_directory_bytes"] = cache->point_section_bytes() - root->point_blocks()->size();
  j["section_point_blocks_bytes"] = root->point_blocks()->size();
  j["bytes_per_sequence_point"] = points ? format("%.2f", double(point_bytes) / double(points)) : "n/a";
  j["file_bytes_per_sequence_point"] = points ? format("%.2f", double(cache->bytes().size()) / double(points)) : "n/a";
  j["section_documents_bytes"] = (root->documents() ? root->documents()->size() * sizeof(fb::DocumentRef) : 0) +
                                 (root->strings() ? root->strings()->size() : 0) +
                                 (root->strings_zstd() ? root->strings_zstd()->size() : 0);
  j["section_details_bytes"] = (root->details() ? root->details()->size() : 0) +
                               (root->details_zstd() ? root->details_zstd()->size() : 0);
  // Method names (SPEC.md 3.6): present only when the cache was compiled with its PE.
  j["method_names"] = cache->has_method_names();
  if (const fb::Names* n = root->names()) {
    j["method_name_count"] = cache->method_name_count();
    // No name index is stored; readers derive one entry per method and one more per method
    // with a kickoff (SPEC.md 3.6).
    std::uint64_t entries = 0;
    for (std::uint32_t i = 0; i < cache->method_name_count(); ++i) {
      const auto v = cache->method_name(0x06000001u + i);
      entries += 1 + (v && v->kickoff);
    }
    j["name_index_entries"] = entries;
    j["assembly_name"] = std::string(cache->assembly_name());
    j["module_name"] = std::string(cache->module_name());
    if (n->mvid()) j["names_mvid"] = guid_to_text(guid_of(n->mvid()));
    j["section_names_bytes"] = (n->methods() ? n->methods()->size() * sizeof(fb::MethodNameRef) : 0) +
                               (n->methods_zstd() ? n->methods_zstd()->size() : 0) +
                               (n->strings() ? n->strings()->size() : 0) + (n->strings_zstd() ? n->strings_zstd()->size() : 0);
  }
  // The reverse line index (SPEC.md 3.7; packed into index_zstd when smaller).
  if (const fb::LineIndex* li = root->lines()) {
    j["section_lines_bytes"] = (li->doc_blocks() ? li->doc_blocks()->size() * 4 : 0) +
                               (li->blocks() ? li->blocks()->size() * sizeof(fb::LineBlockRef) : 0) +
                               (li->data() ? li->data()->size() : 0) + (li->index_zstd() ? li->index_zstd()->size() : 0);
  }
  auto details = raw_details(*cache);
  if (!details) return report_error(Error{details.error().code, path + ": " + details.error().message});
  const auto* d = static_cast<const fb::Details*>(*details);
  j["sourcelink_entries"] = d->source_link() ? d->source_link()->size() : 0;
  j["embedded_sources"] = d->embedded_sources() ? d->embedded_sources()->size() : 0;
  print_info(j, json);
  return 0;
}

}  // namespace ilmap::cli
