// PeFileTest.cpp - PeFile over hand-built minimal PE images: the happy path (PE32 and PE32+,
// every debug-directory entry kind) and one test per error path, each asserting its Errc.
#include <gtest/gtest.h>
#include <libdeflate.h>

#include <cstring>
#include <memory>

#include "decode/PeFile.h"

namespace ilmap {
namespace {

constexpr Guid kCvGuid = guid_from_text("3e15b723-55d5-4b27-bbba-ed51547e5544");

struct DebugData {
  std::uint32_t type = 0;
  std::uint16_t major = 0, minor = 0;
  std::uint32_t stamp = 0;
  std::vector<std::uint8_t> data;
};

// One section (.text) at RVA 0x1000, file offset 0x200, holding the debug directory and then
// each entry's data. The optional header is PE32+ (or PE32) with 16 data directories.
struct PeBuilder {
  bool pe32_plus = true;
  std::uint32_t stamp = 0xD9B66F60;
  std::uint32_t size_of_image = 0xA000;
  std::vector<DebugData> entries;

  static constexpr std::uint32_t kLfanew = 0x40, kSectionRva = 0x1000, kSectionRaw = 0x200;
  std::size_t opt_size() const { return pe32_plus ? 240 : 224; }
  std::size_t coff_at() const { return kLfanew + 4; }
  std::size_t opt_at() const { return kLfanew + 24; }
  std::size_t section_table_at() const { return opt_at() + opt_size(); }
  std::size_t dir_at(unsigned i) const { return opt_at() + (pe32_plus ? 112 : 96) + 8 * i; }

  template <class T>
  static void put(std::vector<std::uint8_t>& b, std::size_t at, T v) {
    std::memcpy(b.data() + at, &v, sizeof v);
  }

