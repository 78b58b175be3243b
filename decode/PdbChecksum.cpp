// PdbChecksum.cpp - SHA-2 digests of a Portable PDB with its id zeroed (OpenSSL's SHA256 and
// SHA512 functions).
//
// The one-shot SHA functions, not EVP: EVP's algorithm fetching links the whole provider
// machinery of a static libcrypto into the programs (curves, ciphers, encoders, error strings:
// 330 KB of relocated data, a fifth of every process start of ilmap); these functions link
// just the digests, with the same assembly (SHA-NI, AVX2). OpenSSL 3 marks them deprecated,
// not removed.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "decode/PdbChecksum.h"

#include <openssl/sha.h>

#include <algorithm>
#include <memory>

namespace ilmap {
namespace {

// A digest of three consecutive pieces: the state type and functions of one SHA-2 variant.
template <typename Ctx, int (*Init)(Ctx*), int (*Update)(Ctx*, const void*, std::size_t),
          int (*Final)(unsigned char*, Ctx*)>
bool digest3(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b,
             std::span<const std::uint8_t> c, unsigned char* out) {
  Ctx ctx;
  return Init(&ctx) == 1 && Update(&ctx, a.data(), a.size()) == 1 && Update(&ctx, b.data(), b.size()) == 1 &&
         Update(&ctx, c.data(), c.size()) == 1 && Final(out, &ctx) == 1;
}

using DigestFn = bool (*)(std::span<const std::uint8_t>, std::span<const std::uint8_t>,
                          std::span<const std::uint8_t>, unsigned char*);

struct Digest {
  DigestFn fn = nullptr;
  std::size_t size = 0;
};

Digest digest_for(std::string_view algorithm) {
  // Names are case-sensitive in the PE (PE-COFF.md); SRM and symstore compare them exactly.
  if (algorithm == "SHA256") return {digest3<SHA256_CTX, SHA256_Init, SHA256_Update, SHA256_Final>, SHA256_DIGEST_LENGTH};
  if (algorithm == "SHA384") return {digest3<SHA512_CTX, SHA384_Init, SHA384_Update, SHA384_Final>, SHA384_DIGEST_LENGTH};
  if (algorithm == "SHA512") return {digest3<SHA512_CTX, SHA512_Init, SHA512_Update, SHA512_Final>, SHA512_DIGEST_LENGTH};
  return {};
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
  const Digest md = digest_for(algorithm);
  if (!md.fn)
    return Error{Errc::kUnsupported, format("PDB checksum algorithm '%.*s' is not supported (SHA256, SHA384, SHA512)", int(algorithm.size()), algorithm.data())};
  if (id_offset > pdb.size() || pdb.size() - id_offset < kIdSize)
    return Error{Errc::kTruncated, format("PDB id at offset 0x%zx lies outside the PDB (size 0x%zx)", id_offset, pdb.size())};
  static constexpr std::uint8_t kZeros[kIdSize] = {};
  std::vector<std::uint8_t> out(md.size);
  if (!md.fn(pdb.first(id_offset), std::span<const std::uint8_t>(kZeros), pdb.subspan(id_offset + kIdSize), out.data()))
    return Error{Errc::kIo, "OpenSSL digest computation failed"};
  return out;
}

ChecksumVerdict verify_pdb_checksums(std::span<const PdbChecksum> sums,
                                     std::span<const std::uint8_t> pdb, std::size_t id_offset,
                                     std::vector<ChecksumVerdict>* each,
                                     std::vector<std::uint8_t>* sha256) {
  if (each) each->clear();
  bool verified = false, mismatch = false;
  std::vector<std::uint8_t> known;  // the SHA256 digest once computed (entries may repeat it)
  for (const PdbChecksum& s : sums) {
    ChecksumVerdict v = ChecksumVerdict::kUnverifiable;
    const bool is_sha256 = s.algorithm == "SHA256";
    auto d = is_sha256 && !known.empty() ? Result<std::vector<std::uint8_t>>(known)
                                         : compute_pdb_checksum(s.algorithm, pdb, id_offset);
    if (d) {
      if (is_sha256) known = *d;
      v = std::ranges::equal(*d, s.hash) ? ChecksumVerdict::kVerified : ChecksumVerdict::kMismatch;
    } else if (d.error().code != Errc::kUnsupported) {
      v = ChecksumVerdict::kMismatch;  // the id is not where the PDB says: cannot match
    }
    verified |= v == ChecksumVerdict::kVerified;
    mismatch |= v == ChecksumVerdict::kMismatch;
    if (each) each->push_back(v);
  }
  if (sha256 && !known.empty()) *sha256 = std::move(known);
  if (sums.empty()) return ChecksumVerdict::kAbsent;
  if (verified) return ChecksumVerdict::kVerified;
  return mismatch ? ChecksumVerdict::kMismatch : ChecksumVerdict::kUnverifiable;
}

}  // namespace ilmap
