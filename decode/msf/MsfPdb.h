// MsfPdb.h - facade over a Windows (MSF 7.00) PDB: identity, documents and the sequence points
// of every managed method, in the model the cache builder takes (ilmap::SequencePoint).
//
// How managed line info becomes sequence points (the rules of Microsoft.Cci.Pdb, the managed
// reader inside Mono.Cecil.Pdb, which the reference listings come from; see PdbFile.cs
// LoadManagedLines):
//  1. Per module, the managed procedures (S_GMANPROC/S_LMANPROC) are ordered by (segment, offset,
//     token). A DEBUG_S_LINES subsection at segment:offset belongs to the first procedure at
//     exactly that address that has no lines yet; failing that, to the procedure whose
//     [offset, offset + length) contains it (Cci would drop such a subsection; DIA reads it, and
//     so does ilmap: its lines are appended). A subsection no managed procedure claims (native
//     code of a C++/CLI mixed PDB) is skipped.
//  2. Each line record of each file block, in stream order, becomes one point: IL offset =
//     (subsection offset - procedure offset) + record offset; start line = bits 0-23, end line =
//     start + bits 24-30; columns from the column records when CV_LINES_HAVE_COLUMNS, else 0.
//     Line 0xFEEFEE is a hidden point (kept with its raw values, like Cci).
//  3. A file block's file id names a DEBUG_S_FILECHKSMS entry of the same module, whose name is
//     a /names offset; documents are identified by name and numbered in order of first use.
//     The language, vendor, document type and hash algorithm come from the /src/files/<name>
//     named stream when present; the hash bytes from the checksum entry, or from that stream when
//     the entry has none (the managed writer leaves it empty).
//  4. When the DBI's optional debug header names a token -> rid map stream, every token becomes
//     0x06000000 | map[token & 0xFFFFFF] (Cci does the same).
// Methods are reported in token order, one per token (points of repeated tokens concatenated in
// PDB order). MsfPdb borrows the bytes it was parsed from.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "decode/msf/DbiStream.h"
#include "decode/Guids.h"
#include "decode/msf/MsfFile.h"
#include "decode/msf/PdbInfoStream.h"
#include "decode/SequencePoints.h"
#include "ilmap/status.h"

namespace ilmap::msf {

struct MsfDocument {
  std::string name;                // verbatim from /names
  Guid language{};                 // zero when the PDB does not say
  Guid vendor{};
  Guid document_type{};
  Guid hash_algorithm{};           // /src/files/<name>, else derived from checksum_kind
  std::uint8_t checksum_kind = 0;  // DEBUG_S_FILECHKSMS kind (kChecksum*)
  std::vector<std::uint8_t> hash;  // DEBUG_S_FILECHKSMS bytes, else /src/files/<name>'s
};

struct MsfMethod {
  std::uint32_t token = 0;
  std::uint32_t offset = 0;   // of the (first) procedure with this token
  std::uint32_t length = 0;
  std::uint16_t segment = 0;
  std::uint32_t module = 0;   // index into dbi().modules()
  std::vector<SequencePoint> points;  // PDB order; document = 1-based index into documents()
};

class MsfPdb {
 public:
  // `bytes` is a whole MSF PDB; they must outlive the object. Errors name the structure and the
  // stream and file offset (codes as MsfFile::parse, plus kBadVersion for old PDB/DBI/symbol
  // formats and kMalformed for bad references between structures).
  static Result<MsfPdb> parse(std::span<const std::uint8_t> bytes);

  const MsfFile& msf() const { return msf_; }
  const PdbInfoStream& info() const { return info_; }
  const DbiStream& dbi() const { return dbi_; }
  const Guid& guid() const { return info_.guid(); }
  // The age a PE's CodeView record must carry: the DBI stream's (DIA matches with it).
  std::uint32_t age() const { return dbi_.age(); }

  const std::vector<MsfDocument>& documents() const { return documents_; }
  const std::vector<MsfMethod>& methods() const { return methods_; }
  std::size_t point_count() const { return point_count_; }

  // Raw bytes of the named streams "srcsrv" and "sourcelink" (nullopt when absent).
  const std::optional<std::vector<std::uint8_t>>& source_server() const { return srcsrv_; }
  const std::optional<std::vector<std::uint8_t>>& source_link() const { return sourcelink_; }

 private:
  MsfFile msf_;
  PdbInfoStream info_;
  DbiStream dbi_;
  std::vector<MsfDocument> documents_;
  std::vector<MsfMethod> methods_;
  std::size_t point_count_ = 0;
  std::optional<std::vector<std::uint8_t>> srcsrv_, sourcelink_;

  friend class MsfPdbBuilder;
};

// The canonical listing (docs/text-output.md, "Canonical listing") of every method's points.
std::string msf_listing(const MsfPdb& pdb);

}  // namespace ilmap::msf
