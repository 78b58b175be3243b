// PdbChecksum.h - the PE's PdbChecksum debug-directory entries (type 19) and their verification.
//
// PE-COFF.md "PDB Checksum Debug Directory Entry": AlgorithmName (NUL-terminated UTF-8,
// case-sensitive: SHA256, SHA384, SHA512) then the hash. For a Portable PDB the hash covers the
// whole PDB file with the 20-byte PDB id in the #Pdb stream zeroed. Hashing uses OpenSSL EVP and
// feeds the id as zeros without copying the file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ilmap/status.h"

namespace ilmap {

struct PdbChecksum {
  std::string algorithm;           // as written in the PE ("SHA256")
  std::vector<std::uint8_t> hash;  // raw digest bytes
};

enum class ChecksumVerdict : std::uint8_t {
  kAbsent,        // the PE has no PdbChecksum entry
  kVerified,      // at least one entry matches the PDB (symstore ChecksumValidator semantics)
  kMismatch,      // entries with known algorithms exist and none matches
  kUnverifiable,  // only unknown algorithms
};

const char* checksum_verdict_name(ChecksumVerdict v) noexcept;

// Digest of `pdb` with the 20 bytes at `id_offset` taken as zeros. Errors: kUnsupported for an
// unknown algorithm name, kTruncated when the id range is outside `pdb`.
Result<std::vector<std::uint8_t>> compute_pdb_checksum(std::string_view algorithm,
                                                       std::span<const std::uint8_t> pdb,
                                                       std::size_t id_offset);

// Checks every entry; `each` (optional) receives one verdict per entry (kVerified, kMismatch or
// kUnverifiable). The overall verdict follows the enum's comments. `sha256` (optional) receives
// the SHA256 digest when an entry needed it, so that a cache compiled next records it without
// a second pass over the PDB (CacheSource::pdb_sha256).
ChecksumVerdict verify_pdb_checksums(std::span<const PdbChecksum> sums,
                                     std::span<const std::uint8_t> pdb, std::size_t id_offset,
                                     std::vector<ChecksumVerdict>* each = nullptr,
                                     std::vector<std::uint8_t>* sha256 = nullptr);

}  // namespace ilmap
