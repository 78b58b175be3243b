// ModuleStream.h - one module's symbol stream: managed procedures and C13 line information.
//
// Layout (LLVM docs/PDB/ModiStream.rst): a 4-byte signature (4 = C13), symbol records up to
// SymByteSize, C11 lines (not read), C13 debug subsections (CodeViewSymbols.rst; cvinfo.h
// DEBUG_S_SUBSECTION_TYPE), global refs (not read). Kept from the symbols: S_GMANPROC/S_LMANPROC
// (token, segment:offset, IL length); every other record (native S_GPROC32 of C++/CLI mixed
// PDBs, scopes, slots, constants, OEM records) is stepped over by its length. Kept from the
// subsections: DEBUG_S_FILECHKSMS (one per module) and DEBUG_S_LINES; the others are skipped.
// Nothing is matched here: ModuleStream is the raw view, MsfPdb turns it into the model.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::msf {

class MsfFile;
struct DbiModule;

struct ManagedProc {
  std::uint32_t token = 0;
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
  std::uint16_t segment = 0;
  std::size_t record_offset = 0;  // in the module stream
};

struct FileChecksum {
  std::uint32_t file_id = 0;      // offset of the entry in the subsection (what lines refer to)
  std::uint32_t name_offset = 0;  // into /names
  std::uint8_t kind = 0;          // kChecksum*
  std::vector<std::uint8_t> bytes;
};

struct LineRecord {
  std::uint32_t offset = 0;  // relative to the subsection's offset
  std::uint32_t start_line = 0;
  std::uint32_t end_line = 0;
  std::uint16_t start_column = 0;
  std::uint16_t end_column = 0;
};

struct LineFileBlock {
  std::uint32_t file_id = 0;
  std::uint32_t first = 0;  // index into ModuleLines::lines
  std::uint32_t count = 0;
};

// One DEBUG_S_LINES subsection: the code range it covers and its per-document blocks.
struct LinesSubsection {
  std::uint32_t offset = 0;
  std::uint16_t segment = 0;
  std::uint16_t flags = 0;
  std::uint32_t code_size = 0;
  std::size_t stream_offset = 0;  // of the subsection's data, for messages
  std::vector<LineFileBlock> blocks;
};

struct ModuleLines {
  std::vector<ManagedProc> procs;       // in record order
  std::vector<FileChecksum> checksums;  // in subsection order
  std::vector<LinesSubsection> lines;   // in stream order
  std::vector<LineRecord> records;      // the lines of every block, in stream order
  bool saw_checksums = false;           // a DEBUG_S_FILECHKSMS subsection was read
  // The checksum entry with this file id, or nullptr.
  const FileChecksum* checksum(std::uint32_t file_id) const;
};

// Parses module `m`'s symbol stream (stream index m.symbol_stream of `msf`). Errors name the
// module, the structure and the stream/file offset.
Result<ModuleLines> parse_module_stream(const MsfFile& msf, const DbiModule& m, std::size_t index);

}  // namespace ilmap::msf
