// MsymSourceTest.cpp - where symbolicate finds a frame's .msym (symbolicate/MsymSource.h,
// docs/msym.md section 3): the frame's AOT-id folder, a symbol store's key, a library's own AOT
// run (exactly one), the folder's only file when the PE is unknown; misses and bad files; the
// symbol path after the folders.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/Platform.h"
#include "symbolicate/MsymSource.h"

namespace ilmap::symbolicate {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRun = "796a281f537089fed07ef251475cb24f";    // the program's AOT id
constexpr const char* kOther = "0123456789abcdef0123456789abcdef";  // a library's own run
constexpr const char* kThird = "fedcba9876543210fedcba9876543210";

// An .msym of one method (0x06000001) whose only point, at native offset 0, has IL offset `il`:
// which file was chosen shows in the answer.
void write_msym(const fs::path& p, std::uint8_t il) {
  fs::create_directories(p.parent_path());
  // 1 entry; token 0x06000001 as Mono writes it (4 bytes); index 0; no debug data; 2 bytes of
  // points: zigzag IL, zigzag native 0.
  const unsigned char bytes[] = {1, 0x81, 0x80, 0x80, 0x30, 0, 0, 2, static_cast<unsigned char>(il * 2), 0};
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes), sizeof bytes);
}

struct Dir {
  fs::path root;
  Dir() {
    auto d = platform::make_temp_directory("ilmap-msym-test");
    root = platform::fs_path(d.value_or("/nonexistent"));
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  std::string str() const { return platform::fs_string(root); }
};

int answer(MsymSource& s, std::string_view aot, std::string_view pe, MsymSource::Miss* why = nullptr) {
  MsymSource::Miss miss = MsymSource::Miss::kNone;
  const MsymFile* f = s.find(aot, pe, miss);
  if (why) *why = miss;
  if (!f) return -1;
  const auto il = f->il_offset(0x06000001, MsymFile::kAnyIndex, 0);
  return il ? int(*il) : -2;
}

TEST(MsymSource, TheFramesFolderFirstThenAStoreKey) {
  Dir d;
  write_msym(d.root / kRun / "App.exe.msym", 1);
  write_msym(d.root / kRun / "Lib.dll.msym", 2);
  write_msym(d.root / "lib2.dll.msym" / kRun / "lib2.dll.msym", 3);  // a store's key, lower case
  MsymSource s({d.str()});
  EXPECT_EQ(answer(s, kRun, "App.exe"), 1);
  EXPECT_EQ(answer(s, kRun, "Lib.dll"), 2);
  EXPECT_EQ(answer(s, kRun, "Lib2.dll"), 3);
  MsymSource::Miss why;
  EXPECT_EQ(answer(s, kRun, "Other.dll", &why), -1);  // never the folder's files of other assemblies
  EXPECT_EQ(why, MsymSource::Miss::kNotFound);
}

TEST(MsymSource, ALibraryOfAnotherAotRunOnlyWhenItIsTheOnlyOne) {
  Dir d;
  write_msym(d.root / kRun / "App.exe.msym", 1);
  write_msym(d.root / kOther / "Lib.dll.msym", 4);
  {
    MsymSource s({d.str()});
    EXPECT_EQ(answer(s, kRun, "Lib.dll"), 4);
  }
  write_msym(d.root / kThird / "Lib.dll.msym", 5);  // two AOT builds of Lib: which one ran?
  MsymSource s({d.str()});
  EXPECT_EQ(answer(s, kRun, "Lib.dll"), -1);
}

TEST(MsymSource, WithoutAPeNameTheFoldersOnlyFile) {
  Dir d;
  write_msym(d.root / kRun / "App.exe.msym", 1);
  MsymSource s({d.str()});
  EXPECT_EQ(answer(s, kRun, ""), 1);
  write_msym(d.root / kRun / "Lib.dll.msym", 2);
  MsymSource t({d.str()});
  EXPECT_EQ(answer(t, kRun, ""), -1);
}

TEST(MsymSource, FoldersInOrderAndHostileIds) {
  Dir a, b;
  write_msym(a.root / kRun / "App.exe.msym", 1);
  write_msym(b.root / kRun / "App.exe.msym", 6);
  MsymSource s({b.str(), a.str()});
  EXPECT_EQ(answer(s, kRun, "App.exe"), 6);
  MsymSource::Miss why;
  for (std::string_view bad : {"", "../../../../etc", "796a281f537089fed07ef251475cb24", "796a281f537089fed07ef251475cb24g"}) {
    EXPECT_EQ(answer(s, bad, "App.exe", &why), -1) << bad;
    EXPECT_EQ(why, MsymSource::Miss::kNoAotId) << bad;
  }
  // A PE name with a separator is no file name: as if the PE were unknown (the folder's only file).
  EXPECT_EQ(answer(s, kRun, "../Lib.dll"), 6);
}

TEST(MsymSource, ABadFileIsRememberedAsBad) {
  Dir d;
  fs::create_directories(d.root / kRun);
  std::ofstream(d.root / kRun / "App.exe.msym", std::ios::binary) << std::string{5, 0x01};  // 5 entries in 1 byte
  std::vector<std::string> notes;
  MsymSource s({d.str()}, [&](const std::string& n) { notes.push_back(n); });
  MsymSource::Miss why;
  EXPECT_EQ(answer(s, kRun, "App.exe", &why), -1);
  EXPECT_EQ(why, MsymSource::Miss::kBad);
  EXPECT_EQ(answer(s, kRun, "App.exe", &why), -1);
  EXPECT_EQ(why, MsymSource::Miss::kBad);
  ASSERT_EQ(notes.size(), 1u);  // read and reported once
  EXPECT_NE(notes[0].find("not used"), std::string::npos) << notes[0];
}

// MsymSource::create: the --msym-dir folders first, then the symbol path's entries by the store
// key (here a folder entry, read as a store as a server's download cache is); a file there that
// does not decode is refused by the resolver (not found, with the reason noted).
TEST(MsymSource, TheSymbolPathAfterTheFolders) {
  Dir folder, store;
  write_msym(folder.root / kRun / "App.exe.msym", 1);
  write_msym(store.root / "app.exe.msym" / kRun / "app.exe.msym", 7);
  write_msym(store.root / "lib.dll.msym" / kRun / "lib.dll.msym", 8);
  fs::create_directories(store.root / "bad.dll.msym" / kRun);
  std::ofstream(store.root / "bad.dll.msym" / kRun / "bad.dll.msym", std::ios::binary) << std::string{5, 0x01};
  symbols::ResolveConfig config;
  config.msym_dirs = {folder.str()};
  config.symbol_path = store.str();
  std::vector<std::string> notes;
  config.note = [&](const std::string& n) { notes.push_back(n); };
  auto made = MsymSource::create(config, "--msym-dir");
  ASSERT_TRUE(made) << made.error().message;
  MsymSource& s = **made;
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(answer(s, kRun, "App.exe"), 1);  // the folder's, not the store's
  EXPECT_EQ(answer(s, kRun, "Lib.dll"), 8);  // only on the symbol path
  MsymSource::Miss why;
  EXPECT_EQ(answer(s, kRun, "Bad.dll", &why), -1);
  EXPECT_EQ(why, MsymSource::Miss::kNotFound);
  EXPECT_EQ(answer(s, kOther, "Lib.dll", &why), -1);  // by the frame's AOT id only: no listing
  EXPECT_EQ(why, MsymSource::Miss::kNotFound);
  bool refused = false;
  for (const std::string& n : notes) refused |= n.find("refused") != std::string::npos && n.find("bad.dll.msym") != std::string::npos;
  EXPECT_TRUE(refused) << "no note says the bad file was refused";

  // Neither folders nor a symbol path: empty (the frames need one); a folder that is not there:
  // the error names it.
  auto none = MsymSource::create(symbols::ResolveConfig{}, "--msym-dir");
  ASSERT_TRUE(none);
  EXPECT_TRUE((*none)->empty());
  symbols::ResolveConfig missing;
  missing.msym_dirs = {(folder.root / "nope").string()};
  auto bad = MsymSource::create(missing, "--msym-dir");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, Errc::kNotFound);
  EXPECT_NE(bad.error().message.find("--msym-dir"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace ilmap::symbolicate
