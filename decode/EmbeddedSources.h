// EmbeddedSources.h - the embedded sources of one Portable PDB, inflated under one budget.
//
// Each EmbeddedSource blob is capped on its own (PortablePdb::decode_embedded_source), but a
// PDB may have many documents and they may all point at the same #Blob offset: 100 documents
// sharing one 256 MiB-inflating blob would cost 100 inflations and 25 GiB of work. This reader
// inflates each distinct blob once (a document whose blob offset was seen before gets the
// earlier result's size and no bytes) and keeps the total of inflated bytes of the PDB within
// `max_total`; beyond it the error is Errc::kTooLarge, raised before the inflation.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "decode/PortablePdb.h"
#include "ilmap/status.h"

namespace ilmap {

struct EmbeddedSource {
  std::uint32_t blob_offset = 0;   // #Blob offset of the EmbeddedSource CDI value
  std::uint64_t size = 0;          // decompressed size in bytes
  bool shared = false;             // same blob as an earlier document: `bytes` is left empty
  std::vector<std::uint8_t> bytes;  // the decompressed source (first use of the blob only)
};

class EmbeddedSourceReader {
 public:
  // `max_each`: cap on one source; `max_total`: cap on the sum of all distinct sources.
  EmbeddedSourceReader(const PortablePdb& pdb, std::size_t max_each, std::size_t max_total)
      : pdb_(pdb), max_each_(max_each), max_total_(max_total) {}

  // The embedded source of Document row `rid`, or nullopt when it has none.
  Result<std::optional<EmbeddedSource>> read(std::uint32_t rid);

  std::uint64_t inflations() const { return inflations_; }        // distinct blobs decoded
  std::uint64_t inflated_bytes() const { return inflated_bytes_; }  // their total size

 private:
  const PortablePdb& pdb_;
  std::size_t max_each_, max_total_;
  std::unordered_map<std::uint32_t, std::uint64_t> seen_;  // blob offset -> size
  std::uint64_t inflations_ = 0, inflated_bytes_ = 0;
};

}  // namespace ilmap
