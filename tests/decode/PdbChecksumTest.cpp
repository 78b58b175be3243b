// PdbChecksumTest.cpp - compute_pdb_checksum: SHA-256/384/512 of a PDB with its 20-byte id
// zeroed, against digests computed independently (Python's hashlib over the zeroed bytes).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decode/SymstoreKeys.h"
#include "decode/PdbChecksum.h"

namespace ilmap {
namespace {

// "ilmap" x 10, a 20-byte id (0xAB: must not count), then "tail bytes".
std::vector<std::uint8_t> sample_pdb() {
  std::vector<std::uint8_t> v;
  for (int i = 0; i < 10; ++i) v.insert(v.end(), {'i', 'l', 'm', 'a', 'p'});
  v.insert(v.end(), 20, 0xAB);
  for (char c : std::string("tail bytes")) v.push_back(static_cast<std::uint8_t>(c));
  return v;
}

std::string digest_hex(const char* algorithm, std::span<const std::uint8_t> pdb, std::size_t id_offset) {
  auto d = compute_pdb_checksum(algorithm, pdb, id_offset);
  EXPECT_TRUE(d) << (d ? "" : d.error().message);
  return d ? hex_lower(*d) : std::string();
}

TEST(PdbChecksum, Sha2DigestsWithTheIdZeroed) {
  const auto pdb = sample_pdb();
  EXPECT_EQ(digest_hex("SHA256", pdb, 50), "070e4447b68f2eeb8ddf385873d289c9f3775a4f958aeed910b0f26151eac007");
  EXPECT_EQ(digest_hex("SHA384", pdb, 50),
            "a48a753d246b22489d440b34432b42d8b6f29dd4ff9cb9ab0915f6493a54e079216bf038ff1480e7dba7413a266d6d33");
  EXPECT_EQ(digest_hex("SHA512", pdb, 50),
            "fea6e8459479b28faa826d3f1036d5e61a6c01c08235410e0c09d295eb73b021f89202447205648cda0a1d9e75063f3568134a384cccde66958d30b72bbe3ee1");
}

TEST(PdbChecksum, IdAtTheVeryStartAndEnd) {
  // 20 bytes, all id: the digest of 20 zero bytes.
  const std::vector<std::uint8_t> id_only(20, 0xCD);
  EXPECT_EQ(digest_hex("SHA256", id_only, 0), "de47c9b27eb8d300dbb5f2c353e632c393262cf06340c4fa7f1b40c4cbd36f90");
}

TEST(PdbChecksum, UnsupportedAlgorithmAndIdOutside) {
  const auto pdb = sample_pdb();
  auto md5 = compute_pdb_checksum("MD5", pdb, 50);
  ASSERT_FALSE(md5);
  EXPECT_EQ(md5.error().code, Errc::kUnsupported);
  auto lower = compute_pdb_checksum("sha256", pdb, 50);  // names are case-sensitive
  ASSERT_FALSE(lower);
  EXPECT_EQ(lower.error().code, Errc::kUnsupported);
  auto past = compute_pdb_checksum("SHA256", pdb, pdb.size() - 19);
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().code, Errc::kTruncated);
}

}  // namespace
}  // namespace ilmap
