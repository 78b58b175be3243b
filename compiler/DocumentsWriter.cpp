// DocumentsWriter.cpp - document references, their strings, and the Details buffer (see
// DocumentsWriter.h).
//
// SPEC.md 3.3, 3.4 and 3.5. Embedded sources (3.4) are compressed one distinct blob at a time
// with zstd at the caller's level; documents sharing a blob share its compressed bytes.
#include "compiler/DocumentsWriter.h"

#include <zstd.h>

#include <memory>
#include <new>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "decode/EmbeddedSources.h"

namespace ilmap {
namespace {

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

// Document paths and URLs, deduplicated, in one byte vector.
class StringPool {
 public:
  std::pair<std::uint32_t, std::uint32_t> add(std::string_view s) {
    auto [it, fresh] = index_.try_emplace(std::string(s), static_cast<std::uint32_t>(bytes_.size()));
    if (fresh) bytes_.insert(bytes_.end(), s.begin(), s.end());
    return {it->second, static_cast<std::uint32_t>(s.size())};
  }
  std::vector<std::uint8_t> take_bytes() { return std::move(bytes_); }

 private:
  std::unordered_map<std::string, std::uint32_t> index_;
  std::vector<std::uint8_t> bytes_;
};

using EmbeddedSources = flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::EmbeddedSource>>>;

// The EmbeddedSource tables of `pdb` (a null offset when it has none). Each distinct blob is
// inflated and compressed once; documents sharing it share the compressed bytes too (one
// FlatBuffers vector referenced by several tables).
Result<EmbeddedSources> write_embedded_sources(flatbuffers::FlatBufferBuilder& fbb, const PortablePdb& pdb,
                                               const CacheBuildOptions& opt, CacheStats* stats) {
  EmbeddedSourceReader reader(pdb, opt.max_embedded_source,
                              opt.max_embedded_total ? opt.max_embedded_total : opt.max_embedded_source);
  std::unordered_map<std::uint32_t, flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>>> stored;
  std::vector<flatbuffers::Offset<fb::EmbeddedSource>> v;
  for (std::uint32_t rid = 1; rid <= pdb.document_count(); ++rid) {
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
  if (v.empty()) return EmbeddedSources();
  return fbb.CreateVector(v);
}

}  // namespace

Result<DocumentTable> build_document_table(const std::vector<Document>& docs, const SourceLinkMap* sourcelink,
                                           const std::vector<std::string>& srcsrv_urls,
                                           const std::vector<std::string>* package_urls, std::size_t name_budget) {
  DocumentTable table;
  StringPool strings;
  table.refs.reserve(docs.size());
  std::size_t url_budget = name_budget;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    const Document& d = docs[i];
    auto [po, pl] = strings.add(d.name);
    std::pair<std::uint32_t, std::uint32_t> url{0, 0};
    std::optional<std::string> u;
    if (sourcelink) u = sourcelink->map(d.name);
    if (!u && i < srcsrv_urls.size() && !srcsrv_urls[i].empty()) u = srcsrv_urls[i];
    if (!u && package_urls && i < package_urls->size() && !(*package_urls)[i].empty()) {
      u = (*package_urls)[i];
      table.package_urls = true;
    }
    if (u) {
      if (u->size() > url_budget)
        return Error{Errc::kTooLarge, format("SourceLink: the resolved document URLs exceed %zu bytes (the limit for this PDB: max(64 MiB, 16 x its size))", name_budget)};
      url_budget -= u->size();
      url = strings.add(*u);
    }
    table.refs.emplace_back(po, pl, url.first, url.second, language_of(d.language));
  }
  table.strings = strings.take_bytes();
  return table;
}

Result<std::vector<std::uint8_t>> build_details(const PortablePdb* pdb, const std::vector<Document>& docs,
                                                const SourceLinkMap* sourcelink, const CacheBuildOptions& opt,
                                                bool& holds_sources, CacheStats* stats) {
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
    for (const SourceLinkEntry& e : sourcelink->entries()) {
      // One statement each: the order of a call's arguments is unspecified (GCC takes them right
      // to left on x86-64, left to right on arm64), and the order the strings are created in is
      // the cache's bytes. This order is the one the x86-64 builds have always written.
      const flatbuffers::Offset<flatbuffers::String> suffix = e.url_has_star ? fbb.CreateString(e.url_suffix) : 0;
      const flatbuffers::Offset<flatbuffers::String> url = fbb.CreateString(e.url);
      const flatbuffers::Offset<flatbuffers::String> key = fbb.CreateString(e.key);
      v.push_back(fb::CreateSourceLinkEntry(fbb, key, e.prefix, url, suffix));
    }
    sl_vec = fbb.CreateVector(v);
  }
  EmbeddedSources es_vec;
  if (opt.embed_sources && pdb) {
    auto es = write_embedded_sources(fbb, *pdb, opt, stats);
    if (!es) return es.error();
    es_vec = *es;
  }
  holds_sources = !es_vec.IsNull();
  fb::DetailsBuilder db(fbb);
  db.add_documents(documents);
  if (!sl_vec.IsNull()) db.add_source_link(sl_vec);
  if (!es_vec.IsNull()) db.add_embedded_sources(es_vec);
  fbb.Finish(db.Finish());
  return std::vector<std::uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace ilmap
