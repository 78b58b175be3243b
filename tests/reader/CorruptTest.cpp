// CorruptTest.cpp - corrupted caches: each hand-made case asserts one error code (Errc, and the
// same through the C API), then a sweep flips (xor 0xFF, xor 0x01) and truncates at every byte
// of a small cache and a dense sample of a large one: whatever opens must answer a fixed query
// set and list every method's points (ok or an error) without crashing. The sanitizer build
// runs this too, which is what turns a silent out-of-bounds read into a failure.
#include <gtest/gtest.h>

#include <xxhash.h>

#include <cstring>

#include "CacheTestSupport.h"
#include "ilmap/cache.h"
#include "reader/RawCache.h"
#include "ilmap/ilmap.h"
#include "format/ilmap_format.h"
#include "ilmap_generated.h"

namespace ilmap::test {
namespace {

namespace d = ilmap::disk;

// Small: the frames corpus PDB; large: the 5000-method one. Both are in the repository.
const char* kSmall = "out/cs-frames/Ilmap.Corpus.Frames.pdb";
const char* kLarge = "out/cs-manymethods/Ilmap.Corpus.ManyMethods.pdb";

std::vector<std::uint8_t> real_cache(const char* rel) {
  auto c = compile_in_memory(corpus_dir() + "/" + rel);
  if (!c) {
    ADD_FAILURE() << rel << ": " << c.error().message;
    return {};
  }
  return std::move(c->bytes);
}

Errc open_error(const std::vector<std::uint8_t>& bytes, std::string* message = nullptr) {
  auto r = Cache::from_bytes(bytes);
  if (r) return Errc::kOk;
  if (message) *message = r.error().message;
  return r.error().code;
}

int c_open_error(const std::vector<std::uint8_t>& bytes) {
  int err = -1;
  char msg[256] = "";
  ilmap_cache* c = ilmap_open_bytes(bytes.data(), bytes.size(), &err, msg, sizeof msg);
  if (c) {
    ilmap_close(c);
    return ILMAP_OK;
  }
  EXPECT_NE(msg[0], '\0') << "C API gave no message for error " << err;
  return err;
}

template <class T>
void put(std::vector<std::uint8_t>& b, std::size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}

class CorruptCache : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(corpus_dir() + "/" + kSmall)) GTEST_SKIP() << "corpus absent";
    good_ = real_cache(kSmall);
    ASSERT_GT(good_.size(), d::kHeaderSize);
    auto c = Cache::from_bytes(good_);
    ASSERT_TRUE(c) << c.error().message;
    ASSERT_TRUE(c->verify()) << c->verify().message();
  }
  std::vector<std::uint8_t> good_;
};

TEST_F(CorruptCache, TruncatedIsTruncated) {
  for (std::size_t len : {std::size_t(0), std::size_t(1), std::size_t(4), std::size_t(16), std::size_t(31),
                          std::size_t(32), std::size_t(33), good_.size() / 2, good_.size() - 8, good_.size() - 1}) {
    std::vector<std::uint8_t> b(good_.begin(), good_.begin() + static_cast<std::ptrdiff_t>(len));
    std::string msg;
    EXPECT_EQ(open_error(b, &msg), Errc::kTruncated) << "length " << len << ": " << msg;
    EXPECT_EQ(c_open_error(b), ILMAP_E_TRUNCATED) << "length " << len;
  }
}

TEST_F(CorruptCache, WrongMagicIsBadMagic) {
  auto b = good_;
  put<std::uint32_t>(b, 0, 0x12345678);
  EXPECT_EQ(open_error(b), Errc::kBadMagic);
  EXPECT_EQ(c_open_error(b), ILMAP_E_BAD_MAGIC);
}

