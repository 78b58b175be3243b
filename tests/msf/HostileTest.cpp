// HostileTest.cpp - corrupted MSF PDBs: each case patches one structure of a hand-built PDB and
// asserts the one error code and a fragment of the message (what and where). A truncation and
// a byte-flip sweep check that no input crashes and every error carries a code and a message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "MsfWriter.h"
#include "decode/msf/ModuleStream.h"
#include "decode/msf/MsfPdb.h"

using namespace ilmap;
using namespace ilmap::msf;
using namespace ilmap::msf::test;

namespace {

// One module, one managed method, one document, one line block: fixed positions below.
Pdb simple() {
  Pdb p;
  Module m;
  m.files = {"a.cs"};
  m.procs = {{0x06000001, 0, 10}};
  Lines l{0, 1, true, 10, {}};
  l.blocks.push_back({0, {{0, 1, 1, 1, 2}, {4, 2, 2, 1, 2}}});
  m.lines = {l};
  p.modules.push_back(m);
  return p;
}

struct Fixture {
  Pdb pdb = simple();
  Layout layout;
  Bytes file;
  std::uint32_t sym = 0;  // symbol substream size of module 0
  Fixture() {
    file = write_pdb(pdb, &layout);
    std::uint32_t c13 = 0;
    (void)module_stream(pdb.modules[0], {1}, &sym, &c13);
  }
  std::size_t at(std::size_t stream, std::size_t pos) const { return layout.stream_offset(stream, pos); }
  // Positions inside the module stream (stream kFirstModuleStream).
  std::size_t module(std::size_t pos) const { return at(kFirstModuleStream, pos); }
  std::size_t checksums() const { return sym; }        // DEBUG_S_FILECHKSMS header
  std::size_t lines() const { return sym + 8 + 8; }    // DEBUG_S_LINES header
  std::size_t block() const { return lines() + 8 + 12; }  // the file block header
  // Directory position of stream `s`'s first block number.
  std::size_t dir_block_entry(std::size_t s) const {
    std::size_t pos = 4 + 4 * layout.stream_blocks.size();
    for (std::size_t i = 0; i < s; ++i) pos += 4 * layout.stream_blocks[i].size();
    return layout.directory_offset(pos);
  }
  std::size_t dir_size_entry(std::size_t s) const { return layout.directory_offset(4 + 4 * s); }
};

void expect_error(const Bytes& b, Errc code, const std::string& fragment) {
  auto pdb = MsfPdb::parse(b);
  ASSERT_FALSE(pdb.ok()) << "expected " << errc_name(code) << " containing \"" << fragment << "\"";
  EXPECT_EQ(errc_name(pdb.error().code), std::string(errc_name(code))) << pdb.error().message;
  EXPECT_NE(pdb.error().message.find(fragment), std::string::npos) << pdb.error().message;
}

}  // namespace

TEST(Hostile, FixtureIsValid) {
  Fixture f;
  auto pdb = MsfPdb::parse(f.file);
  ASSERT_TRUE(pdb.ok()) << pdb.error().message;
  EXPECT_EQ(msf_listing(*pdb), "0x06000001 0 a.cs 1:1-1:2\n0x06000001 4 a.cs 2:1-2:2\n");
  // The positions the cases patch hold what they should.
  EXPECT_EQ(get_u32(f.file, f.module(f.checksums())), kDebugSFileChecksums);
  EXPECT_EQ(get_u32(f.file, f.module(f.lines())), kDebugSLines);
  EXPECT_EQ(get_u32(f.file, f.module(f.block() + 4)), 2u);
  EXPECT_EQ(get_u32(f.file, f.dir_size_entry(3)), pdb->msf().stream_size(3));
}

// ---- container ---------------------------------------------------------------------------------
TEST(Hostile, BadMagic) {
  Fixture f;
  f.file[10] ^= 0x20;
  expect_error(f.file, Errc::kBadMagic, "not an MSF 7.00 file");
  expect_error(Bytes{'M', 'Z', 0x90, 0}, Errc::kBadMagic, "not an MSF 7.00 file");
}

