// MethodNamesTest.cpp - ModuleNames on the committed corpus PEs (exact frame strings, identity,
// name index) and on damaged copies of them (malformed signatures, nesting cycles, bit flips).
// The strings were checked against the .NET runtime by tests/oracle-names (oracle_names).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "decode/PeFile.h"
#include "decode/PortablePdb.h"
#include "decode/names/MethodNames.h"

namespace ilmap::names {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes read_corpus(const std::string& rel) {
  std::ifstream in(std::string(ILMAP_NAMES_CORPUS) + "/" + rel, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

const char* const kFrames = "cs-frames/Ilmap.Corpus.Frames.dll";
const char* const kSignatures = "cs-signatures/Ilmap.Corpus.Signatures.dll";

// Parses `bytes` (kept alive by the caller) and builds the names.
struct Module {
  Bytes bytes;
  std::optional<PeFile> pe;
  Result<ModuleNames> names{Errc::kNotFound, "not built"};
  explicit Module(Bytes b) : bytes(std::move(b)) {
    auto p = PeFile::parse(bytes);
    if (!p || !p->metadata()) return;
    pe.emplace(std::move(*p));
    names = ModuleNames::build(*pe->metadata());
  }
};

TEST(MethodNames, FramesCorpusExactStrings) {
  Module m(read_corpus(kFrames));
  ASSERT_TRUE(m.pe) << "corpus file missing";
  ASSERT_TRUE(m.names) << m.names.error().message;
  const ModuleNames& n = *m.names;
  EXPECT_EQ(n.method_count(), 64u);
  EXPECT_EQ(n.assembly_name(), "Ilmap.Corpus.Frames");
  EXPECT_EQ(n.module_name(), "Ilmap.Corpus.Frames.dll");
  EXPECT_EQ(n.mvid(), m.pe->info().mvid);
  // Nested generic type, generic method.
  EXPECT_EQ(n.coreclr_frame(0x06000039), "Ilmap.Corpus.Frames.Outer`1.Inner`1.Fail[V](T t, U u, V v)");
  EXPECT_EQ(n.mono_frame(0x06000039), "Ilmap.Corpus.Frames.Outer`1+Inner`1[T,U].Fail[V] (T t, U u, V v)");
  // Iterator MoveNext: the kickoff method, then "+MoveNext()".
  EXPECT_EQ(n.coreclr_frame(0x06000033), "Ilmap.Corpus.Frames.Scenarios.Numbers(Int32 n)+MoveNext()");
  EXPECT_EQ(n.mono_frame(0x06000033), "Ilmap.Corpus.Frames.Scenarios+<Numbers>d__5.MoveNext ()");
  // Async MoveNext: just the kickoff method (Mono too, for async only).
  EXPECT_EQ(n.coreclr_frame(0x0600003c), "Ilmap.Corpus.Frames.Async.InnerAsync(Int32 n)");
  EXPECT_EQ(n.mono_frame(0x0600003c), "Ilmap.Corpus.Frames.Async.InnerAsync (System.Int32 n)");
  EXPECT_EQ(n.method(0x0600003c)->mono_kickoff, 0x06000017u);
  // Local function: a by-ref closure parameter without a Param row has no name.
  EXPECT_EQ(n.coreclr_frame(0x06000012),
            "Ilmap.Corpus.Frames.Scenarios.<LocalFunction>g__Recurse|3_0(Int32 n, <>c__DisplayClass3_0&)");
  EXPECT_EQ(n.coreclr_frame(0x06000002),
            "Ilmap.Corpus.Frames.Program.Record(StringBuilder output, String scenario, Exception e)");
  EXPECT_EQ(n.mono_frame(0x06000002),
            "Ilmap.Corpus.Frames.Program.Record (System.Text.StringBuilder output, System.String scenario, System.Exception e)");
  // The state machine's own record keeps its raw name and points at the kickoff method.
  const MethodName* move_next = n.method(0x06000033);
  ASSERT_NE(move_next, nullptr);
  EXPECT_EQ(move_next->name, "MoveNext");
  EXPECT_EQ(move_next->kickoff, 0x0600000eu);
  EXPECT_TRUE(move_next->iterator);
  EXPECT_EQ(n.coreclr_type(move_next->type_rid), "Ilmap.Corpus.Frames.Scenarios.<Numbers>d__5");
  // Unknown tokens.
  EXPECT_EQ(n.method(0x06000000), nullptr);
  EXPECT_EQ(n.method(0x06000041), nullptr);
  EXPECT_EQ(n.method(0x02000002), nullptr);
  EXPECT_EQ(n.coreclr_frame(0x06000041), "");
}

TEST(MethodNames, NameIndex) {
  Module m(read_corpus(kFrames));
  ASSERT_TRUE(m.names) << m.names.error().message;
  const ModuleNames& n = *m.names;
  // The kickoff name finds the kickoff method and every method of its state machine.
  const std::vector<std::uint32_t> numbers = n.find("Ilmap.Corpus.Frames.Scenarios.Numbers");
  std::vector<std::uint32_t> want = {0x0600000e};
  for (std::uint32_t t = 0x06000031; t <= 0x06000038; ++t) want.push_back(t);
  EXPECT_EQ(numbers, want);
  EXPECT_EQ(n.find("Ilmap.Corpus.Frames.Scenarios.<Numbers>d__5.MoveNext"),
            std::vector<std::uint32_t>{0x06000033});
  EXPECT_EQ(n.find("Ilmap.Corpus.Frames.Outer`1.Inner`1.Fail"), std::vector<std::uint32_t>{0x06000039});
  EXPECT_TRUE(n.find("Ilmap.Corpus.Frames.Outer`1+Inner`1.Fail").empty());
  EXPECT_TRUE(n.find("").empty());
}

TEST(MethodNames, SignaturesCorpusExactStrings) {
  Module m(read_corpus(kSignatures));
  ASSERT_TRUE(m.pe) << "corpus file missing";
  ASSERT_TRUE(m.names) << m.names.error().message;
  const ModuleNames& n = *m.names;
  auto frame_of = [&](std::string_view method_name) {
    for (const MethodName& x : n.methods())
      if (x.name == method_name) return n.coreclr_frame(x.token);
    return std::string("<none>");
  };
  auto mono_of = [&](std::string_view method_name) {
    for (const MethodName& x : n.methods())
      if (x.name == method_name) return n.mono_frame(x.token);
    return std::string("<none>");
  };
  EXPECT_EQ(frame_of("Run"), "GlobalType.Run(Nested n, Nested[] all)");
  EXPECT_EQ(frame_of("Address"),
            "Ilmap.Corpus.Signatures.Pointers.Address(Int32* p, Void* v, Matrix* m, Int32** pp)");
  EXPECT_EQ(frame_of("Function"), "Ilmap.Corpus.Signatures.Pointers.Function( f,  g)");
  EXPECT_EQ(frame_of("Multi"), "Ilmap.Corpus.Signatures.Arrays.Multi(Int32[,] a, Double[,,] b, Object[][,] c)");
  EXPECT_EQ(frame_of("Kinds"), "Ilmap.Corpus.Signatures.Refs.Kinds(Int32& a, String& b, Matrix& c, Double& d)");
  EXPECT_EQ(frame_of("Args"), "Ilmap.Corpus.Signatures.Refs.Args(Int32 fixedOne)");
  EXPECT_EQ(frame_of("Convert"),
            "Ilmap.Corpus.Signatures.Generic`2.Convert[TResult,TOther](TValue v, TOther[] o, TResult& r)");
  EXPECT_EQ(frame_of("Deep"), "Ilmap.Corpus.Signatures.Generic`2.Nested`1.Deeper.Deep(Deeper d, Generic`2 swapped)");
  // Mono: Type.ToString() of each parameter type, generic instances as their definitions.
  EXPECT_EQ(mono_of("Take"),
            "Ilmap.Corpus.Signatures.Interfaces.Take (System.Collections.Generic.IEnumerable`1[T] a, "
            "System.IDisposable b, System.IComparable`1[T] c, System.Collections.IEnumerator d, "
            "System.IO.IOException e, Ilmap.Corpus.Signatures.IShape f, System.IntPtr g, System.UIntPtr h, "
            "Ilmap.Corpus.Signatures.Color i, System.DateTime j)");
  EXPECT_EQ(mono_of("Kinds"),
            "Ilmap.Corpus.Signatures.Refs.Kinds (System.Int32& a, System.String& b, "
            "Ilmap.Corpus.Signatures.Matrix& c, System.Double& d)");
  EXPECT_EQ(mono_of("Map"),
            "Ilmap.Corpus.Signatures.Generic`2[TKey,TValue].Map (TKey key, System.Func`2[T,TResult] f)");
  EXPECT_EQ(mono_of("Function"), "Ilmap.Corpus.Signatures.Pointers.Function (System.IntPtr f, System.IntPtr g)");
  EXPECT_EQ(mono_of("Deep"),
            "Ilmap.Corpus.Signatures.Generic`2+Nested`1+Deeper[TKey,TValue,TExtra].Deep "
            "(Ilmap.Corpus.Signatures.Generic`2+Nested`1+Deeper[TKey,TValue,TExtra] d, "
            "Ilmap.Corpus.Signatures.Generic`2[TKey,TValue] swapped)");
}

// ---- damaged inputs --------------------------------------------------------------------------

// File offset of column `col` of row `rid` of `table`.
std::size_t cell_offset(const Metadata& md, unsigned table, std::uint32_t rid, unsigned col) {
  const TableLayout& t = md.layout(table);
  return md.table_stream().offset + t.offset + std::size_t(rid - 1) * t.row_size + t.col_offset[col];
}

void put_cell(Bytes& b, std::size_t at, unsigned width, std::uint32_t v) {
  b[at] = std::uint8_t(v);
  b[at + 1] = std::uint8_t(v >> 8);
  if (width == 4) {
    b[at + 2] = std::uint8_t(v >> 16);
    b[at + 3] = std::uint8_t(v >> 24);
  }
}

TEST(MethodNames, MalformedSignatureGivesPlaceholderNotFailure) {
  Module good(read_corpus(kFrames));
  ASSERT_TRUE(good.names);
  const Metadata& md = *good.pe->metadata();
  // Method 0x06000002 (Record): overwrite its signature's calling convention with 0x0F.
  const std::uint32_t blob = md.column(kMethodDef, 2, 4);
  Bytes bytes = good.bytes;
  std::size_t at = md.blob_heap_offset() + blob;
  at += (bytes[at] & 0x80) ? 2 : 1;  // skip the blob's length
  bytes[at] = 0x0F;
  Module bad(std::move(bytes));
  ASSERT_TRUE(bad.names) << bad.names.error().message;
  EXPECT_EQ(bad.names->coreclr_frame(0x06000002), "Ilmap.Corpus.Frames.Program.Record(<bad signature>)");
  EXPECT_EQ(bad.names->mono_frame(0x06000002), "Ilmap.Corpus.Frames.Program.Record (<bad signature>)");
  const MethodName* m = bad.names->method(0x06000002);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->bad_signature);
  EXPECT_NE(m->error.find("MethodDef row 2"), std::string::npos) << m->error;
  EXPECT_NE(m->error.find("calling convention 0x0f"), std::string::npos) << m->error;
  // The other methods are unaffected.
  EXPECT_EQ(bad.names->coreclr_frame(0x06000039), good.names->coreclr_frame(0x06000039));
}

TEST(MethodNames, SignatureOffsetOutOfHeapIsAPlaceholder) {
  Module good(read_corpus(kFrames));
  ASSERT_TRUE(good.names);
  const Metadata& md = *good.pe->metadata();
  Bytes bytes = good.bytes;
  put_cell(bytes, cell_offset(md, kMethodDef, 3, 4), md.layout(kMethodDef).col_width[4], 0xFFFF);
  Module bad(std::move(bytes));
  ASSERT_TRUE(bad.names) << bad.names.error().message;
  EXPECT_EQ(bad.names->coreclr_frame(0x06000003), "Ilmap.Corpus.Frames.Program.Describe(<bad signature>)");
  EXPECT_NE(bad.names->method(0x06000003)->error.find("#Blob offset 0xffff"), std::string::npos);
}

TEST(MethodNames, NestedClassCycleIsAnError) {
  Module good(read_corpus(kFrames));
  ASSERT_TRUE(good.names);
  const Metadata& md = *good.pe->metadata();
  ASSERT_GE(md.rows(kNestedClass), 1u);
  // NestedClass row 1: make the type enclose itself.
  const std::uint32_t nested = md.column(kNestedClass, 1, 0);
  Bytes bytes = good.bytes;
  put_cell(bytes, cell_offset(md, kNestedClass, 1, 1), md.layout(kNestedClass).col_width[1], nested);
  Module bad(std::move(bytes));
  ASSERT_FALSE(bad.names);
  EXPECT_EQ(bad.names.error().code, Errc::kMalformed);
  EXPECT_NE(bad.names.error().message.find("nesting deeper than 64"), std::string::npos)
      << bad.names.error().message;
}

// A type name holding every character type-name syntax reserves: FullName escapes each with a
// backslash, CoreCLR's text then turns the escaped '+' into "\." like every '+'.
TEST(MethodNames, ReservedCharactersInTypeNamesAreEscaped) {
  Bytes bytes = read_corpus(kFrames);
  const std::string from("\0Outer`1\0", 9), to("\0O,[]&*+\0", 9);  // same length: heap offsets stay
  auto at = std::search(bytes.begin(), bytes.end(), from.begin(), from.end());
  ASSERT_NE(at, bytes.end()) << "Outer`1 not in the #Strings heap";
  std::copy(to.begin(), to.end(), at);
  Module m(std::move(bytes));
  ASSERT_TRUE(m.names) << m.names.error().message;
  EXPECT_EQ(m.names->coreclr_frame(0x06000039),
            "Ilmap.Corpus.Frames.O\\,\\[\\]\\&\\*\\..Inner`1.Fail[V](T t, U u, V v)");
  EXPECT_EQ(m.names->mono_frame(0x06000039),
            "Ilmap.Corpus.Frames.O\\,\\[\\]\\&\\*\\++Inner`1[T,U].Fail[V] (T t, U u, V v)");
}

TEST(MethodNames, OutOfRangeRowsAreErrorsOrIgnored) {
  Module good(read_corpus(kFrames));
  ASSERT_TRUE(good.names);
  const Metadata& md = *good.pe->metadata();
  Bytes bytes = good.bytes;
  put_cell(bytes, cell_offset(md, kNestedClass, 1, 1), md.layout(kNestedClass).col_width[1], 0x7FFF);
  Module bad(std::move(bytes));
  ASSERT_FALSE(bad.names);
  EXPECT_NE(bad.names.error().message.find("NestedClass row 1"), std::string::npos) << bad.names.error().message;
}

// Every byte of the table stream and the #Blob heap of cs-signatures flipped, one at a time:
// the names are built or refused with an error, never a crash (run under the sanitizers too).
TEST(MethodNames, ByteFlipSweepNeverCrashes) {
  Module good(read_corpus(kSignatures));
  ASSERT_TRUE(good.names);
  const Metadata& md = *good.pe->metadata();
  const std::size_t begin = md.table_stream().offset;
  const std::size_t end = std::min(good.bytes.size(), md.blob_heap_offset() + md.stream_size("#Blob"));
  std::size_t built = 0, refused = 0;
  for (std::size_t at = begin; at < end; at += 5) {
    Bytes bytes = good.bytes;
    bytes[at] ^= 0xA5;
    Module m(std::move(bytes));
    if (!m.pe) continue;
    if (m.names) {
      ++built;
      for (const MethodName& x : m.names->methods()) {
        (void)m.names->coreclr_frame(x.token);
        (void)m.names->mono_frame(x.token);
      }
    } else {
      ++refused;
      EXPECT_FALSE(m.names.error().message.empty());
    }
  }
  EXPECT_GT(built, 0u);
  EXPECT_GT(built + refused, 100u);
}

}  // namespace
}  // namespace ilmap::names