  std::vector<std::uint8_t> build() const {
    std::vector<std::uint8_t> body(entries.size() * 28);
    std::vector<std::uint32_t> data_at;
    for (const DebugData& e : entries) {
      data_at.push_back(static_cast<std::uint32_t>(body.size()));
      body.insert(body.end(), e.data.begin(), e.data.end());
      body.resize((body.size() + 3) & ~std::size_t(3));
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const DebugData& e = entries[i];
      pe::DebugDirectoryEntry d{0, e.stamp, e.major, e.minor, e.type,
                                static_cast<std::uint32_t>(e.data.size()),
                                e.data.empty() ? 0 : kSectionRva + data_at[i],
                                e.data.empty() ? 0 : kSectionRaw + data_at[i]};
      std::memcpy(body.data() + i * 28, &d, 28);
    }
    const std::uint32_t raw_size = static_cast<std::uint32_t>((body.size() + 0x1FF) & ~std::size_t(0x1FF));
    std::vector<std::uint8_t> b(kSectionRaw + raw_size);
    b[0] = 'M';
    b[1] = 'Z';
    put(b, 0x3C, kLfanew);
    std::memcpy(b.data() + kLfanew, "PE\0\0", 4);
    pe::CoffFileHeader coff{0x8664, 1, stamp, 0, 0, static_cast<std::uint16_t>(opt_size()), 0x22};
    std::memcpy(b.data() + coff_at(), &coff, sizeof coff);
    put(b, opt_at(), pe32_plus ? pe::kPe32PlusMagic : pe::kPe32Magic);
    put(b, opt_at() + 56, size_of_image);
    put(b, opt_at() + (pe32_plus ? 108 : 92), std::uint32_t{16});
    put(b, dir_at(pe::kDirDebug), pe::DataDirectory{kSectionRva, static_cast<std::uint32_t>(entries.size() * 28)});
    pe::SectionHeader s{};
    std::memcpy(s.name, ".text", 5);
    s.virtual_size = static_cast<std::uint32_t>(body.size());
    s.virtual_address = kSectionRva;
    s.size_of_raw_data = raw_size;
    s.pointer_to_raw_data = kSectionRaw;
    std::memcpy(b.data() + section_table_at(), &s, sizeof s);
    if (!body.empty()) std::memcpy(b.data() + kSectionRaw, body.data(), body.size());
    return b;
  }
};

std::vector<std::uint8_t> codeview(const Guid& g, std::uint32_t age, std::string_view path) {
  std::vector<std::uint8_t> d;
  d.reserve(25 + path.size());
  for (char c : std::string_view("RSDS")) d.push_back(static_cast<std::uint8_t>(c));
  for (std::uint8_t x : g) d.push_back(x);
  for (int i = 0; i < 4; ++i) d.push_back(static_cast<std::uint8_t>(age >> (8 * i)));
  d.insert(d.end(), path.begin(), path.end());
  d.push_back(0);
  return d;
}

std::vector<std::uint8_t> deflate(std::span<const std::uint8_t> in) {
  std::unique_ptr<libdeflate_compressor, decltype(&libdeflate_free_compressor)> c(
      libdeflate_alloc_compressor(6), &libdeflate_free_compressor);
  std::vector<std::uint8_t> out(libdeflate_deflate_compress_bound(c.get(), in.size()));
  out.resize(libdeflate_deflate_compress(c.get(), in.data(), in.size(), out.data(), out.size()));
  return out;
}

std::vector<std::uint8_t> mpdb(std::uint32_t declared, std::span<const std::uint8_t> deflated) {
  std::vector<std::uint8_t> d;
  d.reserve(8 + deflated.size());
  for (char c : std::string_view("MPDB")) d.push_back(static_cast<std::uint8_t>(c));
  for (int i = 0; i < 4; ++i) d.push_back(static_cast<std::uint8_t>(declared >> (8 * i)));
  d.insert(d.end(), deflated.begin(), deflated.end());
  return d;
}

std::vector<std::uint8_t> payload() {
  std::vector<std::uint8_t> p(3000);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::uint8_t>("BSJB portable pdb"[i % 17]);
  return p;
}

DebugData embedded_entry(std::vector<std::uint8_t> data) {
  return {pe::kDebugEmbeddedPortablePdb, 0x0100, pe::kEmbeddedPdbMinor, 0, std::move(data)};
}

Errc parse_error(const std::vector<std::uint8_t>& b, const PeOptions& o = {}) {
  auto r = PeFile::parse(b, o);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return Errc::kOk;
  EXPECT_FALSE(r.error().message.empty());
  return r.error().code;
}

TEST(PeFile, ParsesEveryDebugEntryKind) {
  for (bool plus : {true, false}) {
    PeBuilder pb;
    pb.pe32_plus = plus;
    const auto pdb = payload();
    pb.entries.push_back({pe::kDebugCodeView, 0x0100, pe::kPortableCodeViewMinor, 0xbffd2952,
                          codeview(kCvGuid, 1, "C:\\obj\\Foo.pdb")});
    pb.entries.push_back({pe::kDebugCodeView, 0, 0, 0x1234, codeview(kCvGuid, 7, "/x/Win.pdb")});
    pb.entries.push_back({pe::kDebugReproducible, 0, 0, 0, {}});
    pb.entries.push_back(embedded_entry(mpdb(static_cast<std::uint32_t>(pdb.size()), deflate(pdb))));
    std::vector<std::uint8_t> sum{'S', 'H', 'A', '2', '5', '6', 0, 0xAA, 0xBB};
    pb.entries.push_back({pe::kDebugPdbChecksum, 1, 0, 0, sum});
    const auto bytes = pb.build();
    auto f = PeFile::parse(bytes);
    ASSERT_TRUE(f.ok()) << f.error().message;
    const PeInfo& i = f->info();
    EXPECT_EQ(i.pe32_plus, plus);
    EXPECT_EQ(i.machine, 0x8664);
    EXPECT_EQ(i.timestamp, 0xD9B66F60u);
    EXPECT_EQ(i.size_of_image, 0xA000u);
    ASSERT_EQ(i.codeview.size(), 2u);
    EXPECT_TRUE(i.codeview[0].portable());
    EXPECT_EQ(i.codeview[0].guid, kCvGuid);
    EXPECT_EQ(i.codeview[0].stamp, 0xbffd2952u);
    EXPECT_EQ(i.codeview[0].path, "C:\\obj\\Foo.pdb");
    EXPECT_FALSE(i.codeview[1].portable());
    EXPECT_EQ(i.codeview[1].age, 7u);
    EXPECT_TRUE(i.reproducible);
    ASSERT_TRUE(i.embedded_pdb.has_value());
    EXPECT_EQ(i.embedded_pdb->uncompressed_size, pdb.size());
    ASSERT_EQ(i.checksums.size(), 1u);
    EXPECT_EQ(i.checksums[0].algorithm, "SHA256");
    EXPECT_EQ(i.checksums[0].hash, (std::vector<std::uint8_t>{0xAA, 0xBB}));
    EXPECT_FALSE(i.managed);
    auto inflated = f->inflate_embedded_pdb();
    ASSERT_TRUE(inflated.ok()) << inflated.error().message;
    EXPECT_EQ(*inflated, pdb);
  }
}

TEST(PeFile, NoEmbeddedPdbIsNotFound) {
  PeBuilder pb;
  auto f = PeFile::parse(pb.build());
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->inflate_embedded_pdb().error().code, Errc::kNotFound);
}

TEST(PeFile, BadMz) {
  auto b = PeBuilder{}.build();
  b[1] = 'Y';
  EXPECT_EQ(parse_error(b), Errc::kBadMagic);
  EXPECT_EQ(parse_error({}), Errc::kBadMagic);
  EXPECT_EQ(parse_error({'M', 'Z', 0}), Errc::kTruncated);
}

TEST(PeFile, LfanewOutOfRange) {
  auto b = PeBuilder{}.build();
  PeBuilder::put(b, 0x3C, static_cast<std::uint32_t>(b.size() - 2));
  EXPECT_EQ(parse_error(b), Errc::kMalformed);
  PeBuilder::put(b, 0x3C, 0xFFFFFFF0u);
  EXPECT_EQ(parse_error(b), Errc::kMalformed);
}

TEST(PeFile, BadPeSignatureAndOptionalMagic) {
  PeBuilder pb;
  auto b = pb.build();
  b[PeBuilder::kLfanew + 2] = 'X';
  EXPECT_EQ(parse_error(b), Errc::kBadMagic);
  b = pb.build();
  PeBuilder::put(b, pb.opt_at(), std::uint16_t{0x107});
  EXPECT_EQ(parse_error(b), Errc::kBadMagic);
}

TEST(PeFile, SectionTableTruncated) {
  PeBuilder pb;
  auto b = pb.build();
  PeBuilder::put(b, pb.coff_at() + 2, std::uint16_t{0xFFFF});
  EXPECT_EQ(parse_error(b), Errc::kTruncated);
}

TEST(PeFile, NumberOfRvaAndSizesIsRespected) {
  PeBuilder pb;
  pb.entries.push_back({pe::kDebugCodeView, 0x0100, pe::kPortableCodeViewMinor, 1, codeview(kCvGuid, 1, "a.pdb")});
  auto b = pb.build();
  PeBuilder::put(b, pb.opt_at() + 108, std::uint32_t{6});  // directories 0..5: no Debug
  auto f = PeFile::parse(b);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_FALSE(f->directory(pe::kDirDebug).has_value());
  EXPECT_TRUE(f->info().codeview.empty());
  PeBuilder::put(b, pb.opt_at() + 108, std::uint32_t{1000});  // does not fit the optional header
  EXPECT_EQ(parse_error(b), Errc::kMalformed);
}

TEST(PeFile, RvaMappingUsesOnlyFileBackedBytes) {
  PeBuilder pb;
  pb.entries.push_back({pe::kDebugReproducible, 0, 0, 0, {}});
  auto b = pb.build();
  auto f = PeFile::parse(b);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->rva_to_offset(0x1000, 28), std::optional<std::size_t>(0x200));
  EXPECT_EQ(f->rva_to_offset(0x1000, 29), std::nullopt);  // VirtualSize is 28
  EXPECT_EQ(f->rva_to_offset(0xFFF, 1), std::nullopt);
  // SizeOfRawData smaller than VirtualSize: the debug directory is no longer file-backed.
  PeBuilder::put(b, pb.section_table_at() + 16, std::uint32_t{8});
  EXPECT_EQ(parse_error(b), Errc::kTruncated);
}