TEST(Hostile, TruncatedSuperblock) {
  Fixture f;
  f.file.resize(40);
  expect_error(f.file, Errc::kTruncated, "MSF superblock at file offset 0x0: needs 56 bytes");
}

TEST(Hostile, TruncatedFile) {
  Fixture f;
  f.file.resize(f.file.size() - 512);
  expect_error(f.file, Errc::kTruncated, "blocks of 512 bytes need");
}

TEST(Hostile, BadBlockSize) {
  Fixture f;
  patch_u32(f.file, 32, 777);
  expect_error(f.file, Errc::kMalformed, "block size 777");
}

TEST(Hostile, BlockMapAddressPastTheEnd) {
  Fixture f;
  patch_u32(f.file, kBlockMapArrayOffset, 5000);
  expect_error(f.file, Errc::kMalformed, "block-map address at file offset 0x34: block 5000 is past the end");
}

TEST(Hostile, DirectoryBlockPastTheEnd) {
  Fixture f;
  patch_u32(f.file, std::size_t(f.layout.map_blocks[0]) * 512, 0x7FFFFFFF);
  expect_error(f.file, Errc::kMalformed, "directory block list");
}

// The directory's block list names the block that holds it: a cycle.
TEST(Hostile, DirectoryCycle) {
  Fixture f;
  patch_u32(f.file, std::size_t(f.layout.map_blocks[0]) * 512, f.layout.map_blocks[0]);
  expect_error(f.file, Errc::kMalformed, "already used by the directory's block map");
}

TEST(Hostile, StreamBlockPastTheEnd) {
  Fixture f;
  patch_u32(f.file, f.dir_block_entry(3), f.layout.num_blocks);
  expect_error(f.file, Errc::kMalformed, "is past the end");
}

TEST(Hostile, StreamBlockIsTheSuperblock) {
  Fixture f;
  patch_u32(f.file, f.dir_block_entry(3), 0);
  expect_error(f.file, Errc::kMalformed, "block 0 is the superblock");
}

TEST(Hostile, StreamsShareABlock) {
  Fixture f;
  patch_u32(f.file, f.dir_block_entry(3), f.layout.stream_blocks[1][0]);
  expect_error(f.file, Errc::kMalformed, "already used by stream 1");
}

TEST(Hostile, StreamSizeOverflows) {
  Fixture f;
  patch_u32(f.file, f.dir_size_entry(3), 0xFFFFFFF0u);
  expect_error(f.file, Errc::kMalformed, "stream 3 of 0xfffffff0 bytes needs");
}

TEST(Hostile, StreamCountOverflows) {
  Fixture f;
  patch_u32(f.file, f.layout.directory_offset(0), 0x40000000u);
  expect_error(f.file, Errc::kMalformed, "1073741824 stream sizes do not fit");
}

TEST(Hostile, DirectoryLargerThanFile) {
  Fixture f;
  patch_u32(f.file, 44, 0xFFFFFFF0u);
  expect_error(f.file, Errc::kMalformed, "larger than the file's blocks");
}

TEST(Hostile, DirectoryBytesLeftOver) {
  Fixture f;
  ASSERT_LT(get_u32(f.file, 44) % 512, 508u);
  patch_u32(f.file, 44, get_u32(f.file, 44) + 4);
  expect_error(f.file, Errc::kMalformed, "4 bytes left over after the last stream's blocks");
}

// ---- PDB info stream, /names ---------------------------------------------------------------------
TEST(Hostile, InfoStreamTruncated) {
  Fixture f;
  patch_u32(f.file, f.dir_size_entry(1), 20);
  expect_error(f.file, Errc::kTruncated, "PDB info stream stream 1 offset 0x0");
}

TEST(Hostile, NamedStreamCountMismatch) {
  Fixture f;
  patch_u32(f.file, f.at(1, 39), 2);  // size: 2 entries, 1 present bucket
  expect_error(f.file, Errc::kMalformed, "says 2 entries, 1 buckets are present");
}

