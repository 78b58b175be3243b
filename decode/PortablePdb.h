// PortablePdb.h - facade over a Portable PDB's metadata: documents, methods, sequence points,
// state machines and custom debug information (PortablePdb-Metadata.md).
//
// Borrows the bytes it was parsed from. Row accessors check rids; blob decoders report the
// table row and #Blob offset of any malformed value.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "decode/Guids.h"
#include "decode/Metadata.h"
#include "decode/SequencePoints.h"
#include "ilmap/status.h"

namespace ilmap {

struct PdbId {
  std::array<std::uint8_t, 20> bytes{};
  // GUID then a little-endian 32-bit tail: the #Pdb stream's stamp (Portable), or the DBI age
  // that a cache records in its place for a Windows PDB (SPEC.md 3.2).
  static PdbId of(const Guid& guid, std::uint32_t tail) {
    PdbId id;
    std::copy(guid.begin(), guid.end(), id.bytes.begin());
    for (int i = 0; i < 4; ++i) id.bytes[16 + i] = static_cast<std::uint8_t>(tail >> (8 * i));
    return id;
  }
  Guid guid() const {
    Guid g{};
    std::copy(bytes.begin(), bytes.begin() + 16, g.begin());
    return g;
  }
  std::uint32_t stamp() const {
    return std::uint32_t(bytes[16]) | std::uint32_t(bytes[17]) << 8 |
           std::uint32_t(bytes[18]) << 16 | std::uint32_t(bytes[19]) << 24;
  }
};

struct Document {
  std::string name;
  Guid language{};
  Guid hash_algorithm{};
  std::span<const std::uint8_t> hash;  // borrowed from the PDB bytes
};

struct CdiRow {
  std::uint32_t parent_tag = 0;  // HasCustomDebugInformation tag (kHcdi*)
  std::uint32_t parent_rid = 0;
  Guid kind{};
  std::uint32_t value_blob = 0;  // #Blob offset
};

struct StateMachineMethod {
  std::uint32_t move_next = 0;  // MethodDef rid
  std::uint32_t kickoff = 0;
};

class PortablePdb {
 public:
  // `bytes` is a whole Portable PDB (starts with BSJB); they must outlive the object.
  static Result<PortablePdb> parse(std::span<const std::uint8_t> bytes, std::size_t base = 0);

  const Metadata& metadata() const { return md_; }
  std::span<const std::uint8_t> bytes() const { return bytes_; }
  bool has_pdb_stream() const { return md_.has_pdb_stream(); }
  PdbId id() const;
  std::uint32_t entry_point() const { return md_.pdb_header().entry_point; }

  std::uint32_t document_count() const { return md_.rows(kDocument); }
  std::uint32_t method_count() const { return md_.rows(kMethodDebugInformation); }

  Result<Document> document(std::uint32_t rid) const;
  Result<std::string> document_name(std::uint32_t rid) const;
  // All documents in table order (index = rid - 1).
  Result<std::vector<Document>> documents() const;

  // Document names are joined from #Blob parts that may repeat, so a few KiB of name blobs can
  // describe gigabytes of names. The joined names of one PDB (each name, and all of them
  // together in documents()) are limited to name_budget() bytes; beyond it: Errc::kTooLarge.
  static constexpr std::size_t kMinNameBudget = 64u << 20;
  static constexpr std::size_t kNameBudgetPerInputByte = 16;
  std::size_t name_budget() const {
    return std::max(kMinNameBudget, kNameBudgetPerInputByte * bytes_.size());
  }

  // Appends the points of MethodDebugInformation row `rid` in blob order. On a malformed
  // blob, `out` keeps what decoded before the error and the error names row and offset.
  Status sequence_points(std::uint32_t rid, std::vector<SequencePoint>& out) const;
  // The same points handed to `sink(const SequencePoint&)` one by one (no vector); the blob
  // read goes to *read when given.
  template <class Sink>
  Status for_each_sequence_point(std::uint32_t rid, Sink&& sink, std::span<const std::uint8_t>* read = nullptr) const {
    std::uint32_t document = 0, blob_offset = 0;
    std::span<const std::uint8_t> blob;
    if (Status s = method_blob(rid, document, blob_offset, blob); !s) return s;
    if (read) *read = blob;
    SpDecodeError err;
    if (!decode_sequence_points_to(blob, document, document_count(), sink, err))
      return blob_error(rid, blob_offset, err);
    return {};
  }

  Result<std::vector<CdiRow>> custom_debug_information() const;
  // The value blob offset of the first CustomDebugInformation row with this parent and kind,
  // found by binary search (the table is sorted by Parent), or nullopt. O(log rows).
  std::optional<std::uint32_t> find_cdi(std::uint32_t parent_tag, std::uint32_t parent_rid,
                                        const Guid& kind) const;
  Result<std::vector<StateMachineMethod>> state_machine_methods() const;

  // The SourceLink JSON of the module (UTF-8 BOM stripped), or nullopt when there is none.
  Result<std::optional<std::string>> source_link() const;
  // Embedded source of document `rid`, decompressed, or nullopt. Decompressed size is capped by
  // `max_size` (bytes); larger declared sizes are an Errc::kTooLarge error.
  Result<std::optional<std::vector<std::uint8_t>>> embedded_source(
      std::uint32_t rid, std::size_t max_size = kDefaultMaxEmbeddedSource) const;
  // Decodes one EmbeddedSource CDI blob.
  static Result<std::vector<std::uint8_t>> decode_embedded_source(
      std::span<const std::uint8_t> blob, std::size_t max_size, const std::string& where);

  static constexpr std::size_t kDefaultMaxEmbeddedSource = 256u << 20;

 private:
  Status method_blob(std::uint32_t rid, std::uint32_t& document, std::uint32_t& blob_offset,
                     std::span<const std::uint8_t>& blob) const;
  static Status blob_error(std::uint32_t rid, std::uint32_t blob_offset, const SpDecodeError& err);
  Result<std::string> document_name(std::uint32_t rid, std::size_t budget) const;
  Result<Document> document(std::uint32_t rid, std::size_t budget) const;

  std::span<const std::uint8_t> bytes_;
  Metadata md_;
};

}  // namespace ilmap
