// FilePointerTest.cpp - symbols/FilePointer: parsing symstore's file.ptr lines and the key of
// the pointer beside a file.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "symbols/FilePointer.h"

namespace ilmap::symbols {
namespace {

Result<FilePointer> parse(const std::string& s) {
  return parse_file_pointer({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
}

TEST(FilePointer, PathAndMessage) {
  auto p = parse("PATH:\\\\build\\syms\\foo.pdb\r\n");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->kind, FilePointer::Kind::kPath);
  EXPECT_EQ(p->value, "\\\\build\\syms\\foo.pdb");
  EXPECT_TRUE(p->unc());
  EXPECT_FALSE(p->url());
  EXPECT_FALSE(p->drive());
  auto d = parse("PATH:c:/syms/foo.pdb");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->drive());
  EXPECT_FALSE(d->unc());
  auto u = parse("  path: https://x.example/foo.pdb ");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->value, "https://x.example/foo.pdb");
  EXPECT_TRUE(u->url());
  auto m = parse("MSG: pulled\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, FilePointer::Kind::kMessage);
  EXPECT_EQ(m->value, "pulled");
}

TEST(FilePointer, Malformed) {
  for (const std::string& bad : std::vector<std::string>{"", "PATH:", "MSG:  \n", "FILE:/x", "PATH:/a\nPATH:/b", std::string("PATH:/a\0b", 9),
                                "PATH:" + std::string(kMaxFilePointerBytes, 'a')}) {
    auto r = parse(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Errc::kMalformed);
  }
}

TEST(FilePointer, KeyBesideTheFile) {
  EXPECT_EQ(file_pointer_key("foo.pdb/0123FFFFFFFF/foo.pdb"), "foo.pdb/0123FFFFFFFF/file.ptr");
}

}  // namespace
}  // namespace ilmap::symbols
