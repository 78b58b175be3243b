// LinesTest.cpp - the reverse line index (format 1.2, SPEC.md 3.7, 6.2, 6.3) against a naive
// scan: for every input, every document and every line that starts code, the line before and
// the line after each (so also 1 past the last; lines between two lines with code bind as the
// next one does, step 3, so these cover every line: #line directives put code at line 16000000),
// and line 1, Cache::lines_in (cache built in memory) must give exactly what a literal reading
// of the rule over all the document's decoded points gives; with a column, every start and end column
// of every point of the line (and one past them) is queried too. The C API's ilmap_lines agrees
// on a sample. Also: verify accepts every cache (step 12), document matching, index size.
#include <gtest/gtest.h>

#include <xxhash.h>

#include <cstring>
#include <map>
#include <set>

#include "CacheTestSupport.h"
#include "TestCases.h"
#include "ilmap/cache.h"
#include "reader/RawCache.h"
#include "ilmap/ilmap.h"
#include "ilmap_generated.h"

namespace ilmap::test {
namespace {

struct Pt {
  std::uint32_t row, il, line, column, end_line, end_column;
};

bool le(std::uint32_t l1, std::uint32_t c1, std::uint32_t l2, std::uint32_t c2) { return l1 < l2 || (l1 == l2 && c1 <= c2); }
bool inside(const Pt& inner, const Pt& outer) {  // inner's span lies in outer's and differs
  const bool same = inner.line == outer.line && inner.column == outer.column && inner.end_line == outer.end_line &&
                    inner.end_column == outer.end_column;
  return !same && le(outer.line, outer.column, inner.line, inner.column) &&
         le(inner.end_line, inner.end_column, outer.end_line, outer.end_column);
}

// SPEC.md 6.2 steps 3-6, literally, over all visible points of the document.
std::vector<Pt> naive_lines(const std::vector<Pt>& all, std::uint32_t line, std::uint32_t column) {
  std::uint32_t target = 0;
  for (const Pt& p : all)
    if (p.line >= line && (!target || p.line < target)) target = p.line;
  std::vector<Pt> q;
  for (const Pt& p : all)
    if (target && p.line == target) q.push_back(p);
  std::vector<Pt> out;
  if (column && target == line) {
    std::vector<Pt> k;
    for (const Pt& p : q)
      if (le(p.line, p.column, line, column) && le(line, column, p.end_line, p.end_column)) k.push_back(p);
    std::map<std::uint32_t, Pt> per;
    for (const Pt& p : k) {
      bool contains_other = false;
      for (const Pt& o : k) contains_other |= o.row == p.row && inside(o, p);
      if (contains_other) continue;
      auto it = per.find(p.row);
      if (it == per.end() || p.il < it->second.il) per[p.row] = p;
    }
    for (const auto& [row, p] : per) {
      bool contains_other = false;
      for (const auto& [r2, o] : per) contains_other |= inside(o, p);
      if (!contains_other) out.push_back(p);
    }
  }
  if (out.empty()) {
    std::map<std::uint32_t, Pt> per;
    for (const Pt& p : q) {
      auto it = per.find(p.row);
      if (it == per.end() || p.column < it->second.column || (p.column == it->second.column && p.il < it->second.il))
        per[p.row] = p;
    }
    for (const auto& [row, p] : per) {
      bool nested = false;
      for (const auto& [r2, o] : per) nested |= inside(p, o);
      if (!nested) out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end(), [](const Pt& a, const Pt& b) { return a.row != b.row ? a.row < b.row : a.il < b.il; });
  return out;
}

std::string show(const std::vector<Pt>& v) {
  std::string s;
  for (const Pt& p : v)
    s += format("[row %u il %u %u:%u-%u:%u] ", p.row, p.il, p.line, p.column, p.end_line, p.end_column);
  return s.empty() ? "(none)" : s;
}

class LinesIndex : public ::testing::TestWithParam<Case> {};

TEST_P(LinesIndex, MatchesNaiveScan) {
  const TestInput& t = GetParam().input;
  SCOPED_TRACE("input: " + t.path);
  if (t.path.empty() || !std::filesystem::exists(t.path)) GTEST_SKIP() << "input absent: " << t.path;
  auto compiled = compile_in_memory(t.path);
  ASSERT_TRUE(compiled) << compiled.error().message;
  const PortablePdb& pdb = *compiled->input->pdb;
  auto cache = Cache::from_bytes(compiled->bytes);
  ASSERT_TRUE(cache) << cache.error().message;
  ASSERT_TRUE(cache->verify()) << cache->verify().error().message;

  // Visible points per document, from the PDB decoder (not from the cache).
  std::vector<std::vector<Pt>> per_doc(cache->document_count());
  std::vector<SequencePoint> pts;
  std::uint64_t visible = 0;
  for (std::uint32_t rid = 1; rid <= pdb.method_count(); ++rid) {
    pts.clear();
    ASSERT_TRUE(pdb.sequence_points(rid, pts));
    for (const SequencePoint& p : pts) {
      if (p.hidden()) continue;
      ASSERT_LT(p.document - 1, per_doc.size());
      per_doc[p.document - 1].push_back({rid, p.il_offset, p.start_line, p.start_column, p.end_line, p.end_column});
      ++visible;
    }
  }
  const auto* root = raw_root(*cache);
  ASSERT_NE(root->lines(), nullptr);
  // Format 2.0 packs the index (index_zstd) when that is smaller: the queries below then read
  // the unpacked frame, else the plain vectors (both layouts meet the naive scan).
  const fb::LineIndex* li = root->lines();
  const bool packed = li->index_zstd() != nullptr;
  EXPECT_TRUE(packed ? !li->doc_blocks() && !li->blocks() && !li->data() : li->doc_blocks() && li->blocks() && li->data());
  const std::uint64_t index_bytes = packed ? li->index_zstd()->size()
                                           : li->doc_blocks()->size() * 4 + li->blocks()->size() * sizeof(fb::LineBlockRef) +
                                                 li->data()->size();
  std::printf("[ index    ] %s: %llu visible points, %llu index bytes%s (%.2f per point)\n", GetParam().name.c_str(),
              static_cast<unsigned long long>(visible), static_cast<unsigned long long>(index_bytes), packed ? " packed" : "",
              visible ? double(index_bytes) / double(visible) : 0.0);

  int err = -1;
  char msg[256];
  ilmap_cache* c = ilmap_open_bytes(compiled->bytes.data(), compiled->bytes.size(), &err, msg, sizeof msg);
  ASSERT_NE(c, nullptr) << msg;
  std::unique_ptr<ilmap_cache, void (*)(ilmap_cache*)> guard(c, ilmap_close);

  std::uint64_t queries = 0;
  std::vector<LineMatch> got;
  for (std::uint32_t d = 0; d < cache->document_count(); ++d) {
    const std::vector<Pt>& all = per_doc[d];
    std::uint32_t last = 0;
    std::map<std::uint32_t, std::set<std::uint32_t>> columns;
    for (const Pt& p : all) {
      last = std::max(last, p.line);
      auto& cs = columns[p.line];
      for (std::uint32_t x : {p.column, p.column + 1, p.end_line == p.line ? p.end_column : p.column,
                              p.end_line == p.line ? p.end_column + 1 : p.column})
        cs.insert(x);
    }
    const std::uint32_t doc = d;
    std::set<std::uint32_t> lines{1, last + 2};
    for (const Pt& p : all) lines.insert({p.line - 1, p.line, p.line + 1});
    lines.erase(0);
    for (std::uint32_t line : lines) {
      std::vector<std::uint32_t> cols{0};
      if (auto it = columns.find(line); it != columns.end()) cols.insert(cols.end(), it->second.begin(), it->second.end());
      for (std::uint32_t col : cols) {
        if (col > 0xFFFF) continue;
        // The naive scan is the rule "all methods" (SPEC.md 6.2); tests/cli lines-debugger checks
        // the default rule against netcoredbg's choices.
        ASSERT_TRUE(cache->lines_in(std::span<const std::uint32_t>(&doc, 1), line, col, got, LineRule::kAllMethods));
        const std::vector<Pt> want = naive_lines(all, line, col);
        std::vector<Pt> have;
        for (const LineMatch& m : got) {
          EXPECT_EQ(m.document, d);
          have.push_back({m.token & 0xFFFFFF, m.il_offset, m.line, m.column, m.end_line, m.end_column});
        }
        const bool same = have.size() == want.size() &&
                          std::equal(have.begin(), have.end(), want.begin(), [](const Pt& a, const Pt& b) {
                            return a.row == b.row && a.il == b.il && a.line == b.line && a.column == b.column &&
                                   a.end_line == b.end_line && a.end_column == b.end_column;
                          });
        ASSERT_TRUE(same) << "document " << d << " line " << line << " column " << col << ": cache " << show(have)
                          << " naive " << show(want);
        ++queries;
        // The C API on the exact path (unique paths only: a repeated path merges documents).
        if (col == 0 && columns.count(line)) {
          const std::string_view path = cache->document_path(d);
          std::vector<std::uint32_t> same_path;
          ASSERT_TRUE(cache->match_documents(path, same_path));
          if (same_path.size() != 1) continue;
          ilmap_line_match out[64];
          size_t count = 0;
          ASSERT_EQ(ilmap_lines_rule(c, path.data(), path.size(), line, 0, ILMAP_LINES_ALL_METHODS, out, 64, &count, msg, sizeof msg),
                    ILMAP_OK)
              << msg;
          ASSERT_EQ(count, got.size());
          for (size_t i = 0; i < count && i < 64; ++i) {
            EXPECT_EQ(out[i].token, got[i].token);
            EXPECT_EQ(out[i].il_offset, got[i].il_offset);
            EXPECT_EQ(std::string_view(out[i].file, out[i].file_len), path);
          }
        }
      }
    }
  }
  std::printf("[ queries  ] %llu\n", static_cast<unsigned long long>(queries));
}

INSTANTIATE_TEST_SUITE_P(Inputs, LinesIndex, ::testing::ValuesIn(cases()), case_name);

// Document matching (SPEC.md 6.3) on a PDB whose paths repeat file names, mix separators and
// letter case (symreader's Documents.pdb).
TEST(LinesDocuments, ExactSeparatorRelativeShortest) {
  const std::string path = shared_dir() + "/symreader_Documents/Documents.pdb";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "input absent: " << path;
  auto compiled = compile_in_memory(path);
  ASSERT_TRUE(compiled) << compiled.error().message;
  auto cache = Cache::from_bytes(compiled->bytes);
  ASSERT_TRUE(cache);
  auto paths_of = [&](std::string_view q, Status& st) {
    std::vector<std::uint32_t> docs;
    st = cache->match_documents(q, docs);
    std::string out;
    for (std::uint32_t d : docs) out += std::string(out.empty() ? "" : "|") + std::string(cache->document_path(d));
    return out;
  };
  Status st;
  EXPECT_EQ(paths_of("C:\\a\\b\\x.cs", st), "C:\\a\\b\\x.cs");                 // exact
  EXPECT_EQ(paths_of("C:/a/b/c/d/1.cs", st), "C:\\a\\b\\c\\d\\1.cs");          // other separator
  EXPECT_EQ(paths_of("1.cs", st), "C:\\a\\b\\c\\d\\1.cs");                     // file name
  EXPECT_EQ(paths_of("c/d/x.cs", st), "C:\\a\\b\\c\\d\\x.cs");                 // path suffix
  EXPECT_EQ(paths_of("\\c\\x.cs", st), "");                                   // absolute: steps 1-2 only
  EXPECT_EQ(st.error().code, Errc::kNotFound);
  EXPECT_EQ(paths_of("X.cs", st), "C:\\a\\b\\X.cs");                           // case-sensitive
  // A bare name matching several paths: the shortest, the first document on a tie (netcoredbg).
  EXPECT_EQ(paths_of("x.cs", st), "C:\\a\\b\\x.cs");
  EXPECT_EQ(paths_of("./c/../x.cs", st), "C:\\a\\b\\x.cs");                    // ./ and ../ resolved
  EXPECT_EQ(paths_of("../../c/x.cs", st), "C:\\A\\b\\c\\x.cs");               // leading ../ dropped
  EXPECT_EQ(paths_of("Documents.cs", st), "/Documents.cs");   // file name (the path has one separator)
  EXPECT_EQ(paths_of("/Documents.cs", st), "/Documents.cs");  // exact
  EXPECT_EQ(paths_of("Nope.cs", st), "");
  EXPECT_EQ(st.error().code, Errc::kNotFound);
  EXPECT_EQ(paths_of("ments.cs", st), "");                    // not on a component boundary
  EXPECT_EQ(st.error().message,
            "no document of the cache matches 'ments.cs' (exact path, either separator, or a path suffix)");
  EXPECT_EQ(paths_of("", st), "");
  EXPECT_EQ(st.error().code, Errc::kUsage);
}

// Corrupt indexes: every byte of the index's vectors of a small cache, flipped (bit 0, then bit
// 7), with the payload checksum fixed up so that only the structure can tell. Lookups on every
// document and line must stay memory-safe (the sanitizer build checks), and whenever verify
// (step 12) accepts the result, every answer must equal the intact cache's: the index's content
// is fixed by its order, so an index that verifies is the index.
TEST(LinesCorrupt, FlippedIndexBytesVerifyFailsOrAnswersUnchanged) {
  const std::string path = corpus_dir() + "/out/cs-features/Ilmap.Corpus.Features.pdb";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "input absent: " << path;
  auto compiled = compile_in_memory(path);
  ASSERT_TRUE(compiled) << compiled.error().message;
  const std::vector<std::uint8_t>& good = compiled->bytes;
  auto intact = Cache::from_bytes(good);
  ASSERT_TRUE(intact);
  // Lines to ask: each visible point's line and the line before it, per document.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> queries;
  std::vector<CachePoint> pts;
  for (std::uint32_t rid = 1; rid <= intact->method_count(); ++rid) {
    pts.clear();
    ASSERT_TRUE(intact->points(rid, pts));
    for (const CachePoint& p : pts)
      if (!p.hidden) queries.insert(queries.end(), {{p.document, p.start_line}, {p.document, p.start_line - 1}});
  }
  auto answers = [&](const Cache& c) {
    std::vector<std::vector<LineMatch>> all;
    std::vector<LineMatch> out;
    for (const auto& [d, line] : queries) {
      const std::uint32_t doc = d;
      (void)c.lines_in(std::span<const std::uint32_t>(&doc, 1), line ? line : 1, 0, out);
      all.push_back(out);
    }
    return all;
  };
  auto same = [](const std::vector<std::vector<LineMatch>>& a, const std::vector<std::vector<LineMatch>>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].size() != b[i].size()) return false;
      for (std::size_t j = 0; j < a[i].size(); ++j) {
        const LineMatch &x = a[i][j], &y = b[i][j];
        if (x.token != y.token || x.il_offset != y.il_offset || x.document != y.document || x.line != y.line ||
            x.column != y.column || x.end_line != y.end_line || x.end_column != y.end_column)
          return false;
      }
    }
    return true;
  };
  const auto expected = answers(*intact);
  const auto* li = raw_root(*intact)->lines();
  ASSERT_NE(li, nullptr);
  const std::uint8_t* base = intact->bytes().data();
  // Format 2.0: the bytes of the packed frame when the index is packed (a flip there changes the
  // frame, or the content it unpacks to).
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  if (li->index_zstd()) {
    ranges = {{static_cast<std::size_t>(li->index_zstd()->Data() - base), li->index_zstd()->size()}};
  } else {
    ranges = {{static_cast<std::size_t>(li->doc_blocks()->Data() - base), li->doc_blocks()->size() * 4},
              {static_cast<std::size_t>(li->blocks()->Data() - base), li->blocks()->size() * sizeof(fb::LineBlockRef)},
              {static_cast<std::size_t>(li->data()->Data() - base), li->data()->size()}};
  }
  std::size_t flips = 0, rejected = 0;
  for (const auto& [start, len] : ranges) {
    for (std::size_t i = start; i < start + len; ++i) {
      for (std::uint8_t bit : {std::uint8_t(0x01), std::uint8_t(0x80)}) {
        std::vector<std::uint8_t> b = good;
        b[i] ^= bit;
        const std::uint64_t sum = XXH3_64bits(b.data() + 32, b.size() - 32);
        std::memcpy(b.data() + 24, &sum, 8);
        auto c = Cache::from_bytes(b);
        ASSERT_TRUE(c) << "byte " << i;  // open does not look inside the index
        const auto got = answers(*c);
        ++flips;
        if (Status v = c->verify(); !v) {
          // kTooLarge: a packed frame's header now claims more than the unpacking limit (SPEC.md 3.8).
          EXPECT_TRUE(v.error().code == Errc::kMalformed || v.error().code == Errc::kTooLarge)
              << "byte " << i << ": " << v.error().message;
          ++rejected;
        } else {
          EXPECT_TRUE(same(got, expected)) << "byte " << i << " bit " << int(bit) << ": verify accepted a changed index";
        }
      }
    }
  }
  std::printf("[ corrupt  ] %zu flips, %zu rejected by verify\n", flips, rejected);
  EXPECT_GT(rejected, flips / 2);
}