TEST(PeFile, DebugDirectorySizeNotMultipleOf28) {
  PeBuilder pb;
  pb.entries.push_back({pe::kDebugReproducible, 0, 0, 0, {}});
  auto b = pb.build();
  PeBuilder::put(b, pb.dir_at(pe::kDirDebug) + 4, std::uint32_t{27});
  EXPECT_EQ(parse_error(b), Errc::kMalformed);
}

TEST(PeFile, DebugDataPastTheFile) {
  PeBuilder pb;
  pb.entries.push_back({pe::kDebugCodeView, 0x0100, pe::kPortableCodeViewMinor, 1, codeview(kCvGuid, 1, "a.pdb")});
  auto b = pb.build();
  PeBuilder::put(b, PeBuilder::kSectionRaw + 16, std::uint32_t{0x10000000});  // SizeOfData
  EXPECT_EQ(parse_error(b), Errc::kTruncated);
}

TEST(PeFile, CodeViewTruncated) {
  PeBuilder pb;
  auto cv = codeview(kCvGuid, 1, "a.pdb");
  cv.resize(20);  // RSDS + 16 bytes of GUID, no age
  pb.entries.push_back({pe::kDebugCodeView, 0x0100, pe::kPortableCodeViewMinor, 1, cv});
  EXPECT_EQ(parse_error(pb.build()), Errc::kTruncated);
}

