// Identity.cpp - what a cache says it was compiled from (SPEC.md 3.2), its embedded sources
// (3.4), and the raw FlatBuffers view that dump and info print (reader/RawCache.h).
#include <zstd.h>

#include <algorithm>

#include "reader/CacheImpl.h"
#include "reader/RawCache.h"

namespace ilmap {
namespace {

std::string_view view(const flatbuffers::String* s) { return s ? std::string_view(s->data(), s->size()) : std::string_view(); }

std::array<std::uint8_t, 16> guid_bytes(const fb::Guid& g) {
  std::array<std::uint8_t, 16> out{};
  std::copy(g.bytes()->begin(), g.bytes()->end(), out.begin());
  return out;
}

// The embedded source of `document` in `details`, its zstd frame recording the size the entry
// states (so that the size is known before anything is unpacked).
Result<const fb::EmbeddedSource*> source_entry(const fb::Details* details, std::uint32_t document) {
  const fb::EmbeddedSource* found = nullptr;
  if (const auto* es = details->embedded_sources())
    for (const fb::EmbeddedSource* e : *es)
      if (e->document() == document && e->zstd()) {
        found = e;
        break;
      }
  if (!found) return Error{Errc::kNotFound, format("document %u has no embedded source", document)};
  const auto* z = found->zstd();
  const unsigned long long frame = ZSTD_getFrameContentSize(z->data(), z->size());
  if (frame == ZSTD_CONTENTSIZE_UNKNOWN || frame == ZSTD_CONTENTSIZE_ERROR || frame != found->uncompressed_size())
    return {Errc::kMalformed, CacheStructure::kDetails, format("embedded source of document %u: the zstd frame does not record its size %llu", document,
                                          static_cast<unsigned long long>(found->uncompressed_size()))};
  return found;
}

}  // namespace

CacheIdentity Cache::identity() const {
  CacheIdentity out;
  const fb::Identity* id = impl_->root->identity();
  if (!id) return out;
  if (const auto* p = id->pdb_id(); p && p->size() == 20) {
    std::array<std::uint8_t, 20> a{};
    std::copy(p->begin(), p->end(), a.begin());
    out.pdb_id = a;
  }
  out.pdb_key = view(id->pdb_key());
  out.debug_id = view(id->debug_id());
  out.entry_point = id->entry_point();
  out.pe_name = view(id->pe_name());
  out.pe_timestamp = id->pe_timestamp();
  out.pe_size_of_image = id->pe_size_of_image();
  out.pe_key = view(id->pe_key());
  out.code_id = view(id->code_id());
  if (const fb::Guid* g = id->mvid()) out.mvid = guid_bytes(*g);
  if (const auto* cvs = id->codeview()) {
    for (const fb::CodeView* cv : *cvs) {
      CacheIdentity::CodeView c;
      if (cv->guid()) c.guid = guid_bytes(*cv->guid());
      c.age = cv->age();
      c.stamp = cv->stamp();
      c.path = view(cv->path());
      c.portable = cv->portable();
      out.codeview.push_back(c);
    }
  }
  if (const auto* sums = id->pdb_checksums())
    for (const flatbuffers::String* s : *sums) out.pdb_checksums.push_back(view(s));
  if (const auto* h = id->pdb_sha256()) out.pdb_sha256 = {h->data(), h->size()};
  out.source_xxh3 = id->source_xxh3();
  out.source_size = id->source_size();
  out.source_name = view(id->source_name());
  out.compiler_version = view(id->compiler_version());
  out.holds_embedded_sources = id->holds_embedded_sources();
  out.package_source_urls = id->package_source_urls();
  return out;
}

Result<std::uint64_t> Cache::embedded_source_size(std::uint32_t document) const {
  auto d = details();
  if (!d) return d.error();
  auto e = source_entry(static_cast<const fb::Details*>(*d), document);
  if (!e) return e.error();
  const std::uint64_t size = (*e)->uncompressed_size();
  if (changed()) return impl_->changed_error().error();
  return size;
}

Result<std::string> Cache::embedded_source(std::uint32_t document, std::uint64_t max_bytes) const {
  auto d = details();
  if (!d) return d.error();
  auto e = source_entry(static_cast<const fb::Details*>(*d), document);
  if (!e) return e.error();
  const std::uint64_t size = (*e)->uncompressed_size();
  if (size > max_bytes)
    return Error{Errc::kTooLarge, format("embedded source of document %u: %llu bytes, more than the limit of %llu", document,
                                         static_cast<unsigned long long>(size), static_cast<unsigned long long>(max_bytes))};
  const auto* z = (*e)->zstd();
  std::string text(static_cast<std::size_t>(size), '\0');
  const std::size_t got = ZSTD_decompress(text.data(), text.size(), z->data(), z->size());
  if (ZSTD_isError(got) || got != size)
    return {Errc::kMalformed, CacheStructure::kDetails, format("embedded source of document %u: the zstd frame does not unpack", document)};
  if (changed()) return impl_->changed_error().error();
  return text;
}

Result<DocumentChecksum> Cache::document_checksum(std::uint32_t document) const {
  auto d = details();
  if (!d) return d.error();
  DocumentChecksum out;
  const auto* docs = static_cast<const fb::Details*>(*d)->documents();
  if (!docs || document >= docs->size()) return out;
  const fb::DocumentDetails* dd = docs->Get(document);
  switch (dd->hash_algorithm()) {
    case fb::HashAlgorithm::Sha1: out.algorithm = DocumentHashAlgorithm::kSha1; break;
    case fb::HashAlgorithm::Sha256: out.algorithm = DocumentHashAlgorithm::kSha256; break;
    case fb::HashAlgorithm::None: out.algorithm = DocumentHashAlgorithm::kNone; break;
    default: out.algorithm = DocumentHashAlgorithm::kOther; break;
  }
  if (const auto* h = dd->hash()) out.hash = {h->data(), h->size()};
  if (changed()) return impl_->changed_error().error();
  return out;
}

const fb::Cache* CacheRaw::root(const Cache& cache) noexcept { return static_cast<const fb::Cache*>(cache.root()); }

Result<const fb::Details*> CacheRaw::details(const Cache& cache) {
  auto d = cache.details();
  if (!d) return d.error();
  return static_cast<const fb::Details*>(*d);
}

}  // namespace ilmap