// The budget of issue 13: at most 2 index bytes per visible point on average over all inputs
// (the corpus and ../shared), counting the whole index (block refs, document ranges, data).
TEST(LinesIndexSize, AtMostTwoBytesPerVisiblePoint) {
  std::uint64_t points = 0, bytes = 0;
  for (const Case& k : cases()) {
    if (k.input.path.empty() || !std::filesystem::exists(k.input.path)) continue;
    auto compiled = compile_in_memory(k.input.path);
    ASSERT_TRUE(compiled) << compiled.error().message;
    auto cache = Cache::from_bytes(compiled->bytes);
    ASSERT_TRUE(cache);
    const auto* li = raw_root(*cache)->lines();
    ASSERT_NE(li, nullptr);
    points += li->entry_count();
    bytes += li->index_zstd() ? li->index_zstd()->size()
                              : li->doc_blocks()->size() * 4 + li->blocks()->size() * sizeof(fb::LineBlockRef) + li->data()->size();
  }
  if (points == 0) GTEST_SKIP() << "no inputs";
  const double per = double(bytes) / double(points);
  std::printf("[ index    ] all inputs: %llu visible points, %llu index bytes, %.3f bytes per point\n",
              static_cast<unsigned long long>(points), static_cast<unsigned long long>(bytes), per);
  EXPECT_LE(per, 2.0);
}

}  // namespace
}  // namespace ilmap::test
