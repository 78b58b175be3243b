// LineIndexWriter.h - the reverse line index of a cache (SPEC.md section 3.7): per
// document, every visible sequence point ordered by (start line, start column, method row,
// visible ordinal), delta-coded in small blocks with a block index of first lines, so that
// `ilmap lines` finds the points of a source line in O(log n).
//
// The builder decodes the visible points of a range of documents back from the encoded point
// blocks (LineIndexFromBlocks.h), LineIndexBuilder sorts and encodes them range by range, and
// write_line_index puts the table into the FlatBuffer. The index names points by (method row,
// visible ordinal in the row's block), not by IL offset or document strings, so it depends on
// no other section's encoding.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <span>
#include <vector>

#include "compiler/ScratchBuffers.h"
#include "ilmap_generated.h"

namespace ilmap {

// One visible point as the index needs it: its document (0-based), start line and column, the
// method row (1-based) and its ordinal among the row's visible records (0-based, IL order).
struct LinePoint {
  std::uint32_t document, line, column, row, ordinal;
};

// Visible points of a range of documents (20 bytes each, so their storage comes from the
// scratch pool).
using LinePoints = ScratchVector<LinePoint>;

// The index: its blocks' data sits in `content` after room left for the two tables in front of
// it, so that the content of LineIndex.index_zstd (line_index_content) is packed where it lies,
// without a copy of the data; pack_line_index then keeps the frame alone.
struct LineIndexSection {
  std::vector<std::uint32_t> doc_blocks;  // len(documents) + 1
  std::vector<fb::LineBlockRef> blocks;
  ByteBuffer content;       // [room for the tables | data]
  std::size_t data_at = 0;  // where data begins in content
  ByteBuffer frame;  // index_zstd, once packed (pack_line_index; a frame is never empty)
  bool pack_tried = false;
  std::uint64_t entries = 0;
  std::span<const std::uint8_t> data() const {
    return {content.data() + data_at, content.size() - data_at};
  }
  bool packed() const { return frame.size() != 0; }
  std::span<const std::uint8_t> frame_bytes() const { return {frame.data(), frame.size()}; }
  std::size_t bytes() const {
    return packed() ? frame.size() + 64 : doc_blocks.size() * 4 + blocks.size() * sizeof(fb::LineBlockRef) + data().size() + 64;
  }
};

// Builds the index a range of documents at a time, so that a build holds the points of one
// range, not of the whole PDB (docs/architecture.md, "Memory"): add() the points of each
// range in document order, then finish(). The bytes do not depend on how the documents are cut
// into ranges.
class LineIndexBuilder {
 public:
  // `documents` = len(Cache.documents); `points`: how many points add() will be given at most
  // in all (it sizes the room for the tables in front of the data; more only costs a copy).
  LineIndexBuilder(std::uint32_t documents, std::uint64_t points);
  // Indexes documents [next(), d1) from `points`, which must hold every visible point of those
  // documents (fastest in (row, ordinal) order); points of other documents are left out.
  void add(std::span<const LinePoint> points, std::uint32_t d1);
  // Indexes one document in parts, for a document whose points are too many for one range:
  // the first call starts document next(); each call gives the visible points of that document
  // whose lines lie in one band, the bands in ascending order of lines, and every point in
  // exactly one band; `total` is the document's visible points over all its parts. The
  // document is done once its parts have given `total` points. The bytes are add()'s.
  void add_part(std::span<const LinePoint> points, std::uint64_t total);
  // The first document not indexed yet.
  std::uint32_t next() const { return static_cast<std::uint32_t>(s_.doc_blocks.size()); }
  // The section; documents not added yet get no entries.
  LineIndexSection finish();

 private:
  // Appends the entry of `q`, the next point of the current document in index order, at `out`
  // (`base`: where the buffer at `begin` lies in the data); returns the end.
  std::uint8_t* put_entry(const LinePoint& q, std::uint8_t* out, const std::uint8_t* begin, std::size_t base);
  // Starts the next document, of `total` points.
  void start_document(std::uint64_t total);

  std::uint32_t documents_;
  LineIndexSection s_;
  // The document being written: its points, those written, the entries its current block
  // still takes, the point written last, and whether add_part() has one in progress.
  std::uint64_t doc_total_ = 0, doc_done_ = 0;
  unsigned block_left_ = 0;
  LinePoint prev_{};
  bool in_parts_ = false;
};

// Sorts `points` and encodes them, all documents at once. `documents` = len(Cache.documents);
// points of a document at or past it are left out.
LineIndexSection build_line_index(std::span<const LinePoint> points, std::uint32_t documents);

// Packs the index (SPEC.md 3.7, 3.8) into `frame` when that is smaller, and then frees the
// rest: from there the section holds its frame alone. Once per section (write_line_index calls
// it too; a build calls it as soon as the index is built).
void pack_line_index(LineIndexSection& index);

// The content of LineIndex.index_zstd (SPEC.md 3.7): doc_blocks, the blocks' first lines as
// differences within each document, data.
std::size_t line_index_content_size(const LineIndexSection& index);
void line_index_content(const LineIndexSection& index, std::uint8_t* out);

// Writes the LineIndex table: `index_zstd` when packing makes it smaller, else the three vectors.
flatbuffers::Offset<fb::LineIndex> write_line_index(flatbuffers::FlatBufferBuilder& fbb, LineIndexSection& index);

}  // namespace ilmap
