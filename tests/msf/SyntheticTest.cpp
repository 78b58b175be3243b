// SyntheticTest.cpp - the MSF decoder on hand-built PDBs (MsfWriter.h): what each rule of
// MsfPdb.h produces, checked on the decoded points and on the canonical listing.
#include <gtest/gtest.h>

#include "decode/SymstoreKeys.h"
#include "MsfWriter.h"
#include "decode/msf/MsfPdb.h"

using namespace ilmap;
using namespace ilmap::msf;
using namespace ilmap::msf::test;

namespace {

Result<MsfPdb> parse(const Bytes& b) { return MsfPdb::parse(b); }

// One module, two managed methods, one native procedure.
Pdb sample() {
  Pdb p;
  Module m;
  m.files = {"C:\\src\\A.cs", "C:\\src\\B.cs"};
  m.procs = {{0x06000001, 0, 20}, {0x06000002, 20, 30}, {0x06000003, 50, 10}};
  m.procs.push_back({0, 0x1000, 64, 1, 0x1110, "native"});  // S_GPROC32: not a managed method
  // Method 1: columns, a hidden point, two documents.
  Lines l1{0, 1, true, 20, {}};
  l1.blocks.push_back({0, {{0, 10, 10, 5, 9}, {3, kHiddenLine, kHiddenLine, 0, 0}, {6, 11, 13, 1, 2}}});
  l1.blocks.push_back({1, {{12, 7, 7, 3, 4}}});
  // Method 2: no columns.
  Lines l2{20, 1, false, 30, {}};
  l2.blocks.push_back({1, {{0, 20, 21}, {4, 22, 22}}});
  // Native code's lines: no managed procedure claims them.
  Lines l3{0x1000, 1, false, 64, {}};
  l3.blocks.push_back({0, {{0, 99, 99}}});
  // Method 3: a subsection starting inside it (offsets become relative to the method).
  Lines l4{54, 1, true, 6, {}};
  l4.blocks.push_back({0, {{0, 30, 30, 1, 8}, {2, 31, 31, 1, 8}}});
  m.lines = {l1, l2, l3, l4};
  m.checksum = std::vector<std::uint8_t>(20, 0xAB);
  p.modules.push_back(m);
  return p;
}

}  // namespace

TEST(Synthetic, SampleListing) {
  const Bytes b = write_pdb(sample());
  auto pdb = parse(b);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EXPECT_EQ(msf_listing(*pdb),
            "0x06000001 0 C:\\src\\A.cs 10:5-10:9\n"
            "0x06000001 3 C:\\src\\A.cs 16707566:0-16707566:0 hidden\n"
            "0x06000001 6 C:\\src\\A.cs 11:1-13:2\n"
            "0x06000001 12 C:\\src\\B.cs 7:3-7:4\n"
            "0x06000002 0 C:\\src\\B.cs 20:0-21:0\n"
            "0x06000002 4 C:\\src\\B.cs 22:0-22:0\n"
            "0x06000003 4 C:\\src\\A.cs 30:1-30:8\n"
            "0x06000003 6 C:\\src\\A.cs 31:1-31:8\n");
  EXPECT_EQ(pdb->point_count(), 8u);
  ASSERT_EQ(pdb->documents().size(), 2u);
  EXPECT_EQ(pdb->documents()[0].name, "C:\\src\\A.cs");
  EXPECT_EQ(pdb->documents()[0].checksum_kind, kChecksumSha1);
  EXPECT_EQ(pdb->documents()[0].hash, std::vector<std::uint8_t>(20, 0xAB));
  EXPECT_EQ(pdb->documents()[0].hash_algorithm, guids::kHashSha1);
  EXPECT_EQ(pdb->documents()[0].language, Guid{});  // no /src/files/ stream
  ASSERT_EQ(pdb->methods().size(), 3u);  // the native procedure is not a method
  EXPECT_EQ(pdb->methods()[0].points[3].document, 2u);
  EXPECT_EQ(pdb->methods()[2].offset, 50u);
  EXPECT_EQ(pdb->methods()[2].length, 10u);
  EXPECT_TRUE(pdb->methods()[0].points[1].hidden());
}