TEST(PeFile, CodeViewPathNotTerminated) {
  PeBuilder pb;
  auto cv = codeview(kCvGuid, 1, "a.pdb");
  cv.pop_back();
  pb.entries.push_back({pe::kDebugCodeView, 0x0100, pe::kPortableCodeViewMinor, 1, cv});
  EXPECT_EQ(parse_error(pb.build()), Errc::kMalformed);
}

TEST(PeFile, EmbeddedPdbWrongDeclaredSize) {
  const auto pdb = payload();
  const auto z = deflate(pdb);
  for (std::uint32_t declared : {std::uint32_t(pdb.size() + 1), std::uint32_t(pdb.size() - 1)}) {
    PeBuilder pb;
    pb.entries.push_back(embedded_entry(mpdb(declared, z)));
    const auto b = pb.build();
    auto f = PeFile::parse(b);
    ASSERT_TRUE(f.ok()) << f.error().message;
    EXPECT_EQ(f->inflate_embedded_pdb().error().code, Errc::kMalformed) << declared;
  }
}

TEST(PeFile, EmbeddedPdbDataRemainAfterTheStream) {
  const auto pdb = payload();
  auto z = deflate(pdb);
  z.push_back(0);
  PeBuilder pb;
  pb.entries.push_back(embedded_entry(mpdb(static_cast<std::uint32_t>(pdb.size()), z)));
  const auto b = pb.build();
  auto f = PeFile::parse(b);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->inflate_embedded_pdb().error().code, Errc::kMalformed);
}

TEST(PeFile, EmbeddedPdbCorruptDeflate) {
  PeBuilder pb;
  // BFINAL=1, BTYPE=11 (reserved): invalid from the first bits.
  pb.entries.push_back(embedded_entry(mpdb(100, std::vector<std::uint8_t>{0x07, 0x00, 0x11, 0x22})));
  const auto b = pb.build();
  auto f = PeFile::parse(b);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->inflate_embedded_pdb().error().code, Errc::kMalformed);
}

TEST(PeFile, EmbeddedPdbOverTheCap) {
  PeBuilder pb;
  pb.entries.push_back(embedded_entry(mpdb(4096, deflate(payload()))));
  PeOptions o;
  o.max_embedded_pdb = 1024;
  EXPECT_EQ(parse_error(pb.build(), o), Errc::kTooLarge);
  EXPECT_TRUE(PeFile::parse(pb.build()).ok());  // the default cap allows it
}

TEST(PeFile, EmbeddedPdbHeaderErrors) {
  PeBuilder pb;
  pb.entries.push_back(embedded_entry({'M', 'P', 'D', 'X', 1, 0, 0, 0, 0}));
  EXPECT_EQ(parse_error(pb.build()), Errc::kBadMagic);
  pb.entries = {embedded_entry({'M', 'P', 'D', 'B', 1})};
  EXPECT_EQ(parse_error(pb.build()), Errc::kTruncated);
  pb.entries = {embedded_entry(mpdb(0, {}))};
  EXPECT_EQ(parse_error(pb.build()), Errc::kMalformed);
  auto e = embedded_entry(mpdb(10, {}));
  e.minor = 0x0101;
  pb.entries = {e};
  EXPECT_EQ(parse_error(pb.build()), Errc::kBadVersion);
}

TEST(PeFile, PdbChecksumNeedsNameAndHash) {
  PeBuilder pb;
  pb.entries.push_back({pe::kDebugPdbChecksum, 1, 0, 0, {'S', 'H', 'A', '2', '5', '6', 0}});
  EXPECT_EQ(parse_error(pb.build()), Errc::kMalformed);
  pb.entries = {{pe::kDebugPdbChecksum, 1, 0, 0, {0, 1, 2}}};
  EXPECT_EQ(parse_error(pb.build()), Errc::kMalformed);
}

// Every truncation of a valid image either parses or fails with a code, never crashes.
TEST(PeFile, TruncationSweep) {
  PeBuilder pb;
  pb.entries.push_back({pe::kDebugCodeView, 0x0100, pe::kPortableCodeViewMinor, 1, codeview(kCvGuid, 1, "a.pdb")});
  pb.entries.push_back(embedded_entry(mpdb(3000, deflate(payload()))));
  const auto b = pb.build();
  for (std::size_t n = 0; n < b.size(); ++n) {
    std::vector<std::uint8_t> t(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
    auto f = PeFile::parse(t);
    if (f.ok()) (void)f->inflate_embedded_pdb();
  }
}

}  // namespace
}  // namespace ilmap