TEST_F(CorruptCache, ByteSwappedMagicSaysByteOrder) {
  auto b = good_;
  put<std::uint32_t>(b, 0, d::kMagicSwapped);
  std::string msg;
  EXPECT_EQ(open_error(b, &msg), Errc::kBadMagic);
  EXPECT_NE(msg.find("byte order"), std::string::npos) << msg;
  EXPECT_EQ(c_open_error(b), ILMAP_E_BAD_MAGIC);
}

TEST_F(CorruptCache, WrongIdentifierIsBadMagic) {
  auto b = good_;
  std::memcpy(b.data() + 4, "ILMX", 4);
  EXPECT_EQ(open_error(b), Errc::kBadMagic);
  EXPECT_EQ(c_open_error(b), ILMAP_E_BAD_MAGIC);
  // The FlatBuffers file identifier inside the payload too (offset 4 of the payload).
  b = good_;
  b[d::kHeaderSize + 4] ^= 0x20;
  EXPECT_EQ(open_error(b), Errc::kBadMagic);
}

TEST_F(CorruptCache, UnsupportedMajorVersionIsBadVersion) {
  for (std::uint16_t major : {std::uint16_t(0), std::uint16_t(d::kVersionMajor + 1), std::uint16_t(0xFFFF)}) {
    auto b = good_;
    put<std::uint16_t>(b, 8, major);
    std::string msg;
    EXPECT_EQ(open_error(b, &msg), Errc::kBadVersion) << "major " << major << ": " << msg;
    EXPECT_EQ(c_open_error(b), ILMAP_E_BAD_VERSION) << "major " << major;
  }
  // A newer minor version of the same major still opens (format evolution by addition).
  auto b = good_;
  put<std::uint16_t>(b, 10, d::kVersionMinor + 1);
  EXPECT_EQ(open_error(b), Errc::kOk);
}

TEST_F(CorruptCache, PayloadSizeMismatchIsTruncated) {
  for (std::int64_t delta : {-1, 1, 4096}) {
    auto b = good_;
    std::uint64_t size;
    std::memcpy(&size, b.data() + 16, 8);
    put<std::uint64_t>(b, 16, size + static_cast<std::uint64_t>(delta));
    EXPECT_EQ(open_error(b), Errc::kTruncated) << "delta " << delta;
    EXPECT_EQ(c_open_error(b), ILMAP_E_TRUNCATED) << "delta " << delta;
  }
  // Extra bytes after the payload.
  auto b = good_;
  b.push_back(0);
  EXPECT_EQ(open_error(b), Errc::kTruncated);
}

TEST_F(CorruptCache, FlippedPayloadByteOpensButFailsVerifyWithChecksum) {
  auto c = Cache::from_bytes(good_);
  ASSERT_TRUE(c);
  const auto* root = raw_root(*c);
  ASSERT_NE(root->point_blocks(), nullptr);
  ASSERT_GT(root->point_blocks()->size(), d::kBlockTailPadding);
  const std::size_t at = static_cast<std::size_t>(root->point_blocks()->data() - c->bytes().data());
  auto b = good_;
  b[at] ^= 0x01;  // first byte of the first block: the low byte of its widths word, still a valid vector byte
  auto flipped = Cache::from_bytes(b);
  ASSERT_TRUE(flipped) << flipped.error().message;
  const Status s = flipped->verify();
  EXPECT_EQ(s.code(), Errc::kChecksum) << s.message();
  int err = -1;
  ilmap_cache* h = ilmap_open_bytes(b.data(), b.size(), &err, nullptr, 0);
  ASSERT_NE(h, nullptr);
  char msg[256] = "";
  EXPECT_EQ(ilmap_verify(h, msg, sizeof msg), ILMAP_E_CHECKSUM);
  EXPECT_NE(msg[0], '\0');
  ilmap_close(h);
  // A flipped header checksum is caught the same way.
  b = good_;
  b[24] ^= 0x80;
  auto bad_sum = Cache::from_bytes(b);
  ASSERT_TRUE(bad_sum);
  EXPECT_EQ(bad_sum->verify().code(), Errc::kChecksum);
}

