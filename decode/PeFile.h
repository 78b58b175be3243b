// PeFile.h - a PE32/PE32+ image as ilmap needs it: identity, debug directory, CLI metadata.
//
// Layout: the PE/COFF specification as read by System.Reflection.Metadata (PEHeaders, PEReader,
// DebugDirectoryEntry, CorHeader) and dotnet/runtime docs/design/specs/PE-COFF.md for the
// debug-directory entries (shared/reference/portable-pdb-notes.md section 2). Three layers: the
// on-disk structs below, PeFile::parse over a ByteCursor, and PeInfo, a plain summary.
// PeFile borrows the bytes it was parsed from.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "decode/Guids.h"
#include "decode/Metadata.h"
#include "decode/PdbChecksum.h"
#include "ilmap/status.h"

namespace ilmap {

// ---- on-disk structures (little endian) -----------------------------------------------------
namespace pe {

struct CoffFileHeader {  // follows "PE\0\0"
  std::uint16_t machine;
  std::uint16_t number_of_sections;
  std::uint32_t time_date_stamp;
  std::uint32_t pointer_to_symbol_table;
  std::uint32_t number_of_symbols;
  std::uint16_t size_of_optional_header;
  std::uint16_t characteristics;
};
static_assert(sizeof(CoffFileHeader) == 20);

struct DataDirectory {
  std::uint32_t rva;
  std::uint32_t size;
};
static_assert(sizeof(DataDirectory) == 8);

struct SectionHeader {
  char name[8];
  std::uint32_t virtual_size;
  std::uint32_t virtual_address;
  std::uint32_t size_of_raw_data;
  std::uint32_t pointer_to_raw_data;
  std::uint32_t pointer_to_relocations;
  std::uint32_t pointer_to_linenumbers;
  std::uint16_t number_of_relocations;
  std::uint16_t number_of_linenumbers;
  std::uint32_t characteristics;
};
static_assert(sizeof(SectionHeader) == 40);

struct DebugDirectoryEntry {
  std::uint32_t characteristics;
  std::uint32_t time_date_stamp;
  std::uint16_t major_version;
  std::uint16_t minor_version;
  std::uint32_t type;
  std::uint32_t size_of_data;
  std::uint32_t address_of_raw_data;
  std::uint32_t pointer_to_raw_data;
};
static_assert(sizeof(DebugDirectoryEntry) == 28);

struct CliHeader {  // ECMA-335 II.25.3.3 (CorHeader)
  std::uint32_t cb;
  std::uint16_t major_runtime_version;
  std::uint16_t minor_runtime_version;
  DataDirectory metadata;
  std::uint32_t flags;
  std::uint32_t entry_point_token;
  DataDirectory resources;
  DataDirectory strong_name_signature;
  DataDirectory code_manager_table;
  DataDirectory vtable_fixups;
  DataDirectory export_address_table_jumps;
  DataDirectory managed_native_header;
};
static_assert(sizeof(CliHeader) == 72);

inline constexpr std::uint16_t kPe32Magic = 0x10B;
inline constexpr std::uint16_t kPe32PlusMagic = 0x20B;
inline constexpr unsigned kDirDebug = 6;
inline constexpr unsigned kDirCli = 14;
inline constexpr std::uint32_t kDebugCodeView = 2;
inline constexpr std::uint32_t kDebugReproducible = 16;
inline constexpr std::uint32_t kDebugEmbeddedPortablePdb = 17;
inline constexpr std::uint32_t kDebugPdbChecksum = 19;
inline constexpr std::uint16_t kPortableCodeViewMinor = 0x504D;  // "PM"
inline constexpr std::uint16_t kEmbeddedPdbMinor = 0x0100;

}  // namespace pe

// ---- decoded model ---------------------------------------------------------------------------
struct CodeViewEntry {
  unsigned index = 0;          // position in the debug directory
  std::uint32_t stamp = 0;     // the entry's TimeDateStamp (PDB id bytes 16..19 when portable)
  std::uint16_t major = 0, minor = 0;
  Guid guid{};
  std::uint32_t age = 0;
  std::string path;            // UTF-8, verbatim
  bool portable() const { return minor == pe::kPortableCodeViewMinor; }
};

struct EmbeddedPdbEntry {
  unsigned index = 0;
  std::size_t data_offset = 0;          // file offset of the deflate data (after MPDB + size)
  std::uint32_t compressed_size = 0;    // deflate bytes
  std::uint32_t uncompressed_size = 0;  // declared
};

// Plain summary of a PE's identity (no views; copyable). The checksum verdict fields are filled
// by open_debug_input once it knows which PDB the PE was matched with.
struct PeInfo {
  std::uint16_t machine = 0;
  bool pe32_plus = false;
  std::uint32_t timestamp = 0;  // COFF TimeDateStamp
  std::uint32_t size_of_image = 0;
  std::vector<CodeViewEntry> codeview;
  bool reproducible = false;
  std::optional<EmbeddedPdbEntry> embedded_pdb;
  // Why the embedded PDB entry was skipped (PeOptions::embedded_pdb_errors_fatal false only).
  std::string embedded_pdb_error;
  std::vector<PdbChecksum> checksums;
  std::vector<ChecksumVerdict> checksum_each;  // one per checksum once verified
  ChecksumVerdict checksum_verdict = ChecksumVerdict::kAbsent;
  bool managed = false;  // has a CLI header
  Guid mvid{};
  std::uint32_t cli_entry_point = 0;
  std::uint32_t methoddef_rows = 0;
  bool debug_tables_in_metadata = false;  // tables 0x30-0x37 in the PE's own metadata
};

struct PeOptions {
  // Absolute cap on an embedded PDB's declared uncompressed size (bytes).
  std::uint32_t max_embedded_pdb = 512u << 20;
  // False: an unusable EmbeddedPortablePdb entry (over the cap, impossible size, bad version or
  // magic) does not fail the parse; it is left out and PeInfo::embedded_pdb_error says why.
  bool embedded_pdb_errors_fatal = true;
};

class PeFile {
 public:
  // `bytes` is the whole file; they must outlive the PeFile. Errors name the structure and the
  // file offset; codes: kBadMagic (MZ, PE\0\0, optional-header magic), kTruncated, kMalformed,
  // kBadVersion (embedded PDB version), kTooLarge (embedded PDB over the cap).
  static Result<PeFile> parse(std::span<const std::uint8_t> bytes, const PeOptions& options = {});