TEST(Hostile, NamedStreamBucketPastCapacity) {
  Fixture f;
  patch_u32(f.file, f.at(1, 51), 0x80000000u);  // bucket 31 present, capacity 2
  expect_error(f.file, Errc::kMalformed, "bucket 31 is present but the table has 2 buckets");
}

TEST(Hostile, NamedStreamNameOutsideBuffer) {
  Fixture f;
  patch_u32(f.file, f.at(1, 59), 0x100);
  expect_error(f.file, Errc::kMalformed, "names string offset 0x100");
}

TEST(Hostile, NamesBadSignature) {
  Fixture f;
  patch_u32(f.file, f.at(kNamesStream, 0), 0x12345678);
  expect_error(f.file, Errc::kBadMagic, "/names string table stream 5 offset 0x0");
}

// ---- DBI ---------------------------------------------------------------------------------------
TEST(Hostile, DbiSignature) {
  Fixture f;
  patch_u32(f.file, f.at(3, 0), 0);
  expect_error(f.file, Errc::kBadVersion, "DBI stream stream 3 offset 0x0");
}

TEST(Hostile, DbiSubstreamsOverrunStream) {
  Fixture f;
  patch_u32(f.file, f.at(3, 24), get_u32(f.file, f.at(3, 24)) + 4);
  expect_error(f.file, Errc::kTruncated, "substreams add up to");
}

TEST(Hostile, ModuleSizesOverrunStream) {
  Fixture f;
  patch_u32(f.file, f.at(3, 64 + 44), 0x10000);  // c13_byte_size
  expect_error(f.file, Errc::kTruncated, "run past its");
}

TEST(Hostile, ModuleStreamMissing) {
  Fixture f;
  f.file[f.at(3, 64 + 34)] = 200;  // module_sym_stream
  expect_error(f.file, Errc::kMalformed, "module 0 (C): MSF stream 200 does not exist");
}

// ---- module stream -----------------------------------------------------------------------------
TEST(Hostile, SymbolSignature) {
  Fixture f;
  patch_u32(f.file, f.module(0), 1);
  expect_error(f.file, Errc::kBadVersion, "symbol signature 1");
}

TEST(Hostile, SymbolRecordOverrunsSubstream) {
  Fixture f;
  f.file[f.module(4)] = 0xF0;  // record length 0x..F0
  f.file[f.module(5)] = 0x0F;
  expect_error(f.file, Errc::kTruncated, "runs past the symbol substream");
}

TEST(Hostile, SubsectionOverrunsStream) {
  Fixture f;
  patch_u32(f.file, f.module(f.lines() + 4), 0x7FFFFFF0u);
  expect_error(f.file, Errc::kTruncated, "debug subsection 0xf2 of 0x7ffffff0 bytes overruns");
}

TEST(Hostile, LineCountOverflows) {
  Fixture f;
  patch_u32(f.file, f.module(f.block() + 4), 0x40000000u);
  expect_error(f.file, Errc::kTruncated, "file block of 1073741824 lines");
}

TEST(Hostile, LineBlockSizeTooSmall) {
  Fixture f;
  patch_u32(f.file, f.module(f.block() + 8), 12);
  expect_error(f.file, Errc::kMalformed, "file block size 12");
}

TEST(Hostile, FileIdNotAChecksumEntry) {
  Fixture f;
  patch_u32(f.file, f.module(f.block()), 4);
  expect_error(f.file, Errc::kMalformed, "file id 0x4 is not an entry");
}

TEST(Hostile, DocumentNameOutsideNames) {
  Fixture f;
  patch_u32(f.file, f.module(f.checksums() + 8), 0x1000);
  expect_error(f.file, Errc::kMalformed, "name offset 0x1000 is outside /names");
}

TEST(Hostile, ModulesShareAStream) {
  Pdb p = simple();
  p.modules.push_back(p.modules[0]);
  Layout l;
  Bytes b = write_pdb(p, &l);
  // Record 1 follows record 0 (64 fixed bytes + "C\0C.obj\0"): its stream field at +34.
  b[l.stream_offset(3, 64 + 72 + 34)] = static_cast<std::uint8_t>(kFirstModuleStream);
  expect_error(b, Errc::kMalformed, "module 1 (C) names symbol stream 6, already module 0's");
}