// Marks the field at vtable offset `field` (a generated VT_ constant) of the FlatBuffers table at
// payload offset `table` absent, as a writer that never wrote the field would have left it.
// Returns whether it was present.
bool drop_field(std::vector<std::uint8_t>& b, std::size_t table, std::uint16_t field) {
  const std::size_t payload = d::kHeaderSize;
  std::int32_t back;
  std::memcpy(&back, b.data() + payload + table, 4);
  const std::size_t vtable = payload + table - static_cast<std::size_t>(static_cast<std::ptrdiff_t>(back));
  std::uint16_t vsize, was = 0;
  std::memcpy(&vsize, b.data() + vtable, 2);
  if (field + 2u > vsize) return false;
  std::memcpy(&was, b.data() + vtable + field, 2);
  put<std::uint16_t>(b, vtable + field, 0);
  return was != 0;
}

// Open step 16 (SPEC.md section 7): a cache without its line index, or whose LineIndex has
// neither form of the index, is malformed and the message names the section; the intact cache
// opens (the control).
TEST_F(CorruptCache, MissingLineIndexIsMalformed) {
  auto c = Cache::from_bytes(good_);
  ASSERT_TRUE(c);
  const std::uint8_t* payload = c->bytes().data() + d::kHeaderSize;
  const auto* root = raw_root(*c);
  ASSERT_NE(root->lines(), nullptr);
  const std::size_t root_at = static_cast<std::size_t>(reinterpret_cast<const std::uint8_t*>(root) - payload);
  const std::size_t lines_at = static_cast<std::size_t>(reinterpret_cast<const std::uint8_t*>(root->lines()) - payload);

  auto no_lines = good_;
  ASSERT_TRUE(drop_field(no_lines, root_at, fb::Cache::VT_LINES));
  // LineIndex without doc_blocks and index_zstd: neither the plain nor the packed form.
  auto empty_index = good_;
  const bool had_plain = drop_field(empty_index, lines_at, fb::LineIndex::VT_DOC_BLOCKS);
  const bool had_packed = drop_field(empty_index, lines_at, fb::LineIndex::VT_INDEX_ZSTD);
  ASSERT_TRUE(had_plain != had_packed);
  for (const auto* b : {&no_lines, &empty_index}) {
    std::string msg;
    EXPECT_EQ(open_error(*b, &msg), Errc::kMalformed) << msg;
    EXPECT_NE(msg.find("line index (lines)"), std::string::npos) << msg;
    EXPECT_EQ(c_open_error(*b), ILMAP_E_MALFORMED);
  }
  EXPECT_EQ(open_error(good_), Errc::kOk);
}

// --- the structure named by each failure (SPEC.md section 7) ------------------------------

// The payload checksum recomputed after an edit, so that verify gets past step 1 to the check
// the edit is for.
void reseal(std::vector<std::uint8_t>& b) {
  put<std::uint64_t>(b, 24, XXH3_64bits(b.data() + d::kHeaderSize, b.size() - d::kHeaderSize));
}

struct Failure {
  Errc code = Errc::kOk;
  CacheStructure structure = CacheStructure::kNone;
  std::string message;
  int c_code = -1, c_structure = -1;  // the same through ilmap_open_bytes_ex / ilmap_verify_ex
};

// Opens `b` and, when it opens, verifies it: the first failure, in C++ and through the C API.
Failure first_failure(const std::vector<std::uint8_t>& b) {
  Failure f;
  if (auto c = Cache::from_bytes(b); !c) {
    f = {c.error().code, c.error().structure, c.error().message};
  } else if (Status s = c->verify(); !s) {
    f = {s.code(), s.structure(), s.message()};
  }
  char msg[256] = "";
  int err = -1, where = -1;
  if (ilmap_cache* h = ilmap_open_bytes_ex(b.data(), b.size(), &err, &where, msg, sizeof msg)) {
    EXPECT_EQ(where, ILMAP_STRUCTURE_NONE) << "an open that succeeds names no structure";
    err = ilmap_verify_ex(h, &where, msg, sizeof msg);
    ilmap_close(h);
  }
  f.c_code = err;
  f.c_structure = where;
  return f;
}

