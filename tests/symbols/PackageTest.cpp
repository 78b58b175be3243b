// PackageTest.cpp - symbols/Package*: the entry-name checks of a NuGet package, OPC
// percent-decoding, the .nuspec fields, source-store URLs, and the longest-common-suffix rule
// that matches PDB documents to package sources (with its tie rules).
#include <gtest/gtest.h>

#include "symbols/PackageIngest.h"
#include "symbols/PackageReader.h"

namespace ilmap::symbols {
namespace {

TEST(PackageEntryName, AcceptsOrdinaryNames) {
  EXPECT_EQ(entry_name_problem("lib/net8.0/Foo.dll"), "");
  EXPECT_EQ(entry_name_problem("[Content_Types].xml"), "");
  EXPECT_EQ(entry_name_problem("src/Foo/"), "");  // a directory entry
  EXPECT_EQ(entry_name_problem("_rels/.rels"), "");
}

TEST(PackageEntryName, RefusesEscapes) {
  EXPECT_NE(entry_name_problem(""), "");
  EXPECT_NE(entry_name_problem("/etc/passwd"), "");
  EXPECT_NE(entry_name_problem("../x"), "");
  EXPECT_NE(entry_name_problem("a/../../x"), "");
  EXPECT_NE(entry_name_problem("a/./x"), "");
  EXPECT_NE(entry_name_problem("a//x"), "");
  EXPECT_NE(entry_name_problem("a\\..\\x"), "");
  EXPECT_NE(entry_name_problem("C:x"), "");
  EXPECT_NE(entry_name_problem("a/x\ny"), "");
  EXPECT_NE(entry_name_problem(std::string(300, 'a')), "");
  EXPECT_NE(entry_name_problem(std::string(1100, 'a')), "");
}

TEST(PackageEntryName, PercentDecodingComesFirst) {
  EXPECT_EQ(percent_decode("src/My%20Project/a%2Bb.cs"), "src/My Project/a+b.cs");
  EXPECT_EQ(percent_decode("%2e%2E/x"), "../x");
  EXPECT_EQ(percent_decode("100%"), "100%");
  EXPECT_EQ(percent_decode("%zz%4"), "%zz%4");
  EXPECT_NE(entry_name_problem(percent_decode("lib/%2e%2e/x")), "");
  EXPECT_NE(entry_name_problem(percent_decode("lib%5C..%5Cx")), "");
}

TEST(PackageNuspec, IdAndVersion) {
  std::string id, version;
  ASSERT_TRUE(parse_nuspec("\xEF\xBB\xBF<?xml version=\"1.0\"?><package xmlns=\"x\"><metadata>\n <id> Foo.Bar </id>"
                           "<version>1.2.3-beta+sha</version><authors>a</authors></metadata></package>",
                           id, version));
  EXPECT_EQ(id, "Foo.Bar");
  EXPECT_EQ(version, "1.2.3-beta+sha");
  ASSERT_TRUE(parse_nuspec("<package><metadata minClientVersion=\"2.12\"><ns:id>X</ns:id><version>2.0</version></metadata></package>", id, version));
  EXPECT_EQ(id, "X");
}

TEST(PackageNuspec, RefusesUnsafeFields) {
  std::string id, version;
  EXPECT_FALSE(parse_nuspec("<package><metadata><id>..</id><version>1.0</version></metadata></package>", id, version));
  EXPECT_FALSE(parse_nuspec("<package><metadata><id>a/b</id><version>1.0</version></metadata></package>", id, version));
  EXPECT_FALSE(parse_nuspec("<package><metadata><id>a</id><version>1.0/../..</version></metadata></package>", id, version));
  EXPECT_FALSE(parse_nuspec("<package><metadata><id>a</id></metadata></package>", id, version));
  EXPECT_FALSE(parse_nuspec("<package/>", id, version));
}

TEST(PackageSources, UrlEncoding) {
  EXPECT_EQ(url_encode_path("Foo/1.0.0/src/A b/Ü.cs"), "Foo/1.0.0/src/A%20b/%C3%9C.cs");
  EXPECT_EQ(url_encode_path("a~b_c-d.e/f"), "a~b_c-d.e/f");
  EXPECT_EQ(url_encode_path("x#y?z%"), "x%23y%3Fz%25");
}

TEST(PackageSources, LongestCommonSuffixWins) {
  const std::vector<std::string> c = {"Other/Util.cs", "Lib/Core/Util.cs", "Core/Util.cs", "Lib/Core/Main.cs"};
  EXPECT_EQ(match_document("C:\\build\\agent\\Lib\\Core\\Util.cs", c), 1);
  EXPECT_EQ(match_document("/home/ci/src/Lib/Core/Main.cs", c), 3);
  EXPECT_EQ(match_document("/x/Other/Util.cs", c), 0);
  EXPECT_EQ(match_document("/x/Missing.cs", c), -1);
  EXPECT_EQ(match_document("", c), -1);
}

TEST(PackageSources, CaseIgnoredAndTies) {
  // Case is ignored (Windows builds).
  EXPECT_EQ(match_document("D:\\A\\LIB\\core\\util.CS", {"x/Util.cs", "lib/Core/Util.cs"}), 1);
  // Equal suffix length: fewer components first, then the byte-wise smaller path.
  EXPECT_EQ(match_document("/r/q/Util.cs", {"b/c/Util.cs", "z/Util.cs", "a/Util.cs"}), 2);
  EXPECT_EQ(match_document("/r/q/Util.cs", {"b/Util.cs", "a/Util.cs"}), 1);
  // The file name must match: a shared directory alone is no match.
  EXPECT_EQ(match_document("/r/Lib/A.cs", {"Lib/B.cs"}), -1);
}

TEST(PackageSources, PackageNames) {
  EXPECT_TRUE(is_package_name("a.nupkg"));
  EXPECT_TRUE(is_package_name("A.SNUPKG"));
  EXPECT_TRUE(is_package_name("x.symbols.nupkg"));
  EXPECT_FALSE(is_package_name("x.nupkg.part"));
  EXPECT_FALSE(is_package_name("x.zip"));
}

}  // namespace
}  // namespace ilmap::symbols
