// CallTargetTest.cpp - the call-target rule of symbolicate's Android form (docs/symbolicate.md,
// step 2; symbols::MethodIl::may_call over names::MethodKeys) on assemblies built by real
// compilers: the corpus's modules (Roslyn) and the installed .NET runtime's
// System.Private.CoreLib (built by Microsoft), whose MethodDefs the corpus calls by MemberRef.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decode/MetadataSchema.h"
#include "decode/PeFile.h"
#include "decode/names/MethodKeys.h"
#include "support/FileBytes.h"
#include "symbols/MethodIl.h"
#include "symbols/ModuleIndex.h"

namespace ilmap::symbols {
namespace {

namespace fs = std::filesystem;

const std::string kCorpus = ILMAP_TEST_CORPUS_DIR;

// System.Private.CoreLib.dll of the newest shared runtime beside the `dotnet` found through
// $DOTNET_ROOT or $PATH; empty when there is none.
std::string corelib_path() {
  std::vector<fs::path> roots;
  if (const char* r = ::getenv("DOTNET_ROOT"); r && *r) roots.emplace_back(r);
  if (const char* path = ::getenv("PATH")) {
    std::string p = path;
    for (std::size_t start = 0; start <= p.size();) {
      const std::size_t colon = std::min(p.find(':', start), p.size());
      std::error_code ec;
      const fs::path exe = fs::path(p.substr(start, colon - start)) / "dotnet";
      if (fs::is_regular_file(exe, ec)) roots.push_back(fs::canonical(exe, ec).parent_path());
      start = colon + 1;
    }
  }
  for (const fs::path& root : roots) {
    std::error_code ec;
    std::vector<fs::path> versions;
    for (const auto& e : fs::directory_iterator(root / "shared" / "Microsoft.NETCore.App", ec)) versions.push_back(e.path());
    std::sort(versions.begin(), versions.end());
    for (auto it = versions.rbegin(); it != versions.rend(); ++it)
      if (fs::is_regular_file(*it / "System.Private.CoreLib.dll", ec)) return (*it / "System.Private.CoreLib.dll").string();
  }
  return {};
}

struct Module {
  FileBytes file;
  std::optional<PeFile> pe;
  std::optional<names::MethodKeys> keys;
};

// A managed PE and its method keys (a fatal failure when it does not open, parse or build).
void open_module(const std::string& path, Module& m) {
  auto file = FileBytes::open(path);
  ASSERT_TRUE(file) << file.error().message;
  m.file = std::move(*file);
  auto pe = PeFile::parse(m.file.bytes());
  ASSERT_TRUE(pe && pe->metadata()) << path;
  m.pe.emplace(std::move(*pe));
  auto keys = names::MethodKeys::build(*m.pe->metadata());
  ASSERT_TRUE(keys) << keys.error().message;
  m.keys.emplace(std::move(*keys));
}

// Every MemberRef of a corpus module that names a method of a type CoreLib defines under that
// name names exactly one of CoreLib's MethodDefs of that type and name: the overloads
// (String.Concat, Exception..ctor, List`1.Add...) are told apart by signature, with the
// module's TypeRefs compared to CoreLib's TypeDefs by full name; a MethodSpec names what its
// generic method names.
TEST(CallTarget, MemberRefsOfCorpusModulesNameOneCoreLibMethodDef) {
  const std::string corelib = corelib_path();
  if (corelib.empty()) GTEST_SKIP() << "no .NET runtime (System.Private.CoreLib.dll) found";
  Module lib;
  ASSERT_NO_FATAL_FAILURE(open_module(corelib, lib));
  std::map<std::pair<std::string, std::string>, std::vector<names::MethodKey>> defs;
  const Metadata& lmd = *lib.pe->metadata();
  for (std::uint32_t rid = 1; rid <= lmd.rows(kMethodDef); ++rid)
    if (auto k = lib.keys->key(0x06000000u | rid)) defs[{k->type, std::string(k->name)}].push_back(std::move(*k));
  ASSERT_GT(defs.size(), 10000u);

  std::size_t compared = 0, overloaded = 0, generic_type = 0, class_params = 0, specs = 0;
  for (const char* m : {"/out/cs-frames/Ilmap.Corpus.Frames.dll", "/out/cs-signatures/Ilmap.Corpus.Signatures.dll",
                        "/out/cs-features/Ilmap.Corpus.Features.dll"}) {
    const std::string path = kCorpus + m;
    if (!fs::exists(path)) GTEST_SKIP() << "corpus/out not built";
    Module mod;
    ASSERT_NO_FATAL_FAILURE(open_module(path, mod));
    const Metadata& md = *mod.pe->metadata();
    for (std::uint32_t rid = 1; rid <= md.rows(kMemberRef); ++rid) {
      const auto k = mod.keys->key(0x0A000000u | rid);
      if (!k) continue;  // a field, or a method named no exact way (an array's Get)
      const auto it = defs.find({k->type, std::string(k->name)});
      if (it == defs.end()) continue;  // a type of another assembly, or a field
      if (k->sig.empty() && !k->vararg) continue;
      const auto n = std::count_if(it->second.begin(), it->second.end(),
                                   [&](const names::MethodKey& d) { return names::same_method(*k, d); });
      EXPECT_EQ(n, 1) << m << " MemberRef row " << rid << ": " << k->type << "::" << k->name << " " << k->sig;
      ++compared;
      overloaded += it->second.size() > 1;
      generic_type += k->type.find('`') != std::string::npos;
      class_params += k->sig.find(':') != std::string::npos;  // a class or value type named in it
    }
    for (std::uint32_t rid = 1; rid <= md.rows(kMethodSpec); ++rid) {
      const auto k = mod.keys->key(0x2B000000u | rid);
      if (!k) continue;
      const std::uint32_t coded = md.column(kMethodSpec, rid, 0);  // MethodDefOrRef, 1 tag bit
      const auto generic = mod.keys->key(((coded & 1) ? 0x0A000000u : 0x06000000u) | (coded >> 1));
      ASSERT_TRUE(generic);
      EXPECT_TRUE(names::same_method(*k, *generic) && k->sig == generic->sig);
      ++specs;
    }
  }
  // The check saw what it is for: overloads, generic types (a MemberRef on a TypeSpec), classes
  // in signatures, MethodSpecs.
  EXPECT_GT(compared, 50u);
  EXPECT_GT(overloaded, 10u);
  EXPECT_GT(generic_type, 0u);
  EXPECT_GT(class_params, 0u);
  EXPECT_GT(specs, 0u);
}

// Two modules' keys never match across different methods of one name: every MethodDef key of
// CoreLib matches itself and no other MethodDef of its type and name (overloads differ in
// signature), the property a caller frame relies on.
TEST(CallTarget, OverloadsOfCoreLibHaveDistinctKeys) {
  const std::string corelib = corelib_path();
  if (corelib.empty()) GTEST_SKIP() << "no .NET runtime (System.Private.CoreLib.dll) found";
  Module lib;
  ASSERT_NO_FATAL_FAILURE(open_module(corelib, lib));
  std::map<std::pair<std::string, std::string>, std::vector<names::MethodKey>> defs;
  const Metadata& lmd = *lib.pe->metadata();
  for (std::uint32_t rid = 1; rid <= lmd.rows(kMethodDef); ++rid)
    if (auto k = lib.keys->key(0x06000000u | rid)) defs[{k->type, std::string(k->name)}].push_back(std::move(*k));
  std::size_t pairs = 0;
  for (const auto& [where, keys] : defs)
    for (std::size_t i = 0; i < keys.size(); ++i)
      for (std::size_t j = i + 1; j < keys.size(); ++j) {
        EXPECT_FALSE(names::same_method(keys[i], keys[j])) << where.first << "::" << where.second << " " << keys[i].sig;
        ++pairs;
      }
  EXPECT_GT(pairs, 1000u);
}

class CallTargetIl : public testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ilmap-call-target.XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir_;
};

// MethodIl::may_call in one module (cs-frames: Plain.Level2 calls Scenarios.Fail by MethodDef;
// Outer`1.Inner`1.Fail is another method of that name): resolved above, only that very token is
// called; unresolved above, the name decides, as before.
TEST_F(CallTargetIl, ACallNamesTheResolvedMethodOrTheNameWhenUnresolved) {
  const std::string dll = kCorpus + "/out/cs-frames/Ilmap.Corpus.Frames.dll";
  if (!fs::exists(dll)) GTEST_SKIP() << "corpus/out not built";
  fs::create_directories(dir_ + "/set");
  fs::copy_file(dll, dir_ + "/set/Ilmap.Corpus.Frames.dll");
  fs::copy_file(kCorpus + "/out/cs-frames/Ilmap.Corpus.Frames.pdb", dir_ + "/set/Ilmap.Corpus.Frames.pdb");
  ModuleIndexOptions o;
  o.search = {dir_ + "/set"};
  o.cache_dir = dir_ + "/cache";
  auto index = ModuleIndex::create(std::move(o));
  ASSERT_TRUE(index) << index.error().message;
  const ModuleAnswer& a = (*index)->by_file_name("Ilmap.Corpus.Frames.dll");
  ASSERT_TRUE(a.cache) << a.detail;
  const Cache* c = a.cache;
  const std::string caller = "Ilmap.Corpus.Frames.Plain.Level2", fail = "Ilmap.Corpus.Frames.Scenarios.Fail",
                    other = "Ilmap.Corpus.Frames.Outer`1.Inner`1.Fail";
  std::vector<std::uint32_t> level2, fails, others;
  c->find_methods(caller, level2);
  c->find_methods(fail, fails);
  c->find_methods(other, others);
  ASSERT_EQ(level2.size(), 1u);
  ASSERT_EQ(fails.size(), 1u);
  ASSERT_EQ(others.size(), 1u);

  MethodIl il(**index);
  std::optional<IlCall> call;  // Level2's call of Fail, from the first offset whose statement holds it
  for (std::uint32_t off = 0; off < 64 && !call; ++off) {
    const IlSite s = il.site(c, level2[0], off);
    ASSERT_TRUE(s.known);
    for (const IlCall& k : s.calls)
      if (s.boundary && k.name == "Fail") call = k;
  }
  ASSERT_TRUE(call);
  EXPECT_EQ(call->token, fails[0]);  // a MethodDef of the same module
  EXPECT_TRUE(il.may_call(c, *call, fail, Callee{c, fails[0]}));
  EXPECT_FALSE(il.may_call(c, *call, other, Callee{c, others[0]}));  // resolved to the other Fail
  EXPECT_TRUE(il.may_call(c, *call, other, Callee{}));              // unresolved: by name
  EXPECT_FALSE(il.may_call(c, *call, caller, Callee{}));
  // A frame printed under another name than its token's method (a kickoff method's name on its
  // MoveNext): identity unsure, the printed name decides.
  EXPECT_TRUE(il.may_call(c, *call, fail, Callee{c, level2[0]}));
  EXPECT_EQ(simple_name("NS.T..ctor"), ".ctor");
  EXPECT_EQ(simple_name(".ctor"), ".ctor");
  EXPECT_EQ(simple_name("NS.T.M[T](Int32 x)"), "M");
}

}  // namespace
}  // namespace ilmap::symbols