// One damaged cache per structure: each names the structure that failed, with the same code and
// number through the C API; the intact cache names none.
TEST_F(CorruptCache, EachFailureNamesItsStructure) {
  auto c = Cache::from_bytes(good_);
  ASSERT_TRUE(c);
  const std::uint8_t* base = c->bytes().data();
  const auto* root = raw_root(*c);
  auto at = [&](const void* p) { return static_cast<std::size_t>(static_cast<const std::uint8_t*>(p) - base); };
  const std::size_t root_at = at(root) - d::kHeaderSize;
  struct Case {
    const char* what;
    std::vector<std::uint8_t> bytes;
    Errc code;
    CacheStructure structure;
  };
  std::vector<Case> cases;
  auto add = [&](const char* what, std::vector<std::uint8_t> b, Errc code, CacheStructure where, bool seal = false) {
    if (seal) reseal(b);
    cases.push_back({what, std::move(b), code, where});
  };
  auto dropped = [&](std::uint16_t field) {
    auto b = good_;
    EXPECT_TRUE(drop_field(b, root_at, field)) << "field " << field;
    return b;
  };
  add("header: short file", {good_.begin(), good_.begin() + 16}, Errc::kTruncated, CacheStructure::kHeader);
  {
    auto b = good_;
    put<std::uint16_t>(b, 12, 40);
    add("header: header_size", b, Errc::kMalformed, CacheStructure::kHeader);
  }
  {
    auto b = good_;
    b[d::kHeaderSize + 4] ^= 0x20;
    add("payload: FlatBuffers identifier", b, Errc::kBadMagic, CacheStructure::kPayload);
  }
  {
    auto b = good_;
    b[24] ^= 0x80;
    add("payload: checksum", b, Errc::kChecksum, CacheStructure::kPayload);
  }
  add("method directory: method_groups absent", dropped(fb::Cache::VT_METHOD_GROUPS), Errc::kMalformed,
      CacheStructure::kMethodDirectory);
  {
    auto b = good_;
    const std::size_t g0 = at(root->method_groups()->Data());
    put<std::uint32_t>(b, g0, 1);  // group 0's base (its first field) must be 0
    add("method directory: group 0 base", b, Errc::kMalformed, CacheStructure::kMethodDirectory, true);
  }
  add("block profiles: index absent", dropped(fb::Cache::VT_BLOCK_PROFILE_INDEX), Errc::kMalformed,
      CacheStructure::kBlockProfiles);
  if (root->block_profiles() && root->block_profiles()->size()) {
    auto b = good_;
    b[at(root->block_profiles()->data()) + 7] |= 0x80;  // bit 63: reserved
    add("block profiles: reserved bit", b, Errc::kMalformed, CacheStructure::kBlockProfiles, true);
  }
  add("point blocks: absent", dropped(fb::Cache::VT_POINT_BLOCKS), Errc::kMalformed, CacheStructure::kPointBlocks);
  {
    auto b = good_;
    b[at(root->point_blocks()->data()) + root->point_blocks()->size() - 1] = 1;  // tail padding
    add("point blocks: tail padding", b, Errc::kMalformed, CacheStructure::kPointBlocks, true);
  }
  {
    auto b = good_;
    ASSERT_NE(root->documents(), nullptr);
    ASSERT_GT(root->documents()->size(), 0u);
    b[at(root->documents()->Data()) + 16] = 0x7F;  // DocumentRef.language of document 0
    add("documents: language", b, Errc::kMalformed, CacheStructure::kDocuments, true);
  }
  if (const auto* z = root->strings_zstd()) {
    auto b = good_;
    b[at(z->data())] ^= 0xFF;  // the zstd magic
    add("strings: packed frame", b, Errc::kMalformed, CacheStructure::kStrings, true);
  }
  {
    auto b = good_;
    drop_field(b, root_at, fb::Cache::VT_DETAILS);
    drop_field(b, root_at, fb::Cache::VT_DETAILS_ZSTD);
    add("details: absent", b, Errc::kMalformed, CacheStructure::kDetails, true);
  }
  add("identity: absent", dropped(fb::Cache::VT_IDENTITY), Errc::kMalformed, CacheStructure::kIdentity, true);
  if (const auto* hp = root->hidden_points(); hp && hp->size()) {
    auto b = good_;
    put<std::uint32_t>(b, at(hp->Data()) + 20 * (hp->size() - 1), 0xFFFFFF);  // the last entry's row
    add("hidden points: row", b, Errc::kMalformed, CacheStructure::kHiddenPoints, true);
  }
  if (const fb::Names* n = root->names()) {
    auto b = good_;
    if (n->methods()) put<std::uint32_t>(b, at(n->methods()->Data()) + 4, 0xFFFFFFF0u);  // method 1's CoreCLR length
    else b[at(n->methods_zstd()->data())] ^= 0xFF;                                          // the zstd magic
    add("names: method 1", b, Errc::kMalformed, CacheStructure::kNames, true);
  }
  add("line index: absent", dropped(fb::Cache::VT_LINES), Errc::kMalformed, CacheStructure::kLineIndex);
  {
    auto b = good_;
    const fb::LineIndex* li = root->lines();
    const auto* v = li->index_zstd() ? li->index_zstd() : li->data();
    ASSERT_NE(v, nullptr);
    ASSERT_GT(v->size(), 0u);
    b[at(v->data())] ^= 0xFF;  // the zstd magic, or the first entry of the first block
    add("line index: damaged", b, Errc::kMalformed, CacheStructure::kLineIndex, true);
  }
  for (const Case& k : cases) {
    const Failure f = first_failure(k.bytes);
    EXPECT_EQ(f.code, k.code) << k.what << ": " << f.message;
    EXPECT_EQ(f.structure, k.structure) << k.what << ": " << cache_structure_name(f.structure) << ": " << f.message;
    EXPECT_EQ(f.c_code, static_cast<int>(k.code)) << k.what;
    EXPECT_EQ(f.c_structure, static_cast<int>(k.structure)) << k.what;
  }
  const Failure none = first_failure(good_);
  EXPECT_EQ(none.code, Errc::kOk) << none.message;
  EXPECT_EQ(none.structure, CacheStructure::kNone);
  EXPECT_EQ(none.c_code, ILMAP_OK);
  EXPECT_EQ(none.c_structure, ILMAP_STRUCTURE_NONE);
}