  const PeInfo& info() const { return info_; }
  std::span<const std::uint8_t> bytes() const { return bytes_; }
  const std::vector<pe::SectionHeader>& sections() const { return sections_; }
  const std::vector<pe::DebugDirectoryEntry>& debug_entries() const { return debug_; }
  // Directory `index`, or nullopt beyond NumberOfRvaAndSizes.
  std::optional<pe::DataDirectory> directory(unsigned index) const;
  // File offset of [rva, rva+size) when it lies in the file-backed part of one section.
  std::optional<std::size_t> rva_to_offset(std::uint32_t rva, std::uint32_t size) const;
  // The file-backed bytes of the section holding `rva`, from `rva` to the section's end (for
  // data whose size is only known once read: a method body). Empty when no section backs it.
  std::span<const std::uint8_t> rva_bytes(std::uint32_t rva) const;
  // The PE's own metadata (present when the PE is managed).
  const std::optional<Metadata>& metadata() const { return metadata_; }

  // Inflates the embedded Portable PDB: raw deflate that must produce exactly the declared
  // size and consume all its input (kMalformed otherwise); kNotFound when there is none.
  Result<std::vector<std::uint8_t>> inflate_embedded_pdb() const;

 private:
  Status parse_headers(ByteCursor& c);
  Status parse_debug_directory();
  Status parse_debug_entry(unsigned index, const pe::DebugDirectoryEntry& e, std::size_t at);
  Status parse_cli();

  std::span<const std::uint8_t> bytes_;
  PeOptions options_;
  PeInfo info_;
  std::vector<pe::DataDirectory> directories_;
  std::vector<pe::SectionHeader> sections_;
  std::vector<pe::DebugDirectoryEntry> debug_;
  std::optional<Metadata> metadata_;
};

}  // namespace ilmap
