// NamesTest.cpp - the method-names section (format 1.1, SPEC.md 3.6): the reader's and the C
// API's names and name lookups equal decode/names' for every method of the corpus DLLs
// (overloads, state-machine aliases included); a cache without names (built without the PE, or a
// committed format 1.0 cache) answers nothing; corrupt ranges and kickoffs give no answer and
// fail verify. Format 2.0: the method refs are packed (methods_zstd) and the name index is not
// stored but derived by the reader; a broken frame gives no name and fails verify, and
// concurrent first name queries agree.
#include <gtest/gtest.h>
#include <zstd.h>
#include <xxhash.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <thread>

#include "CacheTestSupport.h"
#include "support/FileBytes.h"
#include "compiler/NamesSection.h"
#include "decode/PeFile.h"
#include "ilmap/cache.h"
#include "ilmap/method_key.h"
#include "reader/RawCache.h"
#include "ilmap/ilmap.h"
#include "format/ilmap_format.h"
#include "ilmap_generated.h"
#include "decode/names/MethodNames.h"

namespace ilmap::test {
namespace {

struct NamedCache {
  std::unique_ptr<DebugInput> input;
  std::optional<PeFile> pe;
  std::optional<names::ModuleNames> names;  // the oracle: decode/names itself
  std::vector<std::uint8_t> bytes;
};

// Compiles a corpus DLL with its names section (as `ilmap compile` does), or without; `edit`
// changes the names section before it is written (a corrupt section, packed as usual).
NamedCache compile_dll(const std::string& rel, bool with_names = true,
                       const std::function<void(NamesSection&)>& edit = nullptr) {
  NamedCache c;
  auto in = open_debug_input(corpus_dir() + "/" + rel);
  EXPECT_TRUE(in) << (in ? "" : in.error().message);
  if (!in) return c;
  c.input = std::move(*in);
  auto pe = PeFile::parse(c.input->file.bytes());
  EXPECT_TRUE(pe && pe->metadata());
  c.pe.emplace(std::move(*pe));
  auto mn = names::ModuleNames::build(*c.pe->metadata());
  EXPECT_TRUE(mn);
  c.names.emplace(std::move(*mn));
  auto section = build_names_section_from_pe(c.input->file.bytes());
  EXPECT_TRUE(section) << (section ? "" : section.error().message);
  if (section && edit) edit(*section);
  CacheSource src;
  src.pdb = &*c.input->pdb;
  src.source_name = "x.dll";
  if (with_names) src.names = &*section;
  auto bytes = build_cache(src, CacheBuildOptions{});
  EXPECT_TRUE(bytes);
  if (bytes) c.bytes = bytes->to_vector();
  return c;
}

bool have_corpus() { return std::filesystem::exists(corpus_dir() + "/out/cs-frames/Ilmap.Corpus.Frames.dll"); }

std::string own_key(const names::ModuleNames& mn, const names::MethodName& m) {
  std::string k = mn.coreclr_type(m.type_rid);
  if (!k.empty()) k += '.';
  k += m.name;
  return k;
}

// Re-seals a patched cache: the header checksum over the payload.
void reseal(std::vector<std::uint8_t>& b) {
  const std::uint64_t h = XXH3_64bits(b.data() + 32, b.size() - 32);
  std::memcpy(b.data() + 24, &h, 8);
}

// Offset in the file of the names section's method refs and index.
std::size_t offset_in(const Cache& c, const void* p) {
  return static_cast<std::size_t>(static_cast<const std::uint8_t*>(p) - c.bytes().data());
}

class CorpusNames : public ::testing::TestWithParam<const char*> {};

TEST_P(CorpusNames, EveryMethodAndEveryKeyAsTheNamesLibrary) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  NamedCache c = compile_dll(GetParam());
  auto cache = Cache::from_bytes(c.bytes);
  ASSERT_TRUE(cache) << cache.error().message;
  ASSERT_TRUE(cache->verify()) << cache->verify().message();
  EXPECT_EQ(cache->header().version_major, disk::kVersionMajor);
  ASSERT_TRUE(cache->has_method_names());
  const names::ModuleNames& mn = *c.names;
  ASSERT_EQ(cache->method_name_count(), mn.method_count());
  EXPECT_EQ(cache->assembly_name(), mn.assembly_name());
  EXPECT_EQ(cache->module_name(), mn.module_name());
  ASSERT_TRUE(cache->mvid());
  EXPECT_EQ(*cache->mvid(), mn.mvid());

