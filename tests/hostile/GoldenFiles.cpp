// GoldenFiles.cpp - builds each golden bad file from a valid minimal PDB, PE or cache and one
// deliberate defect (see GoldenFiles.h).
#include "GoldenFiles.h"

#include <libdeflate.h>
#include <xxhash.h>

#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>

#include "compiler/CacheBuilder.h"
#include "decode/PeFile.h"
#include "decode/PortablePdb.h"
#include "format/ilmap_format.h"
#include "ilmap_generated.h"
#include "tests/common/TestEncoders.h"

namespace ilmap::hostile {
namespace {

using test::Bytes;
using test::MiniPdb;
using test::SpBlob;

// One document, one method with two visible points and one hidden point.
MiniPdb mini(const Bytes& sp) {
  MiniPdb m;
  const std::uint32_t name = m.add_name('/', {"", "src", "a.cs"});
  m.add_document(name);
  m.add_method(1, m.blobs.add(sp));
  return m;
}
Bytes good_sp() {
  SpBlob s;
  s.u(0)                // LocalSignature
      .u(0).u(0).u(5).u(10).u(9)  // IL 0: lines +0, cols 5 -> (10,9)-(10,14)
      .u(4).u(0).u(0)             // IL 4: hidden
      .u(3).u(1).s(2).s(1).s(0);  // IL 7: one more line
  return s.b;
}
Bytes pdb_bytes(const MiniPdb& m) { return m.image().build(); }

template <class T>
void put(Bytes& b, std::size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}
// Absolute offset of the stream header (offset field) of stream `index` in a MetadataImage
// with version "PDB v1.0" (12 + 4 + 12 bytes of root, then 2+2).
std::size_t stream_header_at(const test::MetadataImage& img, std::size_t index) {
  std::size_t at = 32;
  for (std::size_t i = 0; i < index; ++i) at += 8 + ((img.streams[i].name.size() + 1 + 3) & ~std::size_t(3));
  return at;
}

Bytes deflate(std::span<const std::uint8_t> in) {
  std::unique_ptr<libdeflate_compressor, decltype(&libdeflate_free_compressor)> c(
      libdeflate_alloc_compressor(6), &libdeflate_free_compressor);
  Bytes out(libdeflate_deflate_compress_bound(c.get(), in.size()));
  out.resize(libdeflate_deflate_compress(c.get(), in.data(), in.size(), out.data(), out.size()));
  return out;
}

// A PE32+ image with one section holding a debug directory of one EmbeddedPortablePdb entry
// whose data is `mpdb` (layout as tests/pe/PeFileTest.cpp's PeBuilder).
Bytes pe_with_embedded(const Bytes& mpdb, std::uint32_t lfanew = 0x40) {
  constexpr std::uint32_t kRva = 0x1000, kRaw = 0x200, kOpt = 240;
  Bytes body(28);
  body.insert(body.end(), mpdb.begin(), mpdb.end());
  const auto raw_size = static_cast<std::uint32_t>((body.size() + 0x1FF) & ~std::size_t(0x1FF));
  pe::DebugDirectoryEntry d{0, 0, 0x0100, pe::kEmbeddedPdbMinor, pe::kDebugEmbeddedPortablePdb,
                            static_cast<std::uint32_t>(mpdb.size()), kRva + 28, kRaw + 28};
  std::memcpy(body.data(), &d, 28);
  Bytes b(kRaw + raw_size);
  b[0] = 'M';
  b[1] = 'Z';
  put(b, 0x3C, lfanew);
  std::memcpy(b.data() + 0x40, "PE\0\0", 4);
  pe::CoffFileHeader coff{0x8664, 1, 0x12345678, 0, 0, kOpt, 0x22};
  std::memcpy(b.data() + 0x44, &coff, sizeof coff);
  const std::size_t opt = 0x58;
  put(b, opt, pe::kPe32PlusMagic);
  put(b, opt + 56, std::uint32_t{0x4000});
  put(b, opt + 108, std::uint32_t{16});
  put(b, opt + 112 + 8 * pe::kDirDebug, pe::DataDirectory{kRva, 28});
  pe::SectionHeader s{};
  std::memcpy(s.name, ".text", 5);
  s.virtual_size = static_cast<std::uint32_t>(body.size());
  s.virtual_address = kRva;
  s.size_of_raw_data = raw_size;
  s.pointer_to_raw_data = kRaw;
  std::memcpy(b.data() + opt + kOpt, &s, sizeof s);
  std::memcpy(b.data() + kRaw, body.data(), body.size());
  return b;
}
Bytes mpdb(std::uint32_t declared, const Bytes& deflated) {
  Bytes d{'M', 'P', 'D', 'B'};
  test::put_u32(d, declared);
  d.insert(d.end(), deflated.begin(), deflated.end());
  return d;
}

// The EmbeddedSource CDI kind 0e8a571b-6926-466e-b4ad-8ab04611f5fe in #GUID (on-disk) order.
constexpr std::uint8_t kEmbeddedSourceKind[16] = {0x1b, 0x57, 0x8a, 0x0e, 0x26, 0x69, 0x6e, 0x46,
                                                  0xb4, 0xad, 0x8a, 0xb0, 0x46, 0x11, 0xf5, 0xfe};

}  // namespace

Bytes embedded_sources_pdb(unsigned documents, unsigned distinct, std::size_t source_size) {
  MiniPdb m;
  m.guids.b.insert(m.guids.b.end(), std::begin(kEmbeddedSourceKind), std::end(kEmbeddedSourceKind));
  std::vector<std::uint32_t> blobs;
  for (unsigned k = 0; k < distinct; ++k) {
    std::string text = "// source " + std::to_string(k) + "\n";
    while (text.size() < source_size) text += "class C { }  // generated line\n";
    text.resize(source_size);
    Bytes blob;
    test::put_u32(blob, static_cast<std::uint32_t>(source_size));  // format > 0: deflated, this size
    const Bytes z = deflate({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
    blob.insert(blob.end(), z.begin(), z.end());
    blobs.push_back(m.blobs.add(blob));
  }
  for (unsigned d = 0; d < documents; ++d)
    m.add_document(m.add_name('/', {"", "src", "f" + std::to_string(d) + ".cs"}));
  m.add_method(1, m.blobs.add(good_sp()));
  // CustomDebugInformation (0x37), sorted by Parent: Parent (HasCustomDebugInformation, tag 22 =
  // Document), Kind (#GUID index 1), Value (#Blob): document d uses blob d % distinct.
  Bytes cdi;
  for (unsigned d = 0; d < documents; ++d) {
    test::put_u16(cdi, static_cast<std::uint16_t>(((d + 1) << 5) | 22));
    test::put_u16(cdi, 1);
    test::put_u16(cdi, static_cast<std::uint16_t>(blobs[d % distinct]));
  }
  auto img = m.image();
  test::TableStream ts;
  ts.rows = {{0x30, m.documents}, {0x31, m.methods}, {0x37, documents}};
  ts.sorted = std::uint64_t(1) << 0x37;
  ts.data = m.document_rows;
  ts.data.insert(ts.data.end(), m.method_rows.begin(), m.method_rows.end());
  ts.data.insert(ts.data.end(), cdi.begin(), cdi.end());
  img.stream("#~").data = ts.build();
  return img.build();
}

namespace {

Bytes cache_bytes() {
  const Bytes pdb = pdb_bytes(mini(good_sp()));
  auto parsed = PortablePdb::parse(pdb);
  if (!parsed) throw std::runtime_error("golden: mini PDB does not parse: " + parsed.error().message);
  CacheSource cs;
  cs.pdb = &*parsed;
  cs.source_name = "mini.pdb";
  auto c = build_cache(cs, CacheBuildOptions{});
  if (!c) throw std::runtime_error("golden: mini cache does not build: " + c.error().message);
  return c->to_vector();
}

// Damage to the cache `good` (its payload after the 32-byte header), one structure at a time.
struct CacheDamage {
  Bytes b;
  const fb::Cache* root;
  explicit CacheDamage(const Bytes& good) : b(good), root(fb::GetCache(b.data() + 32)) {}  // b: declared first
  std::size_t at(const void* p) const { return static_cast<std::size_t>(static_cast<const std::uint8_t*>(p) - b.data()); }
  // Marks root field `field` (a VT_ constant) absent, as a writer that never wrote it would.
  CacheDamage& drop(std::uint16_t field) {
    const std::size_t table = at(root);
    std::int32_t back;
    std::memcpy(&back, b.data() + table, 4);
    const std::size_t vtable = table - static_cast<std::size_t>(static_cast<std::ptrdiff_t>(back));
    std::uint16_t vsize;
    std::memcpy(&vsize, b.data() + vtable, 2);
    if (field + 2u > vsize) throw std::runtime_error("golden: root field absent from the vtable");
    put(b, vtable + field, std::uint16_t{0});
    return *this;
  }
  // The payload checksum made valid again, so that verify reaches the damaged structure.
  Bytes sealed() {
    put(b, 24, XXH3_64bits(b.data() + 32, b.size() - 32));
    return b;
  }
};

}  // namespace

std::vector<GoldenFile> golden_files() {
  std::vector<GoldenFile> out;
  auto add = [&](std::string name, std::string cmd, int rc, std::string frag, Bytes b) {
    out.push_back({std::move(name), std::move(cmd), rc, std::move(frag), std::move(b)});
  };
  auto bad_cache = [&](std::string name, std::string frag, CacheStructure where, Bytes b) {
    out.push_back({std::move(name), "verify", 2, std::move(frag), std::move(b), where});
  };
  const MiniPdb good = mini(good_sp());
  const Bytes good_pdb = pdb_bytes(good);
  add("good.pdb", "dump", 0, "", good_pdb);

  {  // BSJB signature wrong (one byte): not recognised as any input kind.
    Bytes b = good_pdb;
    b[3] = 'X';
    add("bad-bsjb.pdb", "dump", 2, "not a Portable PDB (BSJB)", b);
  }
  {  // Cut in the middle of the first stream header.
    const auto img = good.image();
    Bytes b = good_pdb;
    b.resize(stream_header_at(img, 0) + 6);
    add("truncated-stream-header.pdb", "dump", 2, "stream header 0 at offset 0x20: truncated", b);
  }
  {  // #Blob (last stream) declares a size past the end of the metadata.
    auto img = good.image();
    img.stream("#Blob").declared_size = 0x10000;
    add("stream-past-end.pdb", "dump", 2, "exceeds metadata size", img.build());
  }
  {  // MethodDebugInformation claims 4000 rows: the table runs past the #~ stream.
    MiniPdb m = good;
    m.pdb.external = {{0x06, 4000}};
    auto img = m.image();
    Bytes t = m.tables.build();
    test::TableStream ts;
    ts.rows = {{0x30, 1}, {0x31, 4000}};
    ts.data = m.document_rows;
    ts.data.insert(ts.data.end(), m.method_rows.begin(), m.method_rows.end());
    img.stream("#~").data = ts.build();
    add("table-past-stream-end.pdb", "dump", 2, "past the stream size", img.build());
  }
  {  // The document name blob's length prefix claims more bytes than the heap holds.
    MiniPdb m;
    m.blobs.b.push_back(0x7F);  // blob at offset 1: length 127, heap ends right after
    m.add_document(1);
    m.add_method(0, 0);
    add("bad-blob-length.pdb", "dump", 2, "#Blob offset 0x1", pdb_bytes(m));
  }
  {  // A document record naming Document row 5 of 1.
    SpBlob s;
    s.u(0).u(0).u(0).u(1).u(1).u(1).u(0).u(5).u(2).u(0).u(1).s(1).s(0);
    add("sp-bad-document.pdb", "dump", 2, "document rid is 0 or beyond the Document table", pdb_bytes(mini(s.b)));
  }
  {  // Start line 0xfeefed + 1 delta line: end line reaches the hidden-line sentinel.
    SpBlob s;
    s.u(0).u(0).u(1).s(1).u(0xFEEFED).u(1);
    add("sp-line-overflow.pdb", "dump", 2, "line out of range", pdb_bytes(mini(s.b)));
  }
  {  // Start column 0x10000.
    SpBlob s;
    s.u(0).u(0).u(0).u(1).u(1).u(0x10000);
    add("sp-column-overflow.pdb", "dump", 2, "column out of range", pdb_bytes(mini(s.b)));
  }

  const Bytes deflated = deflate(good_pdb);
  add("good-embedded.dll", "dump", 0, "", pe_with_embedded(mpdb(static_cast<std::uint32_t>(good_pdb.size()), deflated)));
  add("pe-bad-lfanew.dll", "info", 2, "e_lfanew 0xfffffff0 points outside the file",
      pe_with_embedded(mpdb(static_cast<std::uint32_t>(good_pdb.size()), deflated), 0xFFFFFFF0u));
  add("pe-mpdb-wrong-size.dll", "dump", 2, "inflates to 0x",
      pe_with_embedded(mpdb(static_cast<std::uint32_t>(good_pdb.size()) + 16, deflated)));
  {
    Bytes bad = deflated;
    bad[0] = 0xFF;  // BTYPE 11 (reserved) in the first block header
    add("pe-corrupt-deflate.dll", "dump", 2, "deflate data are corrupt",
        pe_with_embedded(mpdb(static_cast<std::uint32_t>(good_pdb.size()), bad)));
  }
  add("pe-mpdb-too-large.dll", "dump", 2, "over the limit",
      pe_with_embedded(mpdb(0x7FFFFFF0u, deflated)));
  add("pe-mpdb-impossible-ratio.dll", "dump", 2, "cannot inflate to more than 1032:1",
      pe_with_embedded(mpdb(64u << 20, deflated)));

  {  // A document name with a newline, ESC, NUL and an invalid UTF-8 byte: text output escapes
     // them (dump listing and --documents), JSON carries them (issue 9 item 10).
    MiniPdb m;
    m.add_document(m.add_name('/', {"", std::string("new\nline", 8), std::string("\x1b[31mred\0nul\xff.cs", 16)}));
    m.add_method(1, m.blobs.add(good_sp()));
    add("control-chars-name.pdb", "dump", 0, "", pdb_bytes(m));
  }
  // 40 documents whose EmbeddedSource CDIs all point at one blob inflating to 64 KiB: inflated
  // once, so a 100 KiB budget is enough; 3 documents with 3 distinct 64 KiB blobs exceed it.
  // (EmbeddedSourceBudgetTest.cpp does the same with 100 documents and 1 MiB.)
  add("embedded-source-shared.pdb", "dump --documents --max-decompressed 100KiB", 0, "",
      embedded_sources_pdb(40, 1, 64u << 10));
  add("embedded-source-over-budget.pdb", "dump --documents --max-decompressed 100KiB", 2,
      "over the total limit of 102400", embedded_sources_pdb(3, 3, 64u << 10));
  add("pe-mpdb-over-cap-info.dll", "info --max-decompressed 100", 2, "over the limit of 0x64",
      pe_with_embedded(mpdb(static_cast<std::uint32_t>(good_pdb.size()), deflated)));

  {  // Document-name bomb (once `ilmap dump --documents` grew past 10 GB RSS): 64 Document rows
     // share one name of 16000 parts, each the same 16000-byte blob, so 256 MB per name and 16 GB
     // joined from a 32 KiB PDB; PortablePdb::name_budget refuses it (kTooLarge).
    MiniPdb m;
    const std::uint32_t part = m.blobs.add(std::string(16000, 'a'));
    Bytes name{'/'};
    for (int i = 0; i < 16000; ++i) test::put_compressed(name, part);
    const std::uint32_t name_blob = m.blobs.add(name);
    for (int d = 0; d < 64; ++d) m.add_document(name_blob);
    m.add_method(1, m.blobs.add(good_sp()));
    add("document-name-bomb.pdb", "dump --documents", 2, "joined document names exceed", pdb_bytes(m));
  }

  const Bytes cache = cache_bytes();
  add("good.ilmap", "verify", 0, "", cache);
  {
    Bytes b = cache;
    b[0] ^= 0xFF;
    bad_cache("cache-bad-magic.ilmap", "not an ilmap cache", CacheStructure::kHeader, b);
  }
  {
    Bytes b = cache;
    put(b, 8, std::uint16_t{7});
    bad_cache("cache-wrong-version.ilmap", "format version 7.", CacheStructure::kHeader, b);
  }
  {
    Bytes b = cache;
    b.resize(b.size() - 9);
    bad_cache("cache-truncated.ilmap", "payload size", CacheStructure::kHeader, b);
  }
  {  // Last payload byte flipped (inside FlatBuffers padding/data, not a structural offset).
    Bytes b = cache;
    put(b, 24, ~std::uint64_t(0) ^ 0x1234);
    bad_cache("cache-checksum-mismatch.ilmap", "payload checksum mismatch", CacheStructure::kPayload, b);
  }
  // One cache per structure that the minimal cache has (it has no names, hidden_points or packed
  // sections: tests/reader/CorruptTest.cpp covers those on a corpus cache).
  {
    CacheDamage c(cache);
    put(c.b, c.at(c.root->method_groups()->Data()), std::uint32_t{1});  // group 0's base must be 0
    bad_cache("cache-directory-base.ilmap", "method directory group 0", CacheStructure::kMethodDirectory, c.sealed());
  }
  bad_cache("cache-no-profile-index.ilmap", "block_profile_index", CacheStructure::kBlockProfiles,
            CacheDamage(cache).drop(fb::Cache::VT_BLOCK_PROFILE_INDEX).sealed());
  {
    CacheDamage c(cache);
    c.b[c.at(c.root->point_blocks()->data()) + c.root->point_blocks()->size() - 1] = 1;
    bad_cache("cache-tail-padding.ilmap", "tail padding is not zero", CacheStructure::kPointBlocks, c.sealed());
  }
  {
    CacheDamage c(cache);
    c.b[c.at(c.root->documents()->Data()) + 16] = 0x7F;  // DocumentRef.language of document 0
    bad_cache("cache-document-language.ilmap", "unknown language code", CacheStructure::kDocuments, c.sealed());
  }
  bad_cache("cache-no-details.ilmap", "details section is missing", CacheStructure::kDetails,
            CacheDamage(cache).drop(fb::Cache::VT_DETAILS).drop(fb::Cache::VT_DETAILS_ZSTD).sealed());
  bad_cache("cache-no-identity.ilmap", "identity: PDB id missing", CacheStructure::kIdentity,
            CacheDamage(cache).drop(fb::Cache::VT_IDENTITY).sealed());
  bad_cache("cache-no-line-index.ilmap", "line index (lines) missing", CacheStructure::kLineIndex,
            CacheDamage(cache).drop(fb::Cache::VT_LINES).sealed());
  return out;
}

}  // namespace ilmap::hostile
