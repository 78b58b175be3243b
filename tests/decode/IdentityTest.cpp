// IdentityTest.cpp - SSQP keys, debug/code ids, SymbolChecksum header and PDB checksums, against
// the examples of shared/reference/portable-pdb-notes.md section 3 (SSQP_Key_Conventions.md,
// Sentry). GUID bytes are derived from their text form, never typed by hand.
#include <gtest/gtest.h>

#include <openssl/evp.h>

#include "decode/SymstoreKeys.h"
#include "decode/PdbChecksum.h"

namespace ilmap {
namespace {

constexpr Guid kSsqpExample = guid_from_text("497b72f6-390a-44fc-878e-5a2d63b6cc4b");
constexpr Guid kSentryExample = guid_from_text("4e2ca887-825e-46f3-968f-25b41ae1b5f3");

TEST(Identity, PortablePdbKeyMatchesSsqpExample) {
  EXPECT_EQ(ssqp_portable_pdb_key("foo.pdb", kSsqpExample),
            "foo.pdb/497b72f6390a44fc878e5a2d63b6cc4bFFFFFFFF/foo.pdb");
}

TEST(Identity, FileNameIsLowercasedAfterEitherSeparator) {
  EXPECT_EQ(ssqp_portable_pdb_key("C:\\build\\obj\\Foo.PDB", kSsqpExample),
            "foo.pdb/497b72f6390a44fc878e5a2d63b6cc4bFFFFFFFF/foo.pdb");
  EXPECT_EQ(ssqp_portable_pdb_key("/_/obj/Release/Foo.pdb", kSsqpExample),
            "foo.pdb/497b72f6390a44fc878e5a2d63b6cc4bFFFFFFFF/foo.pdb");
  EXPECT_EQ(symstore_file_name("a/b\\C.Dll"), "c.dll");
  EXPECT_EQ(symstore_file_name("plain.exe"), "plain.exe");
}

TEST(Identity, PeKeyMatchesSsqpExample) {
  // "foo.exe/542D574Ec2000/foo.exe": stamp as X8 uppercase, image size minimal lowercase hex.
  EXPECT_EQ(ssqp_pe_key("Foo.exe", 0x542D574E, 0xc2000), "foo.exe/542D574Ec2000/foo.exe");
  EXPECT_EQ(ssqp_pe_key("x/crash.exe", 0x5AB38077, 0x9000), "crash.exe/5AB380779000/crash.exe");
  EXPECT_EQ(pe_code_id(0x0000ABCD, 0x10), "0000ABCD10");
}

TEST(Identity, DebugIdMatchesSentryExample) {
  EXPECT_EQ(portable_debug_id(kSentryExample, 0x9e6d3fcc),
            "4e2ca887-825e-46f3-968f-25b41ae1b5f3-9e6d3fcc");
  EXPECT_EQ(portable_debug_id(kSentryExample, 0x1), "4e2ca887-825e-46f3-968f-25b41ae1b5f3-00000001");
}

TEST(Identity, SymbolChecksumHeader) {
  std::vector<PdbChecksum> sums{{"SHA256", {0x87, 0xa8, 0x0f}}, {"SHA384", {0x00, 0xff}}};
  EXPECT_EQ(symbol_checksum_header(sums), "SHA256:87a80f;SHA384:00ff");
  EXPECT_EQ(symbol_checksum_header({}), "");
}

std::vector<std::uint8_t> digest(const EVP_MD* md, std::span<const std::uint8_t> data) {
  std::vector<std::uint8_t> out(EVP_MAX_MD_SIZE);
  unsigned n = 0;
  EXPECT_EQ(EVP_Digest(data.data(), data.size(), out.data(), &n, md, nullptr), 1);
  out.resize(n);
  return out;
}

TEST(PdbChecksum, HashesWithTheIdZeroed) {
  std::vector<std::uint8_t> pdb(100);
  for (std::size_t i = 0; i < pdb.size(); ++i) pdb[i] = static_cast<std::uint8_t>(i * 7 + 1);
  std::vector<std::uint8_t> zeroed = pdb;
  std::fill(zeroed.begin() + 30, zeroed.begin() + 50, 0);
  for (auto [name, md] : {std::pair{"SHA256", EVP_sha256()}, std::pair{"SHA384", EVP_sha384()},
                          std::pair{"SHA512", EVP_sha512()}}) {
    auto d = compute_pdb_checksum(name, pdb, 30);
    ASSERT_TRUE(d.ok()) << d.error().message;
    EXPECT_EQ(*d, digest(md, zeroed)) << name;
  }
  std::vector<PdbChecksum> sums{{"SHA256", digest(EVP_sha256(), zeroed)}};
  std::vector<ChecksumVerdict> each;
  EXPECT_EQ(verify_pdb_checksums(sums, pdb, 30, &each), ChecksumVerdict::kVerified);
  EXPECT_EQ(verify_pdb_checksums(sums, pdb, 31), ChecksumVerdict::kMismatch);
  sums.insert(sums.begin(), PdbChecksum{"MD5", {1, 2}});
  EXPECT_EQ(verify_pdb_checksums(sums, pdb, 30, &each), ChecksumVerdict::kVerified);
  ASSERT_EQ(each.size(), 2u);
  EXPECT_EQ(each[0], ChecksumVerdict::kUnverifiable);
  EXPECT_EQ(each[1], ChecksumVerdict::kVerified);
  EXPECT_EQ(verify_pdb_checksums({}, pdb, 30), ChecksumVerdict::kAbsent);
}

TEST(PdbChecksum, Errors) {
  std::vector<std::uint8_t> pdb(30);
  EXPECT_EQ(compute_pdb_checksum("sha256", pdb, 0).error().code, Errc::kUnsupported);  // case-sensitive
  EXPECT_EQ(compute_pdb_checksum("SHA256", pdb, 11).error().code, Errc::kTruncated);
  EXPECT_EQ(compute_pdb_checksum("SHA256", pdb, 1000).error().code, Errc::kTruncated);
}

}  // namespace
}  // namespace ilmap
