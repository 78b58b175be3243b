// PdbChecksum.cpp - SHA-2 digests of a Portable PDB with its id zeroed (OpenSSL EVP).
#include "PdbChecksum.h"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>

namespace ilmap {
namespace {

const EVP_MD* digest_for(std::string_view algorithm) {
  // Names are case-sensitive in the PE (PE-COFF.md); SRM and symstore compare them exactly.
  if (algorithm == "SHA256") return EVP_sha256();
  if (algorithm == "SHA384") return EVP_sha384();
  if (algorithm == "SHA512") return EVP_sha512();
  return nullptr;
}

constexpr std::size_t kIdSize = 20;

}  // namespace

const char* checksum_verdict_name(ChecksumVerdict v) noexcept {
  switch (v) {
    case ChecksumVerdict::kAbsent: return "absent";
    case ChecksumVerdict::kVerified: return "verified";
    case ChecksumVerdict::kMismatch: return "mismatch";
    case ChecksumVerdict::kUnverifiable: return "unverifiable";
  }
  return "unknown";
}

Result<std::vector<std::uint8_t>> compute_pdb_checksum(std::string_view algorithm,
                                                       std::span<const std::uint8_t> pdb,
                                                       std::size_t id_offset) {
  const EVP_MD* md = digest_for(algorithm);
  if (!md)
    return Error{Errc::kUnsupported, format("PDB checksum algorithm '%.*s' is not supported (SHA256, SHA384, SHA512)", int(algorithm.size()), algorithm.data())};
  if (id_offset > pdb.size() || pdb.size() - id_offset < kIdSize)
    return Error{Errc::kTruncated, format("PDB id at offset 0x%zx lies outside the PDB (size 0x%zx)", id_offset, pdb.size())};
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  static constexpr std::uint8_t kZeros[kIdSize] = {};
  unsigned int n = 0;
  std::vector<std::uint8_t> out(EVP_MAX_MD_SIZE);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), pdb.data(), id_offset) != 1 ||
      EVP_DigestUpdate(ctx.get(), kZeros, kIdSize) != 1 ||
      EVP_DigestUpdate(ctx.get(), pdb.data() + id_offset + kIdSize,
                       pdb.size() - id_offset - kIdSize) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), out.data(), &n) != 1)
    return Error{Errc::kIo, "OpenSSL digest computation failed"};
  out.resize(n);
  return out;
}

ChecksumVerdict verify_pdb_checksums(std::span<const PdbChecksum> sums,
                                     std::span<const std::uint8_t> pdb, std::size_t id_offset,
                                     std::vector<ChecksumVerdict>* each) {
  if (each) each->clear();
  bool verified = false, mismatch = false;
  for (const PdbChecksum& s : sums) {
    ChecksumVerdict v = ChecksumVerdict::kUnverifiable;
    if (auto d = compute_pdb_checksum(s.algorithm, pdb, id_offset)) {
      v = std::ranges::equal(*d, s.hash) ? ChecksumVerdict::kVerified : ChecksumVerdict::kMismatch;
    } else if (d.error().code != Errc::kUnsupported) {
      v = ChecksumVerdict::kMismatch;  // the id is not where the PDB says: cannot match
    }
    verified |= v == ChecksumVerdict::kVerified;
    mismatch |= v == ChecksumVerdict::kMismatch;
    if (each) each->push_back(v);
  }
  if (sums.empty()) return ChecksumVerdict::kAbsent;
  if (verified) return ChecksumVerdict::kVerified;
  return mismatch ? ChecksumVerdict::kMismatch : ChecksumVerdict::kUnverifiable;
}

}  // namespace ilmap
