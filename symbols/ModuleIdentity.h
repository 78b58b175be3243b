// ModuleIdentity.h - what a module is, as a symbol store knows it: its kind, its file name and
// its SSQP key (dotnet/symstore docs/specs/SSQP_Key_Conventions.md), plus what a client needs
// to check a download against it (the full Portable PDB id, the PE's PdbChecksum entries).
// Every source of modules (a local store, an HTTP server, a plain directory) is asked by one of
// these; `identify_file` derives one from a file's bytes, `pdbs_wanted_by` from a PE.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "decode/PeFile.h"
#include "ilmap/status.h"

namespace ilmap::symbols {

// kMsym: a Mono AOT sequence-point file (docs/msym.md), asked for by msym_identity only: no
// cache and no PDB id; a file under its key must decode as an .msym.
enum class ModuleKind { kPe, kPortablePdb, kWindowsPdb, kMsym };

struct ModuleIdentity {
  ModuleKind kind = ModuleKind::kPe;
  std::string file_name;  // lower-cased, no directories ("foo.pdb")
  std::string key;        // "foo.pdb/<id>/foo.pdb"
  // Portable PDBs: the 20-byte id (GUID + stamp) when known; the key carries only the GUID.
  std::optional<std::array<std::uint8_t, 20>> pdb_id;
  // The value of the SymbolChecksum request header ("SHA256:<hex>[;...]"), from the PE's
  // PdbChecksum entries; "" when the PE records none.
  std::string symbol_checksum;
  std::vector<PdbChecksum> checksums;
};

// The identity of a file from its bytes: a PE (MZ), a Portable PDB (BSJB) or a Windows PDB
// (MSF 7.00, or MSFZ: keyed with ssqp_msfz_pdb_key, its file name a .pdb's). `path` gives the file name (its last '/' or '\' component). Errors: kBadMagic
// for anything else, or the parser's error.
Result<ModuleIdentity> identify_file(std::string_view path, std::span<const std::uint8_t> bytes);

// The `.msym` of the assembly whose PE is named `pe_file_name` (a file name, any case), from the
// AOT compilation `aot_id` (32 hex digits): keyed by ssqp_msym_key ("foo.dll.msym/<aotid>/foo.dll.msym").
ModuleIdentity msym_identity(std::string_view pe_file_name, std::string_view aot_id);

// The 20-byte id of a PDB from its bytes, reading only what holds it: a Portable PDB's #Pdb
// stream (GUID + stamp), a Windows PDB's info stream GUID and DBI age (as a cache records it).
struct PdbFileId {
  std::array<std::uint8_t, 20> id{};
  bool windows = false;
};
Result<PdbFileId> read_pdb_id(std::span<const std::uint8_t> bytes);

// The PDBs a PE names in its CodeView entries, in directory order: a Portable entry gives a
// Portable PDB identity (GUID + entry stamp, and the PE's checksums), any other a Windows PDB
// identity (GUID + age).
std::vector<ModuleIdentity> pdbs_wanted_by(const PeInfo& pe);

// A key is three non-empty '/'-separated components, none "." or "..", with no '\', NUL or
// other control character, at most 1024 bytes; or four such, the third a PDB container kind
// ("msfz" and digits: a .pdz's key, SymstoreKeys.h). kUsage otherwise (naming the key).
Status validate_key(std::string_view key);
// True for a key component that names a PDB container ("msfz" and 1 to 4 digits, any case).
bool is_container_kind(std::string_view part);

// "foo.pdb/<id>/foo.ilmap": where the ilmap cache of the PDB under `pdb_key` lives (the same
// key directory; the file name is the PDB's without its extension, plus ".ilmap").
std::string cache_key_for(std::string_view pdb_key);

// Case-insensitive (ASCII) equality: SSQP keys compare without case.
bool key_equal(std::string_view a, std::string_view b) noexcept;

}  // namespace ilmap::symbols