  int errc = 0;
  ilmap_cache* h = ilmap_open_bytes(c.bytes.data(), c.bytes.size(), &errc, nullptr, 0);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(ilmap_method_name_count(h), mn.method_count());
  std::size_t alen = 0;
  const char* an = ilmap_assembly_name(h, &alen);
  ASSERT_NE(an, nullptr);
  EXPECT_EQ(std::string(an, alen), mn.assembly_name());
  std::uint8_t mvid[16];
  ASSERT_EQ(ilmap_mvid(h, mvid), 1);
  EXPECT_EQ(std::memcmp(mvid, mn.mvid().data(), 16), 0);

  std::map<std::string, std::vector<std::uint32_t>> keys;
  std::size_t overloaded = 0, aliased = 0;
  std::vector<std::uint32_t> found;
  for (const names::MethodName& m : mn.methods()) {
    auto v = cache->method_name(m.token);
    ASSERT_TRUE(v) << std::hex << m.token;
    EXPECT_EQ(v->coreclr, mn.coreclr_frame(m.token));
    EXPECT_EQ(v->mono, mn.mono_frame(m.token));
    EXPECT_EQ(v->kickoff, m.kickoff);
    EXPECT_EQ(v->iterator, m.kickoff && m.iterator);
    const char* text = nullptr;
    std::size_t len = 0;
    ASSERT_EQ(ilmap_method_name(h, m.token, ILMAP_NAME_CORECLR, &text, &len), 1);
    EXPECT_EQ(std::string_view(text, len), mn.coreclr_frame(m.token));
    ASSERT_EQ(ilmap_method_name(h, m.token, ILMAP_NAME_MONO, &text, &len), 1);
    EXPECT_EQ(std::string_view(text, len), mn.mono_frame(m.token));
    EXPECT_EQ(ilmap_method_name(h, m.token, 2, &text, &len), 0);
    keys[own_key(mn, m)];
    if (m.kickoff) keys[own_key(mn, *mn.method(m.kickoff))];
    // The key of the text a runtime prints is the method's own key, or its kickoff method's
    // for a state-machine method (printed as "Kickoff()+MoveNext()" by CoreCLR, under the
    // kickoff method's text by Mono).
    for (const std::string& printed : {mn.coreclr_frame(m.token), mn.mono_frame(m.token)}) {
      const std::string k = method_name_key(printed);
      EXPECT_TRUE(k == own_key(mn, m) || (m.kickoff && k == own_key(mn, *mn.method(m.kickoff))))
          << printed << " -> " << k;
    }
  }
  for (const auto& [key, unused] : keys) {
    const std::vector<std::uint32_t> want = mn.find(key);
    ASSERT_FALSE(want.empty()) << key;
    EXPECT_EQ(cache->find_methods(key, found), want.size()) << key;
    EXPECT_EQ(found, want) << key;
    std::vector<std::uint32_t> ct(want.size() + 1, 0);
    ASSERT_EQ(ilmap_find_method(h, key.data(), key.size(), ct.data(), ct.size()), want.size());
    ct.pop_back();
    EXPECT_EQ(ct, want);
    EXPECT_EQ(ilmap_find_method(h, key.data(), key.size(), nullptr, 0), want.size());
    std::size_t own = 0;
    for (std::uint32_t t : want) {
      const names::MethodName* m = mn.method(t);
      if (own_key(mn, *m) == key) ++own;
      else aliased += m->kickoff != 0;
    }
    overloaded += own > 1;
  }
  // Misses: a prefix, a suffix, a Mono-style name.
  EXPECT_EQ(cache->find_methods("", found), 0u);
  EXPECT_EQ(cache->find_methods(keys.begin()->first + "x", found), 0u);
  EXPECT_FALSE(cache->method_name(0x06000000u));
  EXPECT_FALSE(cache->method_name(0x06000001u + mn.method_count()));
  EXPECT_FALSE(cache->method_name(0x02000001u));
  if (std::string(GetParam()).find("Frames") != std::string::npos) {
    EXPECT_GT(aliased, 0u) << "cs-frames has async and iterator state machines";
  }
  if (std::string(GetParam()).find("Signatures") != std::string::npos) {
    EXPECT_GT(overloaded, 0u) << "cs-signatures has overloads";
  }
  ilmap_close(h);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusNames,
                         ::testing::Values("out/cs-frames/Ilmap.Corpus.Frames.dll",
                                           "out/cs-signatures/Ilmap.Corpus.Signatures.dll",
                                           "out/cs-features/Ilmap.Corpus.Features.dll"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           const std::string p = info.param;  // out/<case>/...: the case name
                           return gtest_safe(p.substr(4, p.find('/', 4) - 4));
                         });

TEST(Names, StateMachineAliasFindsMoveNext) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  NamedCache c = compile_dll("out/cs-frames/Ilmap.Corpus.Frames.dll");
  auto cache = Cache::from_bytes(c.bytes);
  ASSERT_TRUE(cache);
  std::size_t checked = 0;
  std::vector<std::uint32_t> found;
  for (const names::MethodName& m : c.names->methods()) {
    if (!m.kickoff) continue;
    const std::string kickoff_key = own_key(*c.names, *c.names->method(m.kickoff));
    cache->find_methods(kickoff_key, found);
    EXPECT_NE(std::find(found.begin(), found.end(), m.token), found.end()) << kickoff_key;
    EXPECT_NE(std::find(found.begin(), found.end(), m.kickoff), found.end()) << kickoff_key;
    // The CoreCLR text of the state machine method is its kickoff's.
    EXPECT_TRUE(cache->method_name(m.token)->coreclr.starts_with(kickoff_key));
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(Names, CacheWithoutNamesAnswersNothing) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  NamedCache c = compile_dll("out/cs-frames/Ilmap.Corpus.Frames.dll", false);
  auto cache = Cache::from_bytes(c.bytes);
  ASSERT_TRUE(cache);
  EXPECT_TRUE(cache->verify());
  EXPECT_FALSE(cache->has_method_names());
  EXPECT_EQ(cache->method_name_count(), 0u);
  EXPECT_FALSE(cache->method_name(0x06000001u));
  std::vector<std::uint32_t> found{1};
  EXPECT_EQ(cache->find_methods("Ilmap.Corpus.Frames.Program.Main", found), 0u);
  EXPECT_TRUE(found.empty());
  EXPECT_TRUE(cache->assembly_name().empty());
}

// A cache written by ilmap 0.2 (format 1.0, before the names section), committed as it was:
// format 2.0 readers refuse it by its major version, naming both versions (`ilmap compile`
// rebuilds such a cache; cli test dump-methods).
TEST(Names, Format10CacheIsRefusedByVersion) {
  const std::string path = std::string(ILMAP_TEST_SOURCE_DIR) + "/format-1.0.ilmap";
  auto cache = Cache::open(path);
  ASSERT_FALSE(cache);
  EXPECT_EQ(cache.error().code, Errc::kBadVersion);
  EXPECT_NE(cache.error().message.find("format version 1.0 is not supported (this reader reads 2.x)"), std::string::npos)
      << cache.error().message;
  int errc = 0;
  EXPECT_EQ(ilmap_open(path.c_str(), &errc, nullptr, 0), nullptr);
  EXPECT_EQ(errc, ILMAP_E_BAD_VERSION);
}

TEST(Names, OutOfRangeStringOffsetGivesNoNameAndFailsVerify) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  std::size_t strings_size = 0;
  // Method row 2: coreclr_offset past the string bytes.
  NamedCache c = compile_dll("out/cs-frames/Ilmap.Corpus.Frames.dll", true, [&](NamesSection& n) {
    strings_size = n.strings.size();
    n.methods[1] = fb::MethodNameRef(static_cast<std::uint32_t>(strings_size), n.methods[1].coreclr_length(),
                                     n.methods[1].mono_offset(), n.methods[1].mono_length(), n.methods[1].key_offset(),
                                     n.methods[1].key_length(), n.methods[1].kickoff(), n.methods[1].flags());
  });
  auto cache = Cache::from_bytes(c.bytes);
  ASSERT_TRUE(cache);
  ASSERT_NE(raw_root(*cache)->names()->methods_zstd(), nullptr);
  EXPECT_FALSE(cache->method_name(0x06000002u));
  EXPECT_TRUE(cache->method_name(0x06000001u));
  Status v = cache->verify();
  ASSERT_FALSE(v);
  EXPECT_EQ(v.code(), Errc::kMalformed);
  EXPECT_EQ(v.structure(), CacheStructure::kNames) << v.message();
  EXPECT_NE(v.message().find("0x06000002"), std::string::npos) << v.message();
  // Key range past the end: that method is no longer found by name (it has no index entry),
  // and verify says so.
  NamedCache c2 = compile_dll("out/cs-frames/Ilmap.Corpus.Frames.dll", true, [&](NamesSection& n) {
    const fb::MethodNameRef& m = n.methods[0];
    n.methods[0] = fb::MethodNameRef(m.coreclr_offset(), m.coreclr_length(), m.mono_offset(), m.mono_length(), 0xFFFFFFF0u,
                                     m.key_length(), m.kickoff(), m.flags());
  });
  auto cache2 = Cache::from_bytes(c2.bytes);
  ASSERT_TRUE(cache2);
  std::vector<std::uint32_t> found;
  cache2->find_methods(own_key(*c.names, c.names->methods()[0]), found);
  EXPECT_EQ(std::find(found.begin(), found.end(), 0x06000001u), found.end());
  EXPECT_FALSE(cache2->verify());
}