// --- sweep --------------------------------------------------------------------------------

// Fixed queries: every row up to a few past the end, a spread of offsets.
void exercise(const Cache& c, std::uint32_t methods) {
  static const std::uint32_t kOffsets[] = {0, 1, 2, 5, 8, 16, 31, 64, 100, 1000, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF};
  volatile std::uint64_t sink = 0;
  // Every row of a small cache; about 256 rows spread over a large one (plus its edges).
  const std::uint32_t n = std::max(c.method_count(), methods);
  const std::uint32_t step = n > 512 ? n / 256 : 1;
  auto next_row = [&](std::uint32_t rid) { return (rid < 4 || rid + 4 > n) ? rid + 1 : std::min(rid + step, n - 3); };
  for (std::uint32_t rid = 0; rid <= n + 3; rid = next_row(rid)) {
    for (std::uint32_t il : kOffsets) {
      if (auto r = c.lookup(0x06000000u | rid, il)) {
        // Touch every byte of the borrowed views so ASan sees any read past the mapping.
        for (char ch : r->file) sink = sink + static_cast<unsigned char>(ch);
        for (char ch : r->source_url) sink = sink + static_cast<unsigned char>(ch);
        sink = sink + r->line + r->column + r->end_line + r->end_column + r->document;
      }
    }
  }
  std::vector<CachePoint> pts;
  for (std::uint32_t rid = 0; rid <= c.method_count() + 1; rid = next_row(rid)) {
    pts.clear();
    const Status s = c.points(rid, pts);
    if (!s) sink = sink + static_cast<unsigned>(s.code()) + s.message().size();
    for (const CachePoint& p : pts) sink = sink + p.il_offset + p.document;
  }
  for (std::uint32_t i = 0; i < std::min<std::uint32_t>(c.document_count(), 1u << 16); ++i)
    sink = sink + c.document_path(i).size() + c.document_source_url(i).size();
  (void)c.verify();
  (void)sink;
}

