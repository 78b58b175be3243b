// DebugInput.h - opens an INPUT of the CLI (a .pdb, or a .dll/.exe naming or embedding one)
// and yields its Portable PDB, plus the PE's identity when the input was a PE.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "FileBytes.h"
#include "PortablePdb.h"
#include "ilmap/status.h"

namespace ilmap {

enum class InputKind { kPortablePdb, kPe, kCache, kUnknown };

// Sniffs the first bytes of a file: BSJB -> PDB, MZ -> PE, the cache identifier -> cache.
InputKind sniff_input(std::span<const std::uint8_t> head);

enum class PdbSource { kStandalone, kSibling, kEmbedded };

struct DebugInput {
  std::string path;                  // the INPUT as given
  FileBytes file;                    // its bytes
  FileBytes sibling;                 // the sibling .pdb when the PE names one that matches
  std::vector<std::uint8_t> inflated;  // an embedded PDB, decompressed
  PdbSource source = PdbSource::kStandalone;
  std::string pdb_path;              // path of the PDB actually read ("" for embedded)
  std::optional<PortablePdb> pdb;    // views into file/sibling/inflated
};

// Opens a .pdb (or a PE: see compiler/PeFile.h when available). The result is heap-allocated
// so that the views inside stay valid when it moves.
Result<std::unique_ptr<DebugInput>> open_debug_input(const std::string& path);

}  // namespace ilmap
