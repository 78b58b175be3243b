// Metadata.h - an ECMA-335 metadata root (II.24.2) with its streams, heaps and table layout.
//
// Used for standalone Portable PDBs and for a PE's own metadata. parse() checks every stream
// header, the table-stream header, and that every table's rows fit in the stream, so row
// access afterwards is in bounds for any rid in [1, rows]. Heap reads check their offsets.
// Facts: shared/reference/portable-pdb-notes.md sections 1.1-1.4.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "support/ByteCursor.h"
#include "decode/Guids.h"
#include "decode/MetadataSchema.h"
#include "ilmap/status.h"

namespace ilmap {

struct StreamRange {
  std::size_t offset = 0;  // absolute offset in the file
  std::span<const std::uint8_t> data;
  bool present = false;
};

struct TableLayout {
  std::uint32_t rows = 0;
  std::uint32_t row_size = 0;
  std::size_t offset = 0;  // offset of the first row within the table stream
  std::array<std::uint8_t, 9> col_offset{};
  std::array<std::uint8_t, 9> col_width{};
};

struct PdbStreamHeader {
  std::array<std::uint8_t, 20> id{};
  std::uint32_t entry_point = 0;
  std::uint64_t referenced_tables = 0;
  std::array<std::uint32_t, 64> external_rows{};
};

class Metadata {
 public:
  // `bytes` starts at the BSJB signature; `base` is its absolute offset in the file (messages).
  // The bytes must outlive the Metadata.
  static Result<Metadata> parse(std::span<const std::uint8_t> bytes, std::size_t base = 0);

  std::string_view version() const { return version_; }
  bool has_pdb_stream() const { return pdb_.present; }
  const PdbStreamHeader& pdb_header() const { return pdb_header_; }
  std::size_t pdb_stream_offset() const { return pdb_.offset; }  // absolute
  bool uncompressed_tables() const { return uncompressed_; }     // #- stream
  bool minimal_delta() const { return minimal_delta_; }          // #JTD present
  std::uint8_t heap_sizes() const { return heap_sizes_; }
  std::uint64_t valid_tables() const { return valid_; }
  std::uint64_t sorted_tables() const { return sorted_; }
  const StreamRange& table_stream() const { return tables_; }
  std::size_t stream_size(std::string_view name) const;

  std::uint32_t rows(unsigned table) const { return table < kTableSlots ? layout_[table].rows : 0; }
  const TableLayout& layout(unsigned table) const { return layout_[table]; }

  // Column value of row `rid` (1-based). Precondition: 1 <= rid <= rows(table), col valid.
  std::uint32_t column(unsigned table, std::uint32_t rid, unsigned col) const {
    const TableLayout& t = layout_[table];
    const std::uint8_t* p =
        tables_.data.data() + t.offset + std::size_t(rid - 1) * t.row_size + t.col_offset[col];
    if (t.col_width[col] == 2) return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8;
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }

  // #Blob: the bytes of the blob at `offset` (0 = empty). Errors name the heap offset.
  Result<std::span<const std::uint8_t>> blob(std::uint32_t offset) const;
  // Absolute file offset of the blob heap (for messages).
  std::size_t blob_heap_offset() const { return blob_.offset; }
  // #Strings: the NUL-terminated UTF-8 string at `offset`.
  Result<std::string_view> string(std::uint32_t offset) const;
  // #GUID: 1-based index; 0 gives the nil GUID.
  Result<Guid> guid(std::uint32_t index) const;

 private:
  Status parse_streams(ByteCursor& c, std::uint16_t count);
  Status parse_pdb_stream();
  Status parse_table_stream();

  std::span<const std::uint8_t> bytes_;
  std::size_t base_ = 0;
  std::string_view version_;
  StreamRange pdb_, tables_, strings_, us_, guid_, blob_;
  bool uncompressed_ = false;
  bool minimal_delta_ = false;
  std::uint8_t heap_sizes_ = 0;
  std::uint64_t valid_ = 0;
  std::uint64_t sorted_ = 0;
  PdbStreamHeader pdb_header_;
  std::array<TableLayout, kTableSlots> layout_{};
};

}  // namespace ilmap
