// PortablePdb.cpp - documents, sequence points and custom debug information of a Portable PDB.
//
// Document names: "Document Name Blob" grammar (separator, then parts that are #Blob offsets),
// joined as System.Reflection.Metadata's BlobHeap.GetDocumentName does. EmbeddedSource:
// int32 format (0 raw, >0 raw-deflate of that size, <0 reserved).
#include "decode/PortablePdb.h"

#include <libdeflate.h>

#include <memory>

namespace ilmap {

Result<PortablePdb> PortablePdb::parse(std::span<const std::uint8_t> bytes, std::size_t base) {
  auto md = Metadata::parse(bytes, base);
  if (!md) return md.error();
  PortablePdb pdb;
  pdb.bytes_ = bytes;
  pdb.md_ = std::move(md.value());
  const std::uint32_t mdi = pdb.md_.rows(kMethodDebugInformation);
  if (pdb.md_.has_pdb_stream()) {
    const std::uint32_t defs = pdb.md_.pdb_header().external_rows[kMethodDef];
    if (mdi != 0 && defs != 0 && mdi != defs)
      return Error{Errc::kMalformed, format("MethodDebugInformation has %u rows but #Pdb records %u MethodDef rows", mdi, defs)};
  }
  return pdb;
}

PdbId PortablePdb::id() const {
  PdbId id;
  id.bytes = md_.pdb_header().id;
  return id;
}

Result<std::string> PortablePdb::document_name(std::uint32_t rid) const {
  return document_name(rid, name_budget());
}

Result<std::string> PortablePdb::document_name(std::uint32_t rid, std::size_t budget) const {
  if (rid == 0 || rid > document_count())
    return Error{Errc::kMalformed, format("Document rid %u out of range (table has %u rows)", rid, document_count())};
  const std::uint32_t name_off = md_.column(kDocument, rid, 0);
  auto blob = md_.blob(name_off);
  if (!blob) return Error{blob.error().code, format("name of Document row %u: %s", rid, blob.error().message.c_str())};
  ByteCursor c(*blob, md_.blob_heap_offset() + name_off);
  std::uint8_t sep = 0;
  if (!c.read(sep))
    return Error{Errc::kMalformed, format("name blob of Document row %u at #Blob offset 0x%x: empty", rid, name_off)};
  if (sep > 0x7F)
    return Error{Errc::kMalformed, format("name blob of Document row %u at #Blob offset 0x%x: separator 0x%02x is not ASCII", rid, name_off, sep)};
  std::string name;
  bool first = true;
  while (!c.empty()) {
    std::uint32_t part = 0;
    const std::size_t at = c.pos();
    if (!c.read_compressed(part))
      return Error{Errc::kMalformed, format("name blob of Document row %u at #Blob offset 0x%x: part %zu truncated", rid, name_off, at)};
    if (!first && sep != 0) name.push_back(static_cast<char>(sep));
    first = false;
    auto text = md_.blob(part);
    if (!text) return Error{text.error().code, format("name part of Document row %u: %s", rid, text.error().message.c_str())};
    if (text->size() > budget - std::min(budget, name.size()))
      return Error{Errc::kTooLarge, format("name blob of Document row %u at #Blob offset 0x%x: joined document names exceed %zu bytes (the limit for this PDB: max(64 MiB, 16 x its size))", rid, name_off, name_budget())};
    name.append(reinterpret_cast<const char*>(text->data()), text->size());
  }
  return name;
}

Result<Document> PortablePdb::document(std::uint32_t rid) const {
  return document(rid, name_budget());
}

Result<Document> PortablePdb::document(std::uint32_t rid, std::size_t budget) const {
  auto name = document_name(rid, budget);
  if (!name) return name.error();
  Document d;
  d.name = std::move(*name);
  auto hash_alg = md_.guid(md_.column(kDocument, rid, 1));
  if (!hash_alg) return Error{hash_alg.error().code, format("hash algorithm of Document row %u: %s", rid, hash_alg.error().message.c_str())};
  auto hash = md_.blob(md_.column(kDocument, rid, 2));
  if (!hash) return Error{hash.error().code, format("hash of Document row %u: %s", rid, hash.error().message.c_str())};
  auto lang = md_.guid(md_.column(kDocument, rid, 3));
  if (!lang) return Error{lang.error().code, format("language of Document row %u: %s", rid, lang.error().message.c_str())};
  d.hash_algorithm = *hash_alg;
  d.hash = *hash;
  d.language = *lang;
  return d;
}

Result<std::vector<Document>> PortablePdb::documents() const {
  std::vector<Document> docs;
  docs.reserve(document_count());
  std::size_t budget = name_budget();  // shared by all names (see name_budget())
  for (std::uint32_t rid = 1; rid <= document_count(); ++rid) {
    auto d = document(rid, budget);
    if (!d) return d.error();
    budget -= d->name.size();
    docs.push_back(std::move(*d));
  }
  return docs;
}

Status PortablePdb::sequence_points(std::uint32_t rid, std::vector<SequencePoint>& out) const {
  return for_each_sequence_point(rid, [&out](const SequencePoint& p) { out.push_back(p); });
}

Status PortablePdb::method_blob(std::uint32_t rid, std::uint32_t& document,
                                std::uint32_t& blob_offset,
                                std::span<const std::uint8_t>& blob) const {
  if (rid == 0 || rid > method_count())
    return {Errc::kMalformed, format("MethodDebugInformation rid %u out of range (table has %u rows)", rid, method_count())};
  document = md_.column(kMethodDebugInformation, rid, 0);
  if (document > document_count())
    return {Errc::kMalformed, format("MethodDebugInformation row %u: document %u beyond the Document table (%u rows)", rid, document, document_count())};
  blob_offset = md_.column(kMethodDebugInformation, rid, 1);
  auto b = md_.blob(blob_offset);
  if (!b)
    return {b.error().code, format("sequence points blob of MethodDebugInformation row %u: %s", rid, b.error().message.c_str())};
  blob = *b;
  return {};
}

Status PortablePdb::blob_error(std::uint32_t rid, std::uint32_t blob_offset, const SpDecodeError& err) {
  return {err.reason == SpError::kTruncated ? Errc::kTruncated : Errc::kMalformed,
          format("sequence points blob of MethodDebugInformation row %u at #Blob offset 0x%x (byte %zu): %s", rid, blob_offset, err.blob_pos, sp_error_text(err.reason))};
}

Result<std::vector<CdiRow>> PortablePdb::custom_debug_information() const {
  std::vector<CdiRow> rows;
  const std::uint32_t n = md_.rows(kCustomDebugInformation);
  rows.reserve(n);
  for (std::uint32_t rid = 1; rid <= n; ++rid) {
    const std::uint32_t parent = md_.column(kCustomDebugInformation, rid, 0);
    auto kind = md_.guid(md_.column(kCustomDebugInformation, rid, 1));
    if (!kind) return Error{kind.error().code, format("kind of CustomDebugInformation row %u: %s", rid, kind.error().message.c_str())};
    CdiRow r;
    r.parent_tag = parent & ((1u << kHcdiTagBits) - 1);
    r.parent_rid = parent >> kHcdiTagBits;
    if (r.parent_tag > 26)
      return Error{Errc::kMalformed, format("CustomDebugInformation row %u: parent tag %u is invalid", rid, r.parent_tag)};
    r.kind = *kind;
    r.value_blob = md_.column(kCustomDebugInformation, rid, 2);
    rows.push_back(r);
  }
  return rows;
}

Result<std::vector<StateMachineMethod>> PortablePdb::state_machine_methods() const {
  std::vector<StateMachineMethod> out;
  const std::uint32_t n = md_.rows(kStateMachineMethod);
  out.reserve(n);
  for (std::uint32_t rid = 1; rid <= n; ++rid)
    out.push_back({md_.column(kStateMachineMethod, rid, 0), md_.column(kStateMachineMethod, rid, 1)});
  return out;
}

std::optional<std::uint32_t> PortablePdb::find_cdi(std::uint32_t parent_tag, std::uint32_t parent_rid,
                                                   const Guid& kind) const {
  const std::uint64_t key = (std::uint64_t(parent_rid) << kHcdiTagBits) | parent_tag;
  if (key > UINT32_MAX) return std::nullopt;
  const std::uint32_t n = md_.rows(kCustomDebugInformation);
  // First row whose Parent is >= key. On an unsorted (corrupt) table this may miss, never crash.
  std::uint32_t lo = 1, count = n;
  while (count > 0) {
    const std::uint32_t half = count / 2;
    if (md_.column(kCustomDebugInformation, lo + half, 0) < key) {
      lo += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  for (std::uint32_t rid = lo; rid <= n && md_.column(kCustomDebugInformation, rid, 0) == key; ++rid) {
    auto g = md_.guid(md_.column(kCustomDebugInformation, rid, 1));
    if (g && *g == kind) return md_.column(kCustomDebugInformation, rid, 2);
  }
  return std::nullopt;
}

Result<std::optional<std::string>> PortablePdb::source_link() const {
  const auto value = find_cdi(kHcdiModule, 1, guids::kCdiSourceLink);
  if (!value) return std::optional<std::string>();
  auto blob = md_.blob(*value);
  if (!blob) return Error{blob.error().code, format("SourceLink blob: %s", blob.error().message.c_str())};
  std::string_view json(reinterpret_cast<const char*>(blob->data()), blob->size());
  if (json.size() >= 3 && json.substr(0, 3) == "\xEF\xBB\xBF") json.remove_prefix(3);
  return std::optional<std::string>(std::string(json));
}

Result<std::vector<std::uint8_t>> PortablePdb::decode_embedded_source(
    std::span<const std::uint8_t> blob, std::size_t max_size, const std::string& where) {
  ByteCursor c(blob);
  std::int32_t fmt = 0;
  if (!c.read(fmt)) return Error{Errc::kTruncated, where + ": embedded source blob shorter than its 4-byte format"};
  if (fmt < 0) return Error{Errc::kUnsupported, format("%s: embedded source format %d is reserved", where.c_str(), fmt)};
  if (fmt == 0) {
    if (c.remaining() > max_size)
      return Error{Errc::kTooLarge, format("%s: embedded source has %zu bytes, over the limit of %zu", where.c_str(), c.remaining(), max_size)};
    return std::vector<std::uint8_t>(c.ptr(), c.ptr() + c.remaining());
  }
  const std::size_t size = static_cast<std::size_t>(fmt);
  if (size > max_size)
    return Error{Errc::kTooLarge, format("%s: embedded source declares %zu bytes, over the limit of %zu", where.c_str(), size, max_size)};
  // n deflate bytes inflate to at most 1032 * n bytes (RFC 1951 maximum ratio): a larger
  // declared size cannot be right, so refuse it before allocating.
  if (size > std::uint64_t(c.remaining()) * 1032)
    return Error{Errc::kMalformed, format("%s: embedded source declares %zu bytes, more than its %zu deflate bytes can hold", where.c_str(), size, c.remaining())};
  std::vector<std::uint8_t> out(size);
  std::unique_ptr<libdeflate_decompressor, decltype(&libdeflate_free_decompressor)> d(
      libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
  if (!d) return Error{Errc::kIo, where + ": out of memory for the inflater"};
  std::size_t in_used = 0, actual = 0;
  const libdeflate_result r = libdeflate_deflate_decompress_ex(
      d.get(), c.ptr(), c.remaining(), out.data(), out.size(), &in_used, &actual);
  if (r != LIBDEFLATE_SUCCESS || actual != size || in_used != c.remaining())
    return Error{Errc::kMalformed, format("%s: embedded source deflate data is corrupt or does not inflate to exactly %zu bytes", where.c_str(), size)};
  return out;
}

Result<std::optional<std::vector<std::uint8_t>>> PortablePdb::embedded_source(
    std::uint32_t rid, std::size_t max_size) const {
  const auto value = find_cdi(kHcdiDocument, rid, guids::kCdiEmbeddedSource);
  if (!value) return std::optional<std::vector<std::uint8_t>>();
  auto blob = md_.blob(*value);
  if (!blob) return Error{blob.error().code, format("embedded source of Document row %u: %s", rid, blob.error().message.c_str())};
  auto src = decode_embedded_source(*blob, max_size, format("embedded source of Document row %u at #Blob offset 0x%x", rid, *value));
  if (!src) return src.error();
  return std::optional<std::vector<std::uint8_t>>(std::move(*src));
}

}  // namespace ilmap
