// MsymTest.cpp - MsymFile (decode/MsymFile.h, docs/msym.md): a real .msym written by Mono 6.8's
// AOT compiler, the lookup rule on hand-built files, and broken files each with one error code.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "decode/MsymFile.h"
#include "decode/SymstoreKeys.h"

namespace ilmap {
namespace {

using Bytes = std::vector<std::uint8_t>;

// The writer side, as Mono's encode_var_int and encode_zig_zag do it.
void var(Bytes& b, std::uint32_t v) {
  do {
    std::uint8_t byte = v & 0x7f;
    v >>= 7;
    if (v) byte |= 0x80;
    b.push_back(byte);
  } while (v);
}
std::uint32_t zz(std::int32_t v) { return (std::uint32_t(v) << 1) ^ std::uint32_t(v >> 31); }

struct P {
  std::int32_t il, native;
  std::uint32_t flags = 0;
  std::vector<std::uint32_t> next = {};
};

// One entry: points as absolute offsets, deltas written as Mono writes them.
void entry(Bytes& b, std::uint32_t token, std::uint32_t index, const std::vector<P>& points, bool debug = false) {
  Bytes data;
  P prev{0, 0};
  for (P p : points) {
    if (debug && (p.flags & 2)) p.il = MsymFile::kExitIlOffset;  // written with an IL delta of 0
    var(data, zz(p.il - prev.il));
    var(data, zz(p.native - prev.native));
    if (debug) {
      var(data, p.flags);
      var(data, std::uint32_t(p.next.size()));
      for (std::uint32_t n : p.next) var(data, n);
    }
    prev = p;
  }
  var(b, token);
  var(b, index);
  var(b, debug ? 1 : 0);
  var(b, std::uint32_t(data.size()));
  b.insert(b.end(), data.begin(), data.end());
}

Bytes file(std::uint32_t count, const Bytes& entries) {
  Bytes b;
  var(b, count);
  b.insert(b.end(), entries.begin(), entries.end());
  return b;
}

MsymFile parse_ok(const Bytes& b) {
  auto r = MsymFile::parse(b);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  return r ? std::move(*r) : MsymFile{};
}

Errc parse_error(const Bytes& b) {
  auto r = MsymFile::parse(b);
  EXPECT_FALSE(r) << "parsed";
  return r ? Errc::kOk : r.error().code;
}

Bytes real_msym() {
  std::ifstream in(std::string(ILMAP_DECODE_DATA_DIR) + "/Ilmap.Trace.exe.msym", std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

constexpr auto kAny = MsymFile::kAnyIndex;

// Mono 6.8, `mono --aot=msym-dir=` of tests/symbolicate/trace/Trace.cs (data/README.md): one
// entry per AOT-compiled method, method index = AOT method index, no debugger data.
TEST(Msym, RealFileFromMonoAot) {
  const Bytes b = real_msym();
  ASSERT_EQ(b.size(), 1379u);
  const MsymFile f = parse_ok(b);
  ASSERT_EQ(f.entries().size(), 63u);
  EXPECT_EQ(f.entries()[0].token, 0x06000001u);  // Program.Main
  EXPECT_EQ(f.entries()[0].count, 72u);
  std::size_t empty = 0;
  for (std::size_t i = 0; i < f.entries().size(); ++i) {
    EXPECT_EQ(f.entries()[i].method_index, i);
    empty += f.entries()[i].count == 0;
  }
  EXPECT_EQ(empty, 3u);  // methods without data: no answer
  EXPECT_FALSE(f.il_offset(0x06000031, kAny, 0x10));
  // Main's frame "<0x... + 0x0177c>" of every scenario: points 0x2d3@0x1770, 0x2d9@0x1784.
  EXPECT_EQ(f.il_offset(0x06000001, kAny, 0x177c), 0x2d3u);
  EXPECT_EQ(f.il_offset(0x06000001, 0, 0x177c), 0x2d3u);
  EXPECT_FALSE(f.il_offset(0x06000001, 1, 0x177c));  // index 1 is another method's
  EXPECT_FALSE(f.il_offset(0x06000001, kAny, 0x6e));  // before the first point (0x6f)
  // A loop: the IL offset goes back (delta -0x20, zigzag 0x3f). The runtime decodes it to 0x09;
  // mono-symbolicate's decoder (-(v >> 1)) would say 0x0a.
  const auto& e = f.entries()[0x2d];
  ASSERT_EQ(e.token, 0x0600002eu);
  const auto pts = f.points(e);
  ASSERT_GE(pts.size(), 5u);
  EXPECT_EQ(pts[3].il_offset, 0x29);
  EXPECT_EQ(pts[4].il_offset, 0x09);
  EXPECT_EQ(pts[4].native_offset, 0x4a);
}

TEST(Msym, LastPointAtOrBeforeTheOffset) {
  Bytes e;
  entry(e, 0x06000002, 0, {{0, 0x10}, {5, 0x20}, {9, 0x20}, {12, 0x30}});
  const MsymFile f = parse_ok(file(1, e));
  EXPECT_FALSE(f.il_offset(0x06000002, kAny, 0x0f));
  EXPECT_EQ(f.il_offset(0x06000002, kAny, 0x10), 0u);
  EXPECT_EQ(f.il_offset(0x06000002, kAny, 0x1f), 0u);
  EXPECT_EQ(f.il_offset(0x06000002, kAny, 0x20), 9u);  // equal native offsets: the last one
  EXPECT_EQ(f.il_offset(0x06000002, kAny, 0x2f), 9u);
  EXPECT_EQ(f.il_offset(0x06000002, kAny, 0xffff), 12u);  // past the last point: the last
  EXPECT_FALSE(f.il_offset(0x06000003, kAny, 0x20));     // no entry
}

TEST(Msym, FileOrderStopsAtTheFirstPointPast) {
  // Not sorted by native offset: the runtime walks in file order and stops at the first point
  // past the offset, so 0x40 is never reached for 0x45.
  Bytes e;
  entry(e, 0x06000002, 0, {{1, 0x10}, {2, 0x50}, {3, 0x40}});
  const MsymFile f = parse_ok(file(1, e));
  EXPECT_EQ(f.il_offset(0x06000002, kAny, 0x45), 1u);
  EXPECT_EQ(f.il_offset(0x06000002, kAny, 0x50), 3u);
}

TEST(Msym, MethodIndexPicksTheInstance) {
  // Two compiled instances of one method (a generic one), told apart by the method index a
  // frame prints after the offset; without one, the first entry of the token answers.
  Bytes e;
  entry(e, 0x06000007, 3, {{0, 0}, {4, 0x10}});
  entry(e, 0x06000007, 9, {{0, 0}, {8, 0x10}});
  entry(e, 0x06000007, 3, {{0, 0}, {6, 0x10}});  // a duplicate: the first one wins
  const MsymFile f = parse_ok(file(3, e));
  EXPECT_EQ(f.il_offset(0x06000007, kAny, 0x10), 4u);
  EXPECT_EQ(f.il_offset(0x06000007, 3, 0x10), 4u);
  EXPECT_EQ(f.il_offset(0x06000007, 9, 0x10), 8u);
  EXPECT_FALSE(f.il_offset(0x06000007, 4, 0x10));
}

TEST(Msym, DebuggerDataSkippedExitAndEntryPoints) {
  Bytes e;
  entry(e, 0x06000004, 0, {{-1, 0x08}, {0, 0x10, 0, {2, 3}}, {6, 0x20, 1}, {0, 0x30, 2}, {0xffffff + 2, 0x40}}, true);
  const MsymFile f = parse_ok(file(1, e));
  const auto pts = f.points(f.entries()[0]);
  ASSERT_EQ(pts.size(), 5u);
  EXPECT_FALSE(f.il_offset(0x06000004, kAny, 0x08));  // the method-entry point (IL -1)
  EXPECT_EQ(f.il_offset(0x06000004, kAny, 0x10), 0u);
  EXPECT_EQ(f.il_offset(0x06000004, kAny, 0x20), 6u);
  EXPECT_EQ(pts[3].il_offset, MsymFile::kExitIlOffset);  // flags & 2, whatever the delta said
  EXPECT_EQ(pts[4].il_offset, 0xffffff + 2);            // the next delta adds to the exit offset
}

TEST(Msym, BrokenFiles) {
  EXPECT_EQ(parse_error({}), Errc::kTruncated);
  EXPECT_EQ(parse_error({0x80}), Errc::kTruncated);                    // the count cut
  EXPECT_EQ(parse_error({0x80, 0x80, 0x80, 0x80, 0x01}), Errc::kMalformed);  // 5 bytes
  // A count the file cannot hold: refused before anything is reserved.
  EXPECT_EQ(parse_error({0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0}), Errc::kTruncated);
  Bytes one;
  entry(one, 0x06000001, 0, {{0, 0x10}, {3, 0x20}});
  EXPECT_EQ(parse_error(file(2, one)), Errc::kTruncated);  // one entry short
  Bytes trailing = file(1, one);
  trailing.push_back(0);
  EXPECT_EQ(parse_error(trailing), Errc::kMalformed);
  // A data size past the end of the file.
  Bytes big;
  var(big, 1), var(big, 0x06000001), var(big, 0), var(big, 0), var(big, 1000), big.push_back(0);
  big.resize(big.size() + 8, 0);
  EXPECT_EQ(parse_error(big), Errc::kTruncated);
  // A point that runs past its entry's data (the native delta is the next entry's byte).
  Bytes cut;
  var(cut, 1), var(cut, 0x06000001), var(cut, 0), var(cut, 0), var(cut, 1), cut.push_back(2);
  EXPECT_EQ(parse_error(cut), Errc::kTruncated);
  // Offsets that leave 32 bits: deltas of +2^27 - 1 added up.
  // Native deltas of 2^27 - 1 each: the running sum passes 2^31 at the 17th.
  Bytes e;
  var(e, 0x06000001), var(e, 0), var(e, 0);
  Bytes data;
  for (int i = 0; i < 17; ++i) var(data, 0), var(data, zz((1 << 27) - 1));
  var(e, std::uint32_t(data.size()));
  e.insert(e.end(), data.begin(), data.end());
  EXPECT_EQ(parse_error(file(1, e)), Errc::kMalformed);
  // Debugger data claiming more next indexes than bytes remain.
  Bytes lie;
  var(lie, 1), var(lie, 0x06000001), var(lie, 0), var(lie, 1), var(lie, 6);
  lie.insert(lie.end(), {0, 0x20, 0, 0xff, 0xff, 0x03});
  EXPECT_EQ(parse_error(lie), Errc::kTruncated);
}

// The store key of an .msym (docs/store-layout.md): file name and AOT id lower-cased.
TEST(Msym, StoreKey) {
  EXPECT_EQ(ssqp_msym_key("out/796A281F537089FED07EF251475CB24F/Ilmap.Trace.exe.msym", "796A281F537089FED07EF251475CB24F"),
            "ilmap.trace.exe.msym/796a281f537089fed07ef251475cb24f/ilmap.trace.exe.msym");
}

TEST(Msym, EveryTruncationAndFlipOfTheRealFile) {
  const Bytes b = real_msym();
  ASSERT_FALSE(b.empty());
  for (std::size_t n = 0; n < b.size(); ++n) {
    auto r = MsymFile::parse(std::span<const std::uint8_t>(b.data(), n));
    ASSERT_FALSE(r) << "a prefix of " << n << " bytes parsed";
    EXPECT_NE(r.error().message.find("msym"), std::string::npos);
  }
  // Flips: a clear error or a file that parses (a changed delta is still a file); lookups
  // on what parsed stay answers or misses.
  for (std::size_t i = 0; i < b.size(); ++i)
    for (std::uint8_t bit : {0x01, 0x40, 0x80}) {
      Bytes c = b;
      c[i] ^= bit;
      auto r = MsymFile::parse(c);
      if (r)
        for (const auto& e : r->entries()) (void)r->il_offset(e.token, kAny, 0x100);
    }
}

}  // namespace
}  // namespace ilmap
