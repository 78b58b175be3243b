// LookupTest.cpp - exhaustive lookups: for every method of every corpus and shared input and
// every IL offset from 0 to 16 past the method's last point, Cache::lookup (cache built in
// memory, opened with from_bytes) and the C API's ilmap_lookup must give exactly the answer of
// a naive walk of the decoded points under the normative rule (SPEC.md section 6).
#include <gtest/gtest.h>

#include <cstring>

#include "CacheTestSupport.h"
#include "TestCases.h"
#include "ilmap/cache.h"
#include "ilmap/ilmap.h"

namespace ilmap::test {
namespace {

Language expected_language(const Guid& g) {
  // Text forms from the Portable PDB spec, parsed here rather than shared with the builder.
  if (g == Guid{}) return Language::kUnknown;
  if (g == guid_from_text("3f5162f8-07c6-11d3-9053-00c04fa302a1")) return Language::kCSharp;
  if (g == guid_from_text("3a12d0b8-c26c-11d0-b442-00a0244a1dd2")) return Language::kVisualBasic;
  if (g == guid_from_text("ab4f38c9-b6e6-43ba-be3b-58080b2ccce3")) return Language::kFSharp;
  return Language::kOther;
}

class ExhaustiveLookup : public ::testing::TestWithParam<Case> {};

TEST_P(ExhaustiveLookup, MatchesNaiveWalk) {
  const TestInput& t = GetParam().input;
  SCOPED_TRACE("input: " + t.path);
  if (t.path.empty() || !std::filesystem::exists(t.path)) GTEST_SKIP() << "input absent: " << t.path;
  auto compiled = compile_in_memory(t.path);
  ASSERT_TRUE(compiled) << compiled.error().message;
  const PortablePdb& pdb = *compiled->input->pdb;
  auto docs = pdb.documents();
  ASSERT_TRUE(docs) << docs.error().message;

  auto cache = Cache::from_bytes(compiled->bytes);
  ASSERT_TRUE(cache) << cache.error().message;
  int err = -1;
  char msg[256];
  ilmap_cache* c = ilmap_open_bytes(compiled->bytes.data(), compiled->bytes.size(), &err, msg, sizeof msg);
  ASSERT_NE(c, nullptr) << msg;
  EXPECT_EQ(err, ILMAP_OK);
  std::unique_ptr<ilmap_cache, void (*)(ilmap_cache*)> guard(c, ilmap_close);

  const std::uint32_t methods = pdb.method_count();
  ASSERT_EQ(cache->method_count(), methods);
  ASSERT_EQ(ilmap_method_count(c), methods);

  std::uint64_t queries = 0, hits = 0, total_points = 0;
  std::vector<SequencePoint> pts;
  for (std::uint32_t rid = 1; rid <= methods; ++rid) {
    pts.clear();
    ASSERT_TRUE(pdb.sequence_points(rid, pts)) << "row " << rid;
    total_points += pts.size();
    std::uint32_t last = 0;
    for (const SequencePoint& p : pts) last = std::max(last, p.il_offset);
    const std::uint32_t token = 0x06000000u | rid;
    const std::uint32_t end = pts.empty() ? 16 : last + 16;
    for (std::uint32_t il = 0; il <= end; ++il) {
      ++queries;
      const long want = naive_lookup(pts, il);
      const auto got = cache->lookup(token, il);
      ilmap_location loc;
      std::memset(&loc, 0, sizeof loc);
      const int cgot = ilmap_lookup(c, token, il, &loc);
      if (want < 0) {
        ASSERT_FALSE(got.has_value()) << t.name << " token " << std::hex << token << std::dec << " il " << il;
        ASSERT_EQ(cgot, 0) << "C API, token " << std::hex << token << std::dec << " il " << il;
        continue;
      }
      ++hits;
      const SequencePoint& p = pts[static_cast<std::size_t>(want)];
      const Document& d = (*docs)[p.document - 1];
      ASSERT_TRUE(got.has_value()) << t.name << " token " << std::hex << token << std::dec << " il " << il;
      const auto where = [&] {
        return ::testing::Message() << t.name << " token 0x" << std::hex << token << std::dec << " il " << il;
      };
      ASSERT_EQ(got->file, d.name) << where();
      ASSERT_EQ(got->language, expected_language(d.language)) << where();
      ASSERT_EQ(got->document, p.document - 1) << where();
      ASSERT_EQ(got->il_offset, p.il_offset) << where();
      ASSERT_EQ(got->line, p.start_line) << where();
      ASSERT_EQ(got->column, p.start_column) << where();
      ASSERT_EQ(got->end_line, p.end_line) << where();
      ASSERT_EQ(got->end_column, p.end_column) << where();
      // The same by row, and through the C API.
      const auto by_row = cache->lookup_row(rid, il);
      ASSERT_TRUE(by_row.has_value()) << where();
      ASSERT_EQ(by_row->il_offset, got->il_offset) << where();
      ASSERT_EQ(cgot, 1) << where();
      ASSERT_EQ(std::string_view(loc.file, loc.file_len), d.name) << where();
      ASSERT_STREQ(loc.language, language_label(expected_language(d.language))) << where();
      ASSERT_EQ(loc.line, p.start_line) << where();
      ASSERT_EQ(loc.column, p.start_column) << where();
      ASSERT_EQ(loc.end_line, p.end_line) << where();
      ASSERT_EQ(loc.end_column, p.end_column) << where();
      ASSERT_EQ(loc.il_offset, p.il_offset) << where();
      ASSERT_EQ(loc.url_len, got->source_url.size()) << where();
    }
    // A token of any other table never answers, even where the MethodDef token would.
    const std::uint32_t probe = pts.empty() ? 0 : last;
    for (std::uint32_t table : {0x00u, 0x01u, 0x02u, 0x04u, 0x07u, 0x0Au, 0x2Bu, 0x31u, 0xFFu}) {
      const std::uint32_t other = (table << 24) | rid;
      EXPECT_FALSE(cache->lookup(other, probe).has_value()) << "token 0x" << std::hex << other;
      ilmap_location loc;
      EXPECT_EQ(ilmap_lookup(c, other, probe, &loc), 0) << "C API, token 0x" << std::hex << other;
    }
  }
  EXPECT_EQ(cache->point_count(), total_points);
  EXPECT_EQ(ilmap_point_count(c), total_points);

  // Rows 0 and past the end.
  for (std::uint32_t rid : {0u, methods + 1, methods + 2, 0xFFFFFFu}) {
    for (std::uint32_t il : {0u, 1u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
      EXPECT_FALSE(cache->lookup(0x06000000u | rid, il).has_value()) << "row " << rid << " il " << il;
      EXPECT_FALSE(cache->lookup_row(rid, il).has_value()) << "row " << rid << " il " << il;
      ilmap_location loc;
      EXPECT_EQ(ilmap_lookup(c, 0x06000000u | rid, il, &loc), 0) << "row " << rid;
      EXPECT_EQ(ilmap_lookup_row(c, rid, il, &loc), 0) << "row " << rid;
    }
  }
  EXPECT_FALSE(cache->lookup_row(0x1000000u, 0).has_value());  // beyond 24 bits
  // NULL arguments never answer.
  ilmap_location loc;
  EXPECT_EQ(ilmap_lookup(nullptr, 0x06000001, 0, &loc), 0);
  EXPECT_EQ(ilmap_lookup(c, 0x06000001, 0, nullptr), 0);
  RecordProperty("queries", std::to_string(queries));
  RecordProperty("hits", std::to_string(hits));
  if (total_points > 0) {
    EXPECT_GT(hits, 0u) << "a PDB with points must answer some queries";
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, ExhaustiveLookup, ::testing::ValuesIn(cases()), case_name);

// The same for the Windows (MSF) PDBs of corpus-public, each as its .pdb and through its .dll:
// the naive walk runs over the points msf::MsfPdb decoded (PDB order), rows are token rows.
class WindowsLookup : public ::testing::TestWithParam<TestInput> {};

TEST_P(WindowsLookup, MatchesNaiveWalk) {
  const TestInput& t = GetParam();
  if (t.path.empty() || !std::filesystem::exists(t.path)) GTEST_SKIP() << "input absent: " << t.path;
  auto compiled = compile_in_memory(t.path, true);
  ASSERT_TRUE(compiled) << compiled.error().message;
  ASSERT_TRUE(compiled->input->msf.has_value()) << t.path << " did not open as a Windows PDB";
  const msf::MsfPdb& pdb = *compiled->input->msf;
  auto cache = Cache::from_bytes(compiled->bytes);
  ASSERT_TRUE(cache) << cache.error().message;

  std::vector<const msf::MsfMethod*> by_row;
  for (const msf::MsfMethod& m : pdb.methods()) {
    const std::uint32_t rid = m.token & 0xFFFFFFu;
    if (by_row.size() < rid) by_row.resize(rid, nullptr);
    by_row[rid - 1] = &m;
  }
  ASSERT_EQ(cache->method_count(), by_row.size());
  ASSERT_EQ(cache->point_count(), pdb.point_count());
  std::uint64_t hits = 0;
  const std::vector<SequencePoint> none;
  for (std::uint32_t rid = 1; rid <= by_row.size(); ++rid) {
    const std::vector<SequencePoint>& pts = by_row[rid - 1] ? by_row[rid - 1]->points : none;
    std::uint32_t last = 0;
    for (const SequencePoint& p : pts) last = std::max(last, p.il_offset);
    const std::uint32_t token = 0x06000000u | rid;
    for (std::uint32_t il = 0; il <= last + 16; ++il) {
      const long want = naive_lookup(pts, il);
      const auto got = cache->lookup(token, il);
      const auto where = [&] {
        return ::testing::Message() << t.name << " token 0x" << std::hex << token << std::dec << " il " << il;
      };
      if (want < 0) {
        ASSERT_FALSE(got.has_value()) << where();
        continue;
      }
      ++hits;
      const SequencePoint& p = pts[static_cast<std::size_t>(want)];
      const msf::MsfDocument& d = pdb.documents()[p.document - 1];
      ASSERT_TRUE(got.has_value()) << where();
      ASSERT_EQ(got->file, d.name) << where();
      ASSERT_EQ(got->language, expected_language(d.language)) << where();
      ASSERT_EQ(got->il_offset, p.il_offset) << where();
      ASSERT_EQ(got->line, p.start_line) << where();
      ASSERT_EQ(got->column, p.start_column) << where();
      ASSERT_EQ(got->end_line, p.end_line) << where();
      ASSERT_EQ(got->end_column, p.end_column) << where();
    }
  }
  EXPECT_GT(hits, 0u);
}

std::string input_name(const ::testing::TestParamInfo<TestInput>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Windows, WindowsLookup, ::testing::ValuesIn(windows_inputs()), input_name);

}  // namespace
}  // namespace ilmap::test