// Returns how many variants opened.
std::size_t sweep(const std::vector<std::uint8_t>& good, std::size_t stride) {
  auto base = Cache::from_bytes(good);
  EXPECT_TRUE(base);
  const std::uint32_t methods = base ? base->method_count() : 0;
  std::size_t opened = 0;
  std::vector<std::uint8_t> b;
  for (std::size_t at = 0; at < good.size(); at += stride) {
    for (std::uint8_t mask : {std::uint8_t(0xFF), std::uint8_t(0x01)}) {
      b = good;
      b[at] ^= mask;
      if (auto c = Cache::from_bytes(b)) {
        ++opened;
        exercise(*c, methods);
      }
    }
    b.assign(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(at));
    auto c = Cache::from_bytes(b);
    EXPECT_FALSE(c) << "a cache truncated to " << at << " of " << good.size() << " bytes opened";
    if (c) exercise(*c, methods);
    if (::testing::Test::HasFatalFailure()) break;
  }
  return opened;
}

TEST_F(CorruptCache, SweepEveryByteOfASmallCache) {
  const std::size_t opened = sweep(good_, 1);
  // Most flips land in point blocks, strings or hashes and still open: make sure the sweep
  // exercised lookups at all.
  EXPECT_GT(opened, good_.size() / 4) << "only " << opened << " of " << 2 * good_.size() << " flips opened";
}

TEST(CorruptLargeCache, SweepDenseSample) {
  if (!std::filesystem::exists(corpus_dir() + "/" + kLarge)) GTEST_SKIP() << "corpus absent";
  const auto good = real_cache(kLarge);
  ASSERT_GT(good.size(), 1000u);
  // All of the header and the first 2 KiB (FlatBuffers root, vtables), then a stride that gives
  // about 1500 positions over the rest, offset so it does not stay on one bit-field phase.
  std::vector<std::uint8_t> head;
  const std::size_t stride = std::max<std::size_t>(7, good.size() / 1500) | 1;
  std::size_t opened = 0;
  auto base = Cache::from_bytes(good);
  ASSERT_TRUE(base);
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < std::min<std::size_t>(good.size(), 2048); ++i) positions.push_back(i);
  for (std::size_t i = 2048; i < good.size(); i += stride) positions.push_back(i);
  for (std::size_t i = good.size() - std::min<std::size_t>(good.size(), 64); i < good.size(); ++i) positions.push_back(i);
  std::vector<std::uint8_t> b;
  for (std::size_t at : positions) {
    for (std::uint8_t mask : {std::uint8_t(0xFF), std::uint8_t(0x01)}) {
      b = good;
      b[at] ^= mask;
      if (auto c = Cache::from_bytes(b)) {
        ++opened;
        exercise(*c, base->method_count());
      }
    }
    b.assign(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(at));
    EXPECT_FALSE(Cache::from_bytes(b)) << "truncated to " << at << " opened";
  }
  EXPECT_GT(opened, 0u);
}

}  // namespace
}  // namespace ilmap::test