TEST(Synthetic, IdentityAndContainer) {
  Pdb p = sample();
  p.info_age = 5;
  p.dbi_age = 7;
  const Bytes b = write_pdb(p);
  auto pdb = parse(b);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EXPECT_EQ(pdb->age(), 7u);  // the DBI's age is the one a PE must carry
  EXPECT_EQ(pdb->info().age(), 5u);
  EXPECT_EQ(guid_to_text(pdb->guid()), "04030201-0605-0807-090a-0b0c0d0e0f10");
  // Age 26 so that the key shows hex, not decimal.
  EXPECT_EQ(ssqp_windows_pdb_key("C:\\Out\\Lib.PDB", pdb->guid(), 26),
            "lib.pdb/0403020106050807090a0b0c0d0e0f101a/lib.pdb");
  EXPECT_EQ(pdb->msf().block_size(), 512u);
  EXPECT_EQ(pdb->msf().stream_count(), 7u);
  EXPECT_FALSE(pdb->msf().has_stream(0));  // nil
  EXPECT_EQ(pdb->info().find("/NAMES"), std::optional<std::uint32_t>(kNamesStream));
  EXPECT_EQ(pdb->info().find("srcsrv"), std::nullopt);
  EXPECT_FALSE(pdb->source_server().has_value());
}

// Directories of more than block_size / 4 blocks need several block-map blocks (the superblock's
// array); 40000 streams make a 160 KB directory: 313 blocks of 512 bytes, 3 block-map blocks.
TEST(Synthetic, DirectorySpanningManyBlocks) {
  Pdb p = sample();
  p.extra_nil_streams = 40000;
  Layout l;
  const Bytes b = write_pdb(p, &l);
  ASSERT_EQ(l.map_blocks.size(), 3u);
  auto pdb = parse(b);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EXPECT_EQ(pdb->msf().stream_count(), 40007u);
  EXPECT_EQ(pdb->point_count(), 8u);
}

TEST(Synthetic, BlockSizes) {
  for (std::uint32_t bs : {512u, 1024u, 2048u, 4096u}) {
    Pdb p = sample();
    p.block_size = bs;
    const Bytes b = write_pdb(p);
    auto pdb = parse(b);
    ASSERT_TRUE(pdb.ok()) << bs << ": " << pdb.error().message;
    EXPECT_EQ(pdb->msf().block_size(), bs);
    EXPECT_EQ(pdb->point_count(), 8u);
  }
}

// Streams spread over non-adjacent blocks are gathered in directory order.
TEST(Synthetic, StreamsGatheredFromScatteredBlocks) {
  std::vector<MsfStream> st(3);
  for (int i = 0; i < 1500; ++i) st[1].bytes.push_back(static_cast<std::uint8_t>(i * 7));
  st[2].bytes = {1, 2, 3};
  Layout l;
  Bytes f = write_msf(st, 512, &l);
  // Swap the first two blocks of stream 1 in the file and in the directory.
  const std::uint32_t a = l.stream_blocks[1][0], c = l.stream_blocks[1][1];
  for (std::uint32_t i = 0; i < 512; ++i) std::swap(f[a * 512 + i], f[c * 512 + i]);
  const std::size_t entry = 4 + 3 * 4 + 0;  // count, three sizes, stream 0 has no blocks
  patch_u32(f, l.directory_offset(entry), c);
  patch_u32(f, l.directory_offset(entry + 4), a);
  auto msf = MsfFile::parse(f);
  ASSERT_TRUE(msf.ok()) << msf.error().message;
  auto s = msf->read_stream(1);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, st[1].bytes);
  EXPECT_EQ(msf->file_offset(1, 0), std::size_t(c) * 512);
  EXPECT_EQ(msf->file_offset(1, 513), std::size_t(a) * 512 + 1);
}

// Cci's rule for procedures at one address: the first (by token) without lines takes the
// subsection; a zero-length procedure can take lines at its address.
TEST(Synthetic, ProceduresSharingAnAddress) {
  Pdb p;
  Module m;
  m.files = {"a.cs"};
  m.procs = {{0x06000009, 100, 10}, {0x06000004, 100, 0}};
  Lines l{100, 1, false, 10, {}};
  l.blocks.push_back({0, {{0, 1, 1}}});
  Lines l2 = l;
  l2.blocks[0].lines[0].start = l2.blocks[0].lines[0].end = 2;
  m.lines = {l, l2};
  p.modules.push_back(m);
  auto pdb = parse(write_pdb(p));
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EXPECT_EQ(msf_listing(*pdb), "0x06000004 0 a.cs 1:0-1:0\n0x06000009 0 a.cs 2:0-2:0\n");
}