// A state-machine method whose kickoff names no method: verify fails, and the method is found
// under its own key only (its alias entry cannot be derived).
TEST(Names, BadKickoffFailsVerifyAndHasNoAlias) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  std::uint32_t row = 0, kickoff = 0;
  NamedCache c = compile_dll("out/cs-frames/Ilmap.Corpus.Frames.dll", true, [&](NamesSection& n) {
    for (std::uint32_t i = 0; i < n.methods.size() && !row; ++i) {
      const fb::MethodNameRef& m = n.methods[i];
      if (!m.kickoff()) continue;
      row = i + 1;
      kickoff = m.kickoff();
      n.methods[i] = fb::MethodNameRef(m.coreclr_offset(), m.coreclr_length(), m.mono_offset(), m.mono_length(), m.key_offset(),
                                       m.key_length(), 0x06000000u + static_cast<std::uint32_t>(n.methods.size()) + 1, m.flags());
    }
  });
  ASSERT_NE(row, 0u);
  auto cache = Cache::from_bytes(c.bytes);
  ASSERT_TRUE(cache);
  Status v = cache->verify();
  ASSERT_FALSE(v);
  EXPECT_NE(v.message().find("kickoff"), std::string::npos) << v.message();
  std::vector<std::uint32_t> found;
  cache->find_methods(own_key(*c.names, *c.names->method(kickoff)), found);
  EXPECT_EQ(std::find(found.begin(), found.end(), 0x06000000u | row), found.end());
  EXPECT_NE(std::find(found.begin(), found.end(), kickoff), found.end());
  cache->find_methods(own_key(*c.names, *c.names->method(0x06000000u | row)), found);
  EXPECT_NE(std::find(found.begin(), found.end(), 0x06000000u | row), found.end());
}

