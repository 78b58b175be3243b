// EmbeddedSources.cpp - one inflation per distinct blob, one budget per PDB (see the header).
#include "decode/EmbeddedSources.h"

#include <cstring>

#include "decode/Guids.h"

namespace ilmap {

Result<std::optional<EmbeddedSource>> EmbeddedSourceReader::read(std::uint32_t rid) {
  const auto value = pdb_.find_cdi(kHcdiDocument, rid, guids::kCdiEmbeddedSource);
  if (!value) return std::optional<EmbeddedSource>();
  EmbeddedSource out;
  out.blob_offset = *value;
  if (auto it = seen_.find(*value); it != seen_.end()) {
    out.size = it->second;
    out.shared = true;
    return std::optional<EmbeddedSource>(std::move(out));
  }
  auto blob = pdb_.metadata().blob(*value);
  if (!blob) return Error{blob.error().code, format("embedded source of Document row %u: %s", rid, blob.error().message.c_str())};
  const std::string where = format("embedded source of Document row %u at #Blob offset 0x%x", rid, *value);
  // The size it would add, from the 4-byte format field (0: stored; > 0: declared inflated
  // size); malformed or over-cap fields are left to decode_embedded_source to report.
  if (blob->size() >= 4) {
    std::int32_t fmt = 0;
    std::memcpy(&fmt, blob->data(), 4);
    const std::uint64_t size = fmt == 0 ? blob->size() - 4 : static_cast<std::uint64_t>(fmt);
    if (fmt >= 0 && size <= max_each_ && inflated_bytes_ + size > max_total_)
      return Error{Errc::kTooLarge,
                   format("%s: its %llu bytes would bring the embedded sources of this PDB to %llu bytes, "
                          "over the total limit of %zu",
                          where.c_str(), static_cast<unsigned long long>(size),
                          static_cast<unsigned long long>(inflated_bytes_ + size), max_total_)};
  }
  auto bytes = PortablePdb::decode_embedded_source(*blob, max_each_, where);
  if (!bytes) return bytes.error();
  out.size = bytes->size();
  out.bytes = std::move(*bytes);
  seen_.emplace(*value, out.size);
  ++inflations_;
  inflated_bytes_ += out.size;
  return std::optional<EmbeddedSource>(std::move(out));
}

}  // namespace ilmap