namespace ilmap::names {
namespace {

// The kickoff methods found from the PE's attributes (what the runtime uses) agree with the
// compilers' own record in the Portable PDB's StateMachineMethod table, both ways.
TEST(MethodNames, KickoffAgreesWithPdbStateMachineTable) {
  const char* const cases[][2] = {
      {kFrames, "cs-frames/Ilmap.Corpus.Frames.pdb"},
      {kSignatures, "cs-signatures/Ilmap.Corpus.Signatures.pdb"},
      {"cs-features/Ilmap.Corpus.Features.dll", "cs-features/Ilmap.Corpus.Features.pdb"},
      {"vb-basic/Ilmap.Corpus.VbBasic.dll", "vb-basic/Ilmap.Corpus.VbBasic.pdb"},
  };
  for (const auto& c : cases) {
    Module m(read_corpus(c[0]));
    ASSERT_TRUE(m.names) << c[0];
    const Bytes pdb_bytes = read_corpus(c[1]);
    auto pdb = PortablePdb::parse(pdb_bytes);
    ASSERT_TRUE(pdb) << c[1];
    auto table = pdb->state_machine_methods();
    ASSERT_TRUE(table) << c[1];
    ASSERT_FALSE(table->empty()) << c[1];
    std::size_t move_next_with_kickoff = 0;
    for (const MethodName& x : m.names->methods())
      if (x.kickoff && x.name == "MoveNext") ++move_next_with_kickoff;
    EXPECT_EQ(move_next_with_kickoff, table->size()) << c[0];
    for (const StateMachineMethod& row : *table) {
      const MethodName* x = m.names->method(0x06000000u | row.move_next);
      ASSERT_NE(x, nullptr);
      EXPECT_EQ(x->kickoff, 0x06000000u | row.kickoff) << c[0] << " MoveNext row " << row.move_next;
    }
  }
}

}  // namespace
}  // namespace ilmap::names

