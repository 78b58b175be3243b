// SymstoreKeys.h - the text identities of a PDB and a PE: symbol-store (SSQP) keys, Sentry-style
// debug and code ids, and the SymbolChecksum HTTP header.
//
// Formats from dotnet/symstore SSQP_Key_Conventions.md and its KeyGenerators (see
// shared/reference/portable-pdb-notes.md section 3): file names are lower-cased and taken after
// the last '/' or '\'; GUIDs use the "N" form; the Portable PDB key appends "FFFFFFFF"; the PE
// key is the COFF TimeDateStamp as 8 uppercase hex digits then SizeOfImage in minimal lowercase
// hex. The Sentry debug id is "<guid D>-<stamp x8>", the code id "<stamp X8><size x>".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "decode/Guids.h"
#include "decode/PdbChecksum.h"

namespace ilmap {

// Lowercase hex of bytes.
std::string hex_lower(std::span<const std::uint8_t> bytes);

// File name after the last '/' or '\', lower-cased (ASCII; symstore uses ToLowerInvariant).
std::string symstore_file_name(std::string_view path);

// "foo.pdb/<guid N>FFFFFFFF/foo.pdb" for a Portable PDB whose id GUID is `guid`.
std::string ssqp_portable_pdb_key(std::string_view pdb_path, const Guid& guid);
// "foo.pdb/<guid N><age x>/foo.pdb" for a Windows (MSF) PDB (symstore PDBFileKeyGenerator):
// the GUID of the PDB info stream and the DBI age, as the PE's CodeView entry records them.
std::string ssqp_windows_pdb_key(std::string_view pdb_path, const Guid& guid, std::uint32_t age);
// "foo.pdb/<guid N><age x>/msfz0/foo.pdb" for a PDB in an MSFZ container (a .pdz): the Windows
// PDB's key with the container kind inserted (dotnet/diagnostics' PDBFileKeyGenerator, which
// names MSFZ "msfz0"). A client asks with the PE's CodeView name, so a file named "foo.pdz" is
// keyed as "foo.pdb" (msfz_pdb_file_name).
inline constexpr const char* kMsfzKeyKind = "msfz0";
std::string ssqp_msfz_pdb_key(std::string_view pdb_path, const Guid& guid, std::uint32_t age);
// symstore_file_name with a ".pdz" extension turned into ".pdb".
std::string msfz_pdb_file_name(std::string_view pdb_path);
// "foo.dll.msym/<aot id, 32 lowercase hex>/foo.dll.msym" for a Mono AOT sequence-point file
// (docs/msym.md section 3, docs/store-layout.md): the folder `mono --aot=msym-dir` writes it in
// names the AOT id; the file is named after the assembly's file.
std::string ssqp_msym_key(std::string_view msym_path, std::string_view aot_id);
// "foo.dll/<STAMP X8><size x>/foo.dll".
std::string ssqp_pe_key(std::string_view pe_path, std::uint32_t timestamp,
                        std::uint32_t size_of_image);
// "<STAMP X8><size x>" (Sentry code_id; also the PE key's middle segment).
std::string pe_code_id(std::uint32_t timestamp, std::uint32_t size_of_image);
// "<guid D lowercase>-<stamp as 8 lowercase hex>" (Sentry debug_id of a portable PDB).
std::string portable_debug_id(const Guid& guid, std::uint32_t stamp);
// "<guid D lowercase>-<age as lowercase hex>" (Sentry debug_id of a Windows PDB).
std::string windows_debug_id(const Guid& guid, std::uint32_t age);
// An HTTP token (RFC 9110 tchar: letters, digits, !#$%&'*+-.^_`|~), 1 to kMaxHeaderToken bytes:
// what text read from a file must be before it goes into a request header.
inline constexpr std::size_t kMaxHeaderToken = 64;
bool is_header_token(std::string_view s) noexcept;
// "SHA256:<hex>;SHA384:<hex>" (the SymbolChecksum header value); "" when there are none.
// Entries whose algorithm name is not a header token are left out (a PE could otherwise write
// CR LF and a second request into the header).
std::string symbol_checksum_header(std::span<const PdbChecksum> sums);

}  // namespace ilmap