// Format 2.0: the method refs are one zstd frame and no index is stored; a frame whose magic is
// broken (checksum resealed) gives no names, no name hits, and fails verify naming the field.
TEST(Names, PackedMethodsAndBrokenFrames) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  NamedCache c = compile_dll("out/cs-manymethods/Ilmap.Corpus.ManyMethods.dll");
  std::size_t methods_at = 0, strings_at = 0;
  {
    auto cache = Cache::from_bytes(c.bytes);
    ASSERT_TRUE(cache);
    ASSERT_TRUE(cache->verify()) << cache->verify().message();
    const auto* n = raw_root(*cache)->names();
    ASSERT_EQ(n->methods(), nullptr);
    ASSERT_NE(n->methods_zstd(), nullptr);
    ASSERT_NE(n->strings_zstd(), nullptr);
    // Packed smaller than the structs they hold.
    EXPECT_LT(n->methods_zstd()->size() * 2, std::size_t(c.names->method_count()) * sizeof(fb::MethodNameRef));
    methods_at = offset_in(*cache, n->methods_zstd()->data());
    strings_at = offset_in(*cache, n->strings_zstd()->data());
    EXPECT_EQ(cache->method_name_count(), c.names->method_count());
  }
  const std::string key = own_key(*c.names, c.names->methods()[0]);
  for (std::size_t at : {methods_at, strings_at}) {
    std::vector<std::uint8_t> b = c.bytes;
    b[at] ^= 0xFF;
    reseal(b);
    auto cache = Cache::from_bytes(b);
    ASSERT_TRUE(cache) << cache.error().message;
    EXPECT_TRUE(cache->has_method_names());
    EXPECT_FALSE(cache->method_name(0x06000001u));
    std::vector<std::uint32_t> found;
    EXPECT_EQ(cache->find_methods(key, found), 0u);
    Status v = cache->verify();
    ASSERT_FALSE(v);
    EXPECT_EQ(v.code(), Errc::kMalformed);
    EXPECT_EQ(v.structure(), CacheStructure::kNames) << v.message();
    EXPECT_NE(v.message().find(at == methods_at ? "methods_zstd" : "strings_zstd"), std::string::npos) << v.message();
    if (at == methods_at) {
      EXPECT_EQ(cache->method_name_count(), 0u);
    }
  }
}