// Equal IL offsets keep PDB order; out-of-order offsets are sorted in the listing.
TEST(Synthetic, ListingOrder) {
  Pdb p;
  Module m;
  m.files = {"a.cs"};
  m.procs = {{0x06000001, 0, 100}};
  Lines l{0, 1, false, 100, {}};
  l.blocks.push_back({0, {{8, 3, 3}, {0, 1, 1}, {8, 2, 2}}});
  m.lines = {l};
  p.modules.push_back(m);
  auto pdb = parse(write_pdb(p));
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EXPECT_EQ(msf_listing(*pdb), "0x06000001 0 a.cs 1:0-1:0\n0x06000001 8 a.cs 3:0-3:0\n"
                               "0x06000001 8 a.cs 2:0-2:0\n");
  // The model keeps PDB order.
  EXPECT_EQ(pdb->methods()[0].points[0].il_offset, 8u);
}

TEST(Synthetic, TokenRidMap) {
  Pdb p;
  Module m;
  m.files = {"a.cs"};
  m.procs = {{0x06000002, 0, 10}};
  Lines l{0, 1, false, 10, {}};
  l.blocks.push_back({0, {{0, 1, 1}}});
  m.lines = {l};
  p.modules.push_back(m);
  p.rid_map = {0, 0, 0x33};
  auto pdb = parse(write_pdb(p));
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EXPECT_EQ(msf_listing(*pdb), "0x06000033 0 a.cs 1:0-1:0\n");
}

// Documents are identified by name across modules; the same method token in two modules has its
// points concatenated in PDB order.
TEST(Synthetic, ModulesShareDocumentsAndTokens) {
  Pdb p;
  for (int i = 0; i < 2; ++i) {
    Module m;
    m.name = i == 0 ? "M0" : "M1";
    m.files = {i == 0 ? "x.cs" : "y.cs", "shared.cs"};
    m.procs = {{0x06000001, std::uint32_t(i * 10), 10}};
    Lines l{std::uint32_t(i * 10), 1, false, 10, {}};
    l.blocks.push_back({1, {{0, std::uint32_t(5 + i), std::uint32_t(5 + i)}}});
    m.lines = {l};
    p.modules.push_back(m);
  }
  auto pdb = parse(write_pdb(p));
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  ASSERT_EQ(pdb->documents().size(), 1u);  // only documents that points use
  ASSERT_EQ(pdb->methods().size(), 1u);
  EXPECT_EQ(msf_listing(*pdb), "0x06000001 0 shared.cs 5:0-5:0\n0x06000001 0 shared.cs 6:0-6:0\n");
}

// Language, algorithm and checksum from /src/files/<name> (looked up ignoring case, as Cci does);
// srcsrv and sourcelink handed out raw.
TEST(Synthetic, NamedStreams) {
  Pdb p;
  Module m;
  m.files = {"C:\\Src\\A.cs"};
  m.procs = {{0x06000001, 0, 10}};
  Lines l{0, 1, false, 10, {}};
  l.blocks.push_back({0, {{0, 1, 1}}});
  m.lines = {l};
  p.modules.push_back(m);
  static constexpr Guid kCs = guids::kLanguageCSharp, kSha256 = guids::kHashSha256;
  std::uint8_t lang[16], alg[16];
  std::copy(kCs.begin(), kCs.end(), lang);
  std::copy(kSha256.begin(), kSha256.end(), alg);
  const Bytes sum(32, 0x5A);
  p.named = {{"/src/files/c:\\src\\a.cs", source_file_info(lang, alg, sum)},
             {"srcsrv", Bytes{'S', 'R', 'C', 'S', 'R', 'V'}},
             {"sourcelink", Bytes{'{', '}'}}};
  auto pdb = parse(write_pdb(p));
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  ASSERT_EQ(pdb->documents().size(), 1u);
  const MsfDocument& d = pdb->documents()[0];
  EXPECT_EQ(d.language, guids::kLanguageCSharp);
  EXPECT_EQ(d.hash_algorithm, guids::kHashSha256);
  EXPECT_EQ(d.hash, sum);
  EXPECT_EQ(d.checksum_kind, kChecksumNone);
  ASSERT_TRUE(pdb->source_server().has_value());
  EXPECT_EQ(*pdb->source_server(), (Bytes{'S', 'R', 'C', 'S', 'R', 'V'}));
  ASSERT_TRUE(pdb->source_link().has_value());
  EXPECT_EQ(*pdb->source_link(), (Bytes{'{', '}'}));
  EXPECT_EQ(pdb->info().named_streams().size(), 4u);
}
