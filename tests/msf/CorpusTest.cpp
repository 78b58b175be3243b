// CorpusTest.cpp - the MSF decoder on the real Windows PDBs of ../shared/corpus-public/win_*:
// the canonical listing equals the reference listing (Mono.Cecil.Pdb) byte for byte, and the
// identity (GUID, DBI age) equals the one the DLL beside it records in its CodeView entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "decode/SymstoreKeys.h"
#include "decode/PeFile.h"
#include "decode/msf/MsfPdb.h"

namespace fs = std::filesystem;
using namespace ilmap;

namespace {

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The body of an expected-sequence-points.txt: every line not starting with '#'.
std::string listing_body(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string line, out;
  while (std::getline(in, line))
    if (line.empty() || line[0] != '#') out += line + "\n";
  return out;
}

std::vector<fs::path> win_folders() {
  std::vector<fs::path> out;
  const fs::path root = fs::path(ILMAP_MSF_SHARED) / "corpus-public";
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  for (const auto& e : fs::directory_iterator(root, ec))
    if (e.is_directory() && e.path().filename().string().rfind("win_", 0) == 0) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

fs::path first_with_extension(const fs::path& dir, const char* ext) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) return e.path();
  return {};
}

}  // namespace

TEST(Corpus, ListingsEqualReference) {
  const auto dirs = win_folders();
  if (dirs.empty()) GTEST_SKIP() << "no win_* folders under " << ILMAP_MSF_SHARED << "/corpus-public";
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.filename().string());
    const fs::path pdb_path = first_with_extension(dir, ".pdb");
    ASSERT_FALSE(pdb_path.empty());
    const auto bytes = read_bytes(pdb_path);
    auto pdb = msf::MsfPdb::parse(bytes);
    ASSERT_TRUE(pdb.ok()) << pdb.error().message;
    const std::string expected = listing_body(dir / "expected-sequence-points.txt");
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(msf::msf_listing(*pdb), expected);
  }
}

TEST(Corpus, IdentityMatchesCodeView) {
  const auto dirs = win_folders();
  if (dirs.empty()) GTEST_SKIP() << "no win_* folders under " << ILMAP_MSF_SHARED << "/corpus-public";
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.filename().string());
    const auto pdb_bytes = read_bytes(first_with_extension(dir, ".pdb"));
    const auto pe_bytes = read_bytes(first_with_extension(dir, ".dll"));
    auto pdb = msf::MsfPdb::parse(pdb_bytes);
    ASSERT_TRUE(pdb.ok()) << pdb.error().message;
    auto pe = PeFile::parse(pe_bytes);
    ASSERT_TRUE(pe.ok()) << pe.error().message;
    const auto& cvs = pe->info().codeview;
    auto cv = std::find_if(cvs.begin(), cvs.end(), [](const CodeViewEntry& e) { return !e.portable(); });
    ASSERT_NE(cv, cvs.end()) << "no Windows CodeView entry";
    EXPECT_EQ(guid_to_text(pdb->guid()), guid_to_text(cv->guid));
    EXPECT_EQ(pdb->age(), cv->age);
    EXPECT_EQ(pdb->info().age(), cv->age);  // the info stream's age agrees in these files
    EXPECT_NE(pdb->info().find("/names"), std::nullopt);
  }
}

// Document facts the reference listings' headers state (Mono.Cecil's Document): C# and VB
// language GUIDs and SHA-1 checksums from /src/files/<name>.
TEST(Corpus, DocumentFacts) {
  const auto dirs = win_folders();
  if (dirs.empty()) GTEST_SKIP() << "no win_* folders";
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.filename().string());
    const auto bytes = read_bytes(first_with_extension(dir, ".pdb"));
    auto pdb = msf::MsfPdb::parse(bytes);
    ASSERT_TRUE(pdb.ok()) << pdb.error().message;
    // "# doc NAME lang=GUID hashalg=GUID hash=HEX ..." lines of the reference.
    std::ifstream in(dir / "expected-sequence-points.txt");
    std::string line;
    std::size_t docs = 0;
    while (std::getline(in, line)) {
      if (line.rfind("# doc ", 0) != 0) continue;
      ++docs;
      std::istringstream ss(line.substr(6));
      std::string name, lang, alg, hash;
      ss >> name >> lang >> alg >> hash;
      auto it = std::find_if(pdb->documents().begin(), pdb->documents().end(),
                             [&](const msf::MsfDocument& d) { return d.name == name; });
      ASSERT_NE(it, pdb->documents().end()) << name;
      EXPECT_EQ("lang=" + guid_to_text(it->language), lang);
      EXPECT_EQ("hashalg=" + guid_to_text(it->hash_algorithm), alg);
      std::string hex;
      for (std::uint8_t b : it->hash) hex += format("%02x", b);
      EXPECT_EQ("hash=" + hex, hash);
    }
    EXPECT_EQ(docs, pdb->documents().size());
  }
}

// The symbol-store key and debug id, from the reference's "# debug_entry type=2 ... codeview_guid=G
// age=A" header line, written independently of decode/SymstoreKeys.cpp: the GUID without dashes,
// then the age in hex.
TEST(Corpus, SymbolStoreKeys) {
  const auto dirs = win_folders();
  if (dirs.empty()) GTEST_SKIP() << "no win_* folders";
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.filename().string());
    const fs::path pdb_path = first_with_extension(dir, ".pdb");
    const auto bytes = read_bytes(pdb_path);
    auto pdb = msf::MsfPdb::parse(bytes);
    ASSERT_TRUE(pdb.ok()) << pdb.error().message;
    std::ifstream in(dir / "expected-sequence-points.txt");
    std::string line, guid, age;
    while (std::getline(in, line)) {
      const auto g = line.find("codeview_guid="), a = line.find(" age=");
      if (line.rfind("# debug_entry type=2", 0) != 0 || g == std::string::npos || a == std::string::npos) continue;
      guid = line.substr(g + 14, 36);
      age = line.substr(a + 5, line.find(' ', a + 5) - (a + 5));
    }
    ASSERT_EQ(guid.size(), 36u);
    std::string n = guid;
    n.erase(std::remove(n.begin(), n.end(), '-'), n.end());
    std::string file = pdb_path.filename().string();
    std::transform(file.begin(), file.end(), file.begin(), [](unsigned char c) { return std::tolower(c); });
    const std::string age_hex = format("%x", static_cast<unsigned>(std::stoul(age)));
    EXPECT_EQ(ssqp_windows_pdb_key(pdb_path.string(), pdb->guid(), pdb->age()),
              file + "/" + n + age_hex + "/" + file);
    EXPECT_EQ(windows_debug_id(pdb->guid(), pdb->age()), guid + "-" + age_hex);
  }
}