// Names stored both as is and packed (SPEC.md 3.8, open step 15): `strings` made to name the
// bytes of `strings_zstd`, or `methods` to name other bytes of the table (the module name, read
// as method refs) beside `methods_zstd`. Open refuses both with kMalformed naming the fields.
TEST(Names, BothFormsAreRefusedAtOpen) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  NamedCache c = compile_dll("out/cs-frames/Ilmap.Corpus.Frames.dll");
  ASSERT_TRUE(Cache::from_bytes(c.bytes));
  const fb::Names* n = fb::GetCache(c.bytes.data() + 32)->names();
  ASSERT_NE(n, nullptr);
  ASSERT_NE(n->strings_zstd(), nullptr);
  ASSERT_NE(n->methods_zstd(), nullptr);
  const std::pair<std::vector<std::uint8_t>, const char*> cases[] = {
      {with_field_alias(c.bytes, n, fb::Names::VT_STRINGS, fb::Names::VT_STRINGS_ZSTD), "names: strings and strings_zstd"},
      {with_field_alias(c.bytes, n, fb::Names::VT_METHODS, fb::Names::VT_MODULE_NAME), "names: methods and methods_zstd"},
  };
  for (const auto& [bytes, fields] : cases) {
    SCOPED_TRACE(fields);
    ASSERT_FALSE(bytes.empty());
    auto cache = Cache::from_bytes(bytes);
    if (cache) {
      ADD_FAILURE() << "the cache opens";
      continue;
    }
    EXPECT_EQ(cache.error().code, Errc::kMalformed);
    EXPECT_NE(cache.error().message.find(fields), std::string::npos) << cache.error().message;
  }
}