TEST(Hostile, SourceFileInfoChecksumOutOfRange) {
  Pdb p = simple();
  const std::uint8_t zero[16] = {};
  Bytes info = source_file_info(zero, zero, Bytes(4, 1));
  patch_u32(info, 64, 1000);  // checksum_size
  p.named = {{"/src/files/a.cs", info}};
  expect_error(write_pdb(p), Errc::kMalformed, "checksum size is out of range");
}

TEST(Hostile, TokenPastRidMap) {
  Pdb p = simple();
  p.rid_map = {0};
  expect_error(write_pdb(p), Errc::kMalformed, "token 0x06000001 is past the 1-entry token rid map");
}

TEST(Hostile, IlOffsetOverflows) {
  Pdb p = simple();
  p.modules[0].procs[0].length = 0xFFFFFFFFu;
  p.modules[0].lines[0].offset = 0x80000000u;
  p.modules[0].lines[0].blocks[0].lines[0].offset = 0x90000000u;
  expect_error(write_pdb(p), Errc::kMalformed, "IL offset 0x110000000 overflows");
}

// ---- sweeps ------------------------------------------------------------------------------------
TEST(Hostile, TruncationSweep) {
  Fixture f;
  for (std::size_t n = 0; n < f.file.size(); ++n) {
    Bytes b(f.file.begin(), f.file.begin() + static_cast<std::ptrdiff_t>(n));
    auto pdb = MsfPdb::parse(b);
    ASSERT_FALSE(pdb.ok()) << n;
    ASSERT_NE(pdb.error().code, Errc::kOk);
    ASSERT_FALSE(pdb.error().message.empty());
  }
}

TEST(Hostile, FlipSweep) {
  Fixture f;
  std::size_t failures = 0;
  for (std::size_t i = 0; i < f.file.size(); ++i) {
    Bytes b = f.file;
    b[i] ^= 0xFF;
    auto pdb = MsfPdb::parse(b);
    if (pdb.ok()) {
      (void)msf_listing(*pdb);
      continue;
    }
    ++failures;
    ASSERT_NE(pdb.error().code, Errc::kOk) << i;
    ASSERT_FALSE(pdb.error().message.empty()) << i;
  }
  EXPECT_GT(failures, 0u);
}

// The same sweeps over the real Windows PDBs of ../shared/corpus-public/win_* (skipped without
// them): every 7th byte flipped, every 61st prefix.
TEST(Hostile, CorpusSweep) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(ILMAP_MSF_SHARED) / "corpus-public";
  std::vector<fs::path> pdbs;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(root, ec))
    if (d.path().filename().string().rfind("win_", 0) == 0)
      for (const auto& e : fs::directory_iterator(d.path()))
        if (e.path().extension() == ".pdb") pdbs.push_back(e.path());
  if (pdbs.empty()) GTEST_SKIP() << "no win_* PDBs under " << root;
  for (const fs::path& p : pdbs) {
    SCOPED_TRACE(p.filename().string());
    std::ifstream in(p, std::ios::binary);
    const Bytes file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    ASSERT_TRUE(MsfPdb::parse(file).ok());
    for (std::size_t i = 0; i < file.size(); i += 7) {
      Bytes b = file;
      b[i] ^= 0xFF;
      auto pdb = MsfPdb::parse(b);
      if (pdb.ok()) {
        (void)msf_listing(*pdb);
      } else {
        ASSERT_NE(pdb.error().code, Errc::kOk) << i;
        ASSERT_FALSE(pdb.error().message.empty()) << i;
      }
    }
    for (std::size_t n = 0; n < file.size(); n += 61) {
      auto pdb = MsfPdb::parse(std::span<const std::uint8_t>(file.data(), n));
      ASSERT_FALSE(pdb.ok()) << n;  // every block is needed: the superblock counts them
      ASSERT_FALSE(pdb.error().message.empty()) << n;
    }
  }
}