namespace ilmap::names {
namespace {

// The names of a module are capped (TextBudget): over the cap the build stops with kTooLarge
// instead of growing; the default cap is far above what real modules need.
TEST(MethodNames, TextBudgetStopsTheBuild) {
  Module m(read_corpus("cs-manymethods/Ilmap.Corpus.ManyMethods.dll"));
  ASSERT_TRUE(m.names) << m.names.error().message;  // default budget: fine
  auto capped = ModuleNames::build(*m.pe->metadata(), 64 * 1024);
  ASSERT_FALSE(capped);
  EXPECT_EQ(capped.error().code, Errc::kTooLarge);
  EXPECT_NE(capped.error().message.find("over the limit of 65536 bytes"), std::string::npos)
      << capped.error().message;
  EXPECT_TRUE(ModuleNames::build(*m.pe->metadata(), 16u << 20));
}

}  // namespace
}  // namespace ilmap::names

namespace ilmap::names {
namespace {

// A frame printed by Mono finds its method through the same index (the part before " (").
TEST(MethodNames, MonoTextToIndexKey) {
  EXPECT_EQ(index_key_from_mono("NS.Outer`1+Inner`1[T,U].Fail[V]"), "NS.Outer`1.Inner`1.Fail");
  EXPECT_EQ(index_key_from_mono("A.B`1[System.Collections.Generic.List`1[System.Int32]].M"), "A.B`1.M");
  EXPECT_EQ(index_key_from_mono("A.C\\+D.M"), "A.C\\+D.M");
  EXPECT_EQ(index_key_from_mono(""), "");
  Module m(read_corpus(kFrames));
  ASSERT_TRUE(m.names) << m.names.error().message;
  for (const MethodName& x : m.names->methods()) {
    const std::string mono = m.names->mono_frame(x.token);
    const std::vector<std::uint32_t> found = m.names->find(index_key_from_mono(mono.substr(0, mono.find(" ("))));
    // The token Mono printed the frame for (an async MoveNext prints as its kickoff) is found.
    EXPECT_NE(std::find(found.begin(), found.end(), x.token), found.end()) << mono;
  }
}

}  // namespace
}  // namespace ilmap::names