// methods_zstd whose content is not a whole number of 32-byte refs (a valid frame, shrunk in
// place, checksum resealed): no names, and verify says why; the same content rewritten whole
// (the control) reads back every name.
TEST(Names, MethodsFrameOfTheWrongSize) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  NamedCache c = compile_dll("out/cs-frames/Ilmap.Corpus.Frames.dll");
  auto intact = Cache::from_bytes(c.bytes);
  ASSERT_TRUE(intact);
  const auto* z = raw_root(*intact)->names()->methods_zstd();
  ASSERT_NE(z, nullptr);
  std::vector<std::uint8_t> content(ZSTD_getFrameContentSize(z->data(), z->size()));
  ASSERT_EQ(ZSTD_decompress(content.data(), content.size(), z->data(), z->size()), content.size());
  for (bool control : {true, false}) {
    std::vector<std::uint8_t> body = content;
    if (!control) body.pop_back();
    std::vector<std::uint8_t> f(ZSTD_compressBound(body.size()));
    f.resize(ZSTD_compress(f.data(), f.size(), body.data(), body.size(), 1));
    ASSERT_LE(f.size(), z->size());
    std::vector<std::uint8_t> b = c.bytes;
    const std::size_t at = offset_in(*intact, z->data());
    const std::uint32_t n = static_cast<std::uint32_t>(f.size());
    std::memcpy(b.data() + at - 4, &n, 4);
    std::memcpy(b.data() + at, f.data(), f.size());
    reseal(b);
    auto cache = Cache::from_bytes(b);
    ASSERT_TRUE(cache);
    Status v = cache->verify();
    if (control) {
      EXPECT_TRUE(v) << v.message();
      EXPECT_EQ(cache->method_name_count(), c.names->method_count());
      EXPECT_EQ(cache->method_name(c.names->methods()[0].token)->coreclr, c.names->coreclr_frame(c.names->methods()[0].token));
      continue;
    }
    EXPECT_EQ(cache->method_name_count(), 0u);
    EXPECT_FALSE(cache->method_name(0x06000001u));
    ASSERT_FALSE(v);
    EXPECT_EQ(v.code(), Errc::kMalformed);
    EXPECT_EQ(v.structure(), CacheStructure::kNames) << v.message();
    EXPECT_NE(v.message().find("methods_zstd"), std::string::npos) << v.message();
    EXPECT_NE(v.message().find("not a whole number"), std::string::npos) << v.message();
  }
}

// Eight threads make the first name queries of a fresh Cache at once (unpacking both frames and
// deriving the index): all get the same answers, equal to the names library's.
TEST(Names, ConcurrentFirstNameQueriesAgree) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  NamedCache c = compile_dll("out/cs-frames/Ilmap.Corpus.Frames.dll");
  const names::MethodName& last = c.names->methods().back();
  const std::string key = own_key(*c.names, last);
  const std::vector<std::uint32_t> want = c.names->find(key);
  ASSERT_FALSE(want.empty());
  for (int round = 0; round < 20; ++round) {
    auto cache = Cache::from_bytes(c.bytes);
    ASSERT_TRUE(cache);
    std::vector<std::vector<std::uint32_t>> found(8);
    std::vector<std::string> text(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        if (t % 2) {
          if (auto v = cache->method_name(last.token)) text[t] = std::string(v->coreclr);
        }
        cache->find_methods(key, found[t]);
        if (!(t % 2)) {
          if (auto v = cache->method_name(last.token)) text[t] = std::string(v->coreclr);
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 8; ++t) {
      EXPECT_EQ(found[t], want) << "thread " << t;
      EXPECT_EQ(text[t], c.names->coreclr_frame(last.token)) << "thread " << t;
    }
  }
}

TEST(Names, Deterministic) {
  if (!have_corpus()) GTEST_SKIP() << "corpus/out not built";
  EXPECT_EQ(compile_dll("out/cs-signatures/Ilmap.Corpus.Signatures.dll").bytes,
            compile_dll("out/cs-signatures/Ilmap.Corpus.Signatures.dll").bytes);
}

}  // namespace
}  // namespace ilmap::test
