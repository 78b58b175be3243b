// DebugInput.h - opens an INPUT of the CLI (a .pdb, or a .dll/.exe naming or embedding one)
// and yields its Portable PDB, plus the PE's identity when the input was a PE.
//
// PE matching (docs/usage.md "Finding the PDB of a PE"): with DebugInputOptions::pdb, only that
// file; otherwise, in order, the embedded Portable PDB, then for each Portable CodeView entry the
// CodeView path as written (when absolute and present on this machine) and the CodeView file name
// ('/' and '\' both separate) beside the PE, then <PE name>.pdb beside the PE. A file is accepted
// only if its PDB id equals (CodeView GUID, entry stamp) of a Portable CodeView entry. When nothing
// matches, the error lists every file tried and why it was rejected. PdbChecksum entries are then
// verified against the PDB that was used.
//
// With DebugInputOptions::windows_pdbs, Windows (MSF 7.00) PDBs open too (`msf` instead of
// `pdb`): a .pdb input with the MSF signature, and for a PE's non-portable (Windows) CodeView
// entries the same candidate files in the same order, accepted when the PDB info stream's GUID
// and the DBI stream's age equal the entry's GUID and age (the age DIA matches with). There, a
// candidate Foo.pdb that is absent or does not match is followed by Foo.pdz beside it when that
// exists (the same PDB in an MSFZ container; an absent .pdz is not listed among those tried).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/FileBytes.h"
#include "decode/PeFile.h"
#include "decode/PortablePdb.h"
#include "ilmap/status.h"
#include "decode/msf/MsfPdb.h"

namespace ilmap {

enum class InputKind { kPortablePdb, kPe, kCache, kUnknown };

// Sniffs the first bytes of a file: BSJB -> PDB, MZ -> PE, the cache identifier -> cache.
InputKind sniff_input(std::span<const std::uint8_t> head);
// True when the bytes start with a Windows PDB signature: MSF 7.00, or MSFZ (a .pdz).
bool is_windows_pdb(std::span<const std::uint8_t> head);

enum class PdbSource { kStandalone, kSibling, kEmbedded, kNone };
const char* pdb_source_name(PdbSource s) noexcept;  // "standalone", "sibling", "embedded", "none"

struct DebugInputOptions {
  PeOptions pe;  // caps (embedded PDB size)
  // With true, a PE without matching debug information still opens: `pdb` is empty and
  // `pdb_status` says why (kNotFound / kMismatch / the sibling's error). `ilmap info` uses it.
  bool allow_missing_pdb = false;
  // For a PE input: the PDB to use instead of searching (still accepted only when its id
  // matches a Portable CodeView entry). Ignored for a .pdb input.
  std::string pdb;
  // Open Windows (MSF) PDBs (DebugInput::msf); without it they are refused as before.
  bool windows_pdbs = false;
};

// Why a PE has no usable PDB, for callers that skip such files (compile's directory mode).
enum class MissingPdb {
  kNone,          // a PDB was found (or the input is a PDB)
  kNoDebugInfo,   // no Portable CodeView entry and no embedded PDB (native or framework build)
  kNotPresent,    // the PE names a Portable PDB, but no candidate file exists or is Portable
  kMismatch,      // a candidate exists with another PDB id
  kBad,           // a candidate is a corrupt Portable PDB
};

struct DebugInput {
  std::string path;                  // the INPUT as given
  FileBytes file;                    // its bytes
  FileBytes sibling;                 // the sibling .pdb when the PE names one that matches
  std::vector<std::uint8_t> inflated;  // an embedded PDB, decompressed
  PdbSource source = PdbSource::kStandalone;
  std::string pdb_path;              // path of the PDB actually read ("" for embedded)
  std::optional<PortablePdb> pdb;    // views into file/sibling/inflated
  std::optional<msf::MsfPdb> msf;    // instead of pdb: a Windows PDB (options.windows_pdbs)
  bool has_pdb() const { return pdb || msf; }

  // PE inputs only.
  std::optional<PeInfo> pe;          // identity; checksum verdicts filled in for `pdb`
  const CodeViewEntry* matched_codeview() const;  // the entry the sibling matched, else first portable
  int matched_codeview_index = -1;   // index into pe->codeview of the sibling match, or -1
  bool embedded_id_matches_codeview = false;  // embedded PDB id == first portable CodeView id
  Status pdb_status;                 // why `pdb` is empty (allow_missing_pdb only)
  MissingPdb missing = MissingPdb::kNone;  // the class of pdb_status
  // Errc::kChecksum when PdbChecksum entries exist and none matches the PDB used; ok otherwise.
  // Not an open failure: dump warns, info reports, callers that need integrity check it.
  Status checksum_status;
  // The SHA-256 of `pdb` with its id zeroed, when checking a SHA256 PdbChecksum entry computed
  // it (empty otherwise): cache_source_for passes it on, so a compile hashes the PDB once.
  std::vector<std::uint8_t> pdb_sha256;
  std::vector<std::string> notes;    // e.g. "sibling X has PDB id ... (CodeView wants ...)"
};

// Opens a .pdb or a PE. The result is heap-allocated so that the views inside stay valid when
// it moves. PE errors: kNotFound "no matching debug information" (exit 3), kMismatch when a
// candidate existed but had another id and nothing else matched, a corrupt candidate's own
// error, or the PE's own parse error. A cache input is kUnsupported (exit 2), a Windows PDB too.
Result<std::unique_ptr<DebugInput>> open_debug_input(const std::string& path);
Result<std::unique_ptr<DebugInput>> open_debug_input(const std::string& path,
                                                     const DebugInputOptions& options);

}  // namespace ilmap