namespace ilmap::names {
namespace {

// The append forms give the same texts as the string forms (after what `out` already holds);
// index_key_size is the key's length; NameIndex::kSkip changes nothing but find(). Methods that
// share a signature blob reuse its rendered parameter types: the texts must still be each
// method's own (the corpus has generic signatures shared across types with other parameters).
TEST(MethodNames, AppendFormsAndSkippedIndex) {
  for (const char* file : {kFrames, kSignatures}) {
    Module m(read_corpus(file));
    ASSERT_TRUE(m.names) << file << ": " << m.names.error().message;
    auto skipped = ModuleNames::build(*m.pe->metadata(), 0, NameIndex::kSkip);
    ASSERT_TRUE(skipped) << skipped.error().message;
    const ModuleNames& n = *m.names;
    ASSERT_EQ(skipped->method_count(), n.method_count());
    for (const MethodName& x : n.methods()) {
      std::string c = "x", mono = "y", key = "z";
      n.append_coreclr_frame(x.token, c);
      n.append_mono_frame(x.token, mono);
      n.append_index_key(x, key);
      EXPECT_EQ(c.substr(1), n.coreclr_frame(x.token));
      EXPECT_EQ(mono.substr(1), n.mono_frame(x.token));
      EXPECT_EQ(n.index_key_size(x), key.size() - 1) << key;
      EXPECT_EQ(skipped->coreclr_frame(x.token), n.coreclr_frame(x.token));
      EXPECT_EQ(skipped->mono_frame(x.token), n.mono_frame(x.token));
      EXPECT_TRUE(skipped->find(key.substr(1)).empty());
      const std::vector<std::uint32_t> found = n.find(key.substr(1));
      EXPECT_NE(std::find(found.begin(), found.end(), x.token), found.end()) << key;
    }
  }
}

}  // namespace
}  // namespace ilmap::names
