// MsfzTest.cpp - MSFZ containers (.pdz) read through MsfFile: the same streams and listing as
// the MSF PDB they hold (built by MsfzWriter.h, and the real HelloWorld.pdz of dotnet/diagnostics
// where ../shared is present), chunks unpacked lazily and once, one error code per corruption,
// and a truncate/flip sweep that only ever gives an error with a message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "MsfzWriter.h"
#include "decode/SymstoreKeys.h"
#include "decode/msf/MsfPdb.h"

using namespace ilmap;
using namespace ilmap::msf;
using namespace ilmap::msf::test;
namespace fs = std::filesystem;

namespace {

Pdb sample() {
  Pdb p;
  Module m;
  m.files = {"C:\\src\\A.cs", "C:\\src\\B.cs"};
  m.procs = {{0x06000001, 0, 20}, {0x06000002, 20, 30}};
  Lines l1{0, 1, true, 20, {}};
  l1.blocks.push_back({0, {{0, 10, 10, 5, 9}, {3, kHiddenLine, kHiddenLine, 0, 0}, {6, 11, 13, 1, 2}}});
  l1.blocks.push_back({1, {{12, 7, 7, 3, 4}}});
  Lines l2{20, 1, false, 30, {}};
  l2.blocks.push_back({1, {{0, 20, 21}, {4, 22, 22}}});
  m.lines = {l1, l2};
  m.checksum = std::vector<std::uint8_t>(20, 0xAB);
  p.modules.push_back(m);
  return p;
}

struct Pair {
  Bytes msf, msfz;
  MsfzLayout layout;
};

Pair sample_pair(MsfzOptions o = {}) {
  Pair p;
  p.msf = write_pdb(sample());
  auto f = MsfFile::parse(p.msf);
  EXPECT_TRUE(f.ok());
  p.msfz = write_msfz(*f, o, &p.layout);
  return p;
}

// Streams from `first` on (stream 0, the MSF's old directory, is not carried over into MSFZ by
// every writer: HelloWorld.pdz has it empty).
void expect_same_streams(const MsfFile& a, const MsfFile& b, std::uint32_t first = 0) {
  ASSERT_EQ(a.stream_count(), b.stream_count());
  for (std::uint32_t i = first; i < a.stream_count(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(a.has_stream(i), b.has_stream(i));
    if (!a.has_stream(i)) continue;
    auto x = a.read_stream(i);
    auto y = b.read_stream(i);
    ASSERT_TRUE(x.ok() && y.ok());
    EXPECT_EQ(*x, *y);
  }
}

void patch32(Bytes& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
void patch64(Bytes& b, std::size_t at, std::uint64_t v) { std::memcpy(b.data() + at, &v, 8); }

void expect_error(const Bytes& b, Errc code, const std::string& text) {
  auto pdb = MsfPdb::parse(b);
  ASSERT_FALSE(pdb.ok()) << "expected: " << text;
  EXPECT_EQ(pdb.error().code, code) << pdb.error().message;
  EXPECT_NE(pdb.error().message.find(text), std::string::npos) << pdb.error().message;
}

Bytes read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(Msfz, SameStreamsAndListingAsMsf) {
  for (bool packed_dir : {false, true}) {
    for (std::uint32_t chunk : {16u, 64u, 100000u}) {
      SCOPED_TRACE(chunk);
      const Pair p = sample_pair({chunk, packed_dir});
      auto a = MsfPdb::parse(p.msf);
      auto b = MsfPdb::parse(p.msfz);
      ASSERT_TRUE(a.ok()) << a.error().message;
      ASSERT_TRUE(b.ok()) << b.error().message;
      EXPECT_TRUE(b->msf().is_msfz());
      EXPECT_STREQ(b->msf().container_name(), "MSFZ");
      EXPECT_STREQ(a->msf().container_name(), "MSF 7.00");
      EXPECT_EQ(msf_listing(*a), msf_listing(*b));
      EXPECT_EQ(a->guid(), b->guid());
      EXPECT_EQ(a->age(), b->age());
      expect_same_streams(a->msf(), b->msf());
    }
  }
}

TEST(Msfz, ChunksUnpackedOnlyWhenNeededAndOnce) {
  const Pair p = sample_pair({16, false});
  auto f = MsfFile::parse(p.msfz);
  ASSERT_TRUE(f.ok()) << f.error().message;
  const MsfzFile* z = f->msfz();
  ASSERT_NE(z, nullptr);
  ASSERT_GT(z->chunk_count(), 4u);
  EXPECT_EQ(z->chunks_unpacked(), 0u);  // parse reads the tables only
  // Stream 1 (PDB info) is stored plain: no chunk.
  ASSERT_TRUE(f->read_stream(1).ok());
  EXPECT_EQ(z->chunks_unpacked(), 0u);
  ASSERT_TRUE(f->read_stream(3).ok());  // DBI: compressed, several chunks
  const std::uint32_t after = z->chunks_unpacked();
  EXPECT_GT(after, 0u);
  EXPECT_LT(after, z->chunk_count());
  ASSERT_TRUE(f->read_stream(3).ok());
  EXPECT_EQ(z->chunks_unpacked(), after);
  EXPECT_NE(f->where(3, 5).find("MSFZ chunk"), std::string::npos) << f->where(3, 5);
  EXPECT_NE(f->where(1, 5).find("file offset"), std::string::npos) << f->where(1, 5);
}

TEST(Msfz, HeaderErrors) {
  const Pair p = sample_pair();
  Bytes b = p.msfz;
  b.resize(60);
  expect_error(b, Errc::kTruncated, "MSFZ header at file offset 0x0: needs 80 bytes");
  b = p.msfz;
  patch64(b, 32, 1);
  expect_error(b, Errc::kBadVersion, "version 1");
  b = p.msfz;
  patch32(b, 72, get_u32(b, 72) + 1);  // a chunk count that lies about the table
  expect_error(b, Errc::kMalformed, "chunk table of");
  b = p.msfz;
  patch32(b, 72, get_u32(b, 72) + 1);
  patch32(b, 76, get_u32(b, 76) + 20);  // both lie: the table runs past the file
  expect_error(b, Errc::kTruncated, "MSFZ chunk table");
  b = p.msfz;
  patch32(b, 56, 0);
  expect_error(b, Errc::kMalformed, "0 streams");
  b = p.msfz;
  patch32(b, 56, 0x40000000);
  expect_error(b, Errc::kMalformed, "streams need at least");
  b = p.msfz;
  patch32(b, 60, 2);
  expect_error(b, Errc::kUnsupported, "deflate");
  b = p.msfz;
  patch64(b, 40, 0xFFFFFFFFFFFFFFF0ull);
  expect_error(b, Errc::kTruncated, "MSFZ stream directory");
}

TEST(Msfz, ChunkErrorsAndDecompressionBomb) {
  const Pair p = sample_pair();
  const std::size_t e = p.layout.table_offset;  // chunk 0's entry
  Bytes b = p.msfz;
  patch32(b, e + 16, 0xFFFFFFFFu);  // a few dozen bytes claiming 4 GiB
  expect_error(b, Errc::kMalformed, "cannot come out of");
  b = p.msfz;
  patch32(b, e + 16, get_u32(b, e + 16) + 1);  // within the ratio, but not what the frame says
  expect_error(b, Errc::kMalformed, "its zstd frame records");
  b = p.msfz;
  patch32(b, e + 8, 7);
  expect_error(b, Errc::kUnsupported, "compression 7");
  b = p.msfz;
  patch32(b, e + 12, 0);
  expect_error(b, Errc::kMalformed, "neither may be 0");
  b = p.msfz;
  patch64(b, e, b.size() - 2);
  expect_error(b, Errc::kTruncated, "MSFZ chunk 0");
  b = p.msfz;
  patch64(b, e, p.layout.chunk_offsets[1]);  // two chunks on the same bytes
  expect_error(b, Errc::kMalformed, "overlaps");
  b = p.msfz;
  patch64(b, e, 0);  // a chunk on the header
  expect_error(b, Errc::kMalformed, "overlaps the MSFZ header");
  // A chunk whose bytes are not zstd at all: its frame is refused before anything is allocated.
  b = p.msfz;
  b[p.layout.chunk_offsets[0]] ^= 0xFF;
  expect_error(b, Errc::kMalformed, "not a zstd frame");
}

TEST(Msfz, DirectoryErrors) {
  const Pair p = sample_pair();
  const std::size_t d = p.layout.dir_offset;
  // Stream 0 is nil (0xFFFFFFFF); stream 1 is plain: size, location, then 0.
  Bytes b = p.msfz;
  patch64(b, d + 8, (1ull << 63) | (0x1000ull << 32));  // compressed, chunk 0x1000
  expect_error(b, Errc::kMalformed, "outside the chunks");
  b = p.msfz;
  patch64(b, d + 8, get_u32(b, d + 8) | (1ull << 50));  // a reserved bit
  expect_error(b, Errc::kMalformed, "reserved bits 48-62");
  b = p.msfz;
  patch64(b, d + 8, b.size() - 4);
  expect_error(b, Errc::kTruncated, "uncompressed fragment");
  b = p.msfz;
  patch64(b, d + 8, 0);  // plain bytes on the header
  expect_error(b, Errc::kMalformed, "overlaps");
  b = p.msfz;
  patch32(b, d + 16, 0xFFFFFFFFu);  // a nil marker as a second fragment's size
  expect_error(b, Errc::kMalformed, "after its first fragment");
  b = p.msfz;
  patch32(b, 56, get_u32(b, 56) - 1);  // one stream fewer: the last one's bytes are left over
  expect_error(b, Errc::kMalformed, "left over after the last");
  b = p.msfz;
  patch32(b, 56, get_u32(b, 56) + 1);  // one stream more than the directory holds
  expect_error(b, Errc::kTruncated, "the directory ends");
}

TEST(Msfz, FragmentsRunningPastTheChunksOrOverlapping) {
  const Pair p = sample_pair({16, false});
  // The compressed fragments' records, read from the (uncompressed) directory: where the size
  // field is, the size and the location.
  struct Rec { std::size_t at; std::uint32_t size; std::uint64_t loc; };
  std::vector<Rec> recs;
  std::size_t at = p.layout.dir_offset;
  const std::uint32_t streams = get_u32(p.msfz, 56);
  for (std::uint32_t i = 0; i < streams; ++i) {
    std::uint32_t size = get_u32(p.msfz, at);
    at += 4;
    if (size == 0xFFFFFFFFu) continue;
    while (size != 0) {
      std::uint64_t loc;
      std::memcpy(&loc, p.msfz.data() + at, 8);
      if (loc >> 63) recs.push_back({at - 4, size, loc});
      at += 8;
      size = get_u32(p.msfz, at);
      at += 4;
    }
  }
  ASSERT_GE(recs.size(), 2u);
  Bytes b = p.msfz;
  patch32(b, recs[0].at, 0x7FFFFFF0u);
  expect_error(b, Errc::kMalformed, "runs past the last chunk");
  // The first compressed fragment moved onto the last one's bytes (shortened to fit there).
  b = p.msfz;
  patch32(b, recs[0].at, std::min(recs[0].size, recs.back().size));
  patch64(b, recs[0].at + 4, recs.back().loc);
  expect_error(b, Errc::kMalformed, "overlaps");
}

// Every truncation (each chunk boundary among them) and every byte of the header, the
// directory and the chunk table flipped: MsfPdb::parse gives a result or an error with a code
// and a message; a result's streams read back at their sizes or fail with a code.
TEST(Msfz, TruncateAndFlipSweep) {
  for (bool packed_dir : {false, true}) {
    const Pair p = sample_pair({32, packed_dir});
    auto check = [](const Bytes& b) {
      auto pdb = MsfPdb::parse(b);
      if (!pdb) {
        EXPECT_NE(pdb.error().code, Errc::kOk);
        EXPECT_FALSE(pdb.error().message.empty());
        return;
      }
      const MsfFile& f = pdb->msf();
      for (std::uint32_t i = 0; i < f.stream_count(); ++i) {
        auto s = f.read_stream(i);
        if (s) EXPECT_EQ(s->size(), f.stream_size(i));
        else EXPECT_FALSE(s.error().message.empty());
      }
    };
    for (std::size_t n = 0; n < p.msfz.size(); ++n) check(Bytes(p.msfz.begin(), p.msfz.begin() + n));
    for (std::size_t c : p.layout.chunk_offsets) {
      auto r = MsfPdb::parse(Bytes(p.msfz.begin(), p.msfz.begin() + static_cast<std::ptrdiff_t>(c)));
      EXPECT_FALSE(r.ok());
    }
    std::vector<std::size_t> spots;
    for (std::size_t i = 0; i < 80; ++i) spots.push_back(i);
    for (std::size_t i = 0; i < p.layout.dir_size; ++i) spots.push_back(p.layout.dir_offset + i);
    for (std::size_t i = p.layout.table_offset; i < p.msfz.size(); ++i) spots.push_back(i);
    for (std::size_t at : spots)
      for (std::uint8_t mask : {0x01, 0x80, 0xFF}) {
        Bytes b = p.msfz;
        b[at] ^= mask;
        check(b);
      }
  }
}

TEST(Msfz, KeyInsertsTheContainerKind) {
  const Guid g = guid_from_text("99891b3e-d7ae-4c3b-abff-8a2b4a9b0c43");
  EXPECT_EQ(ssqp_msfz_pdb_key("TestBinaries/HelloWorld.pdz", g, 1),
            "helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/msfz0/helloworld.pdb");
  EXPECT_EQ(ssqp_msfz_pdb_key("C:\\x\\HelloWorld.pdb", g, 0x1a),
            "helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431a/msfz0/helloworld.pdb");
}

// dotnet/diagnostics' HelloWorld.pdz: the streams, listing and identity of HelloWorld.pdb.
TEST(Msfz, CorpusHelloWorld) {
  const fs::path dir = fs::path(ILMAP_MSF_SHARED) / "corpus-more" / "msfz_diagnostics_HelloWorld";
  std::error_code ec;
  if (!fs::exists(dir / "HelloWorld.pdz", ec)) GTEST_SKIP() << "no " << dir.string();
  const Bytes z = read_file(dir / "HelloWorld.pdz");
  const Bytes m = read_file(dir / "HelloWorld.pdb");
  auto a = MsfPdb::parse(m);
  auto b = MsfPdb::parse(z);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_TRUE(b->msf().is_msfz());
  EXPECT_EQ(b->msf().stream_count(), 14u);
  expect_same_streams(a->msf(), b->msf(), 1);
  EXPECT_EQ(msf_listing(*a), msf_listing(*b));
  std::ifstream in(dir / "expected-sequence-points.txt");
  std::string line, expected;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') expected += line + "\n";
  EXPECT_EQ(msf_listing(*b), expected);
  EXPECT_EQ(ssqp_msfz_pdb_key("HelloWorld.pdz", b->guid(), b->age()),
            "helloworld.pdb/99891b3ed7ae4c3babff8a2b4a9b0c431/msfz0/helloworld.pdb");
}
