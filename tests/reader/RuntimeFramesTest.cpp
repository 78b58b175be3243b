// RuntimeFramesTest.cpp - runtime ground truth: every frame of corpus/runtime-frames.tsv (the
// .NET runtime's own file:line:column with the PDB present) resolves through a cache of the
// matching corpus DLL to exactly that file, line and column. Needs no dotnet.
#include <gtest/gtest.h>

#include <map>

#include "CacheTestSupport.h"
#include "ilmap/cache.h"

namespace ilmap::test {
namespace {

struct Frame {
  std::size_t line_no = 0;
  std::string assembly, token, il, file, line, column;
};

// Columns by header name (the header line starts with '#').
std::vector<Frame> read_frames(const std::string& path, std::string& why) {
  std::vector<Frame> frames;
  std::ifstream in(path);
  std::string text;
  std::map<std::string, std::size_t> col;
  std::size_t n = 0;
  auto split = [](const std::string& s) {
    std::vector<std::string> v;
    std::size_t b = 0;
    for (std::size_t e; (e = s.find('\t', b)) != std::string::npos; b = e + 1) v.push_back(s.substr(b, e - b));
    v.push_back(s.substr(b));
    return v;
  };
  while (std::getline(in, text)) {
    ++n;
    if (n == 1) {
      if (!text.empty() && text[0] == '#') text.erase(0, 1);
      const auto names = split(text);
      for (std::size_t i = 0; i < names.size(); ++i) col[names[i]] = i;
      for (const char* need : {"assembly", "token", "il_offset", "file", "line", "column"})
        if (!col.count(need)) {
          why = std::string("header lacks column ") + need;
          return {};
        }
      continue;
    }
    if (text.empty() || text[0] == '#') continue;
    const auto v = split(text);
    auto at = [&](const char* name) { return col[name] < v.size() ? v[col[name]] : std::string(); };
    frames.push_back({n, at("assembly"), at("token"), at("il_offset"), at("file"), at("line"), at("column")});
  }
  return frames;
}

TEST(RuntimeFrames, CacheAnswersWhatTheRuntimePrinted) {
  const std::string tsv = corpus_dir() + "/runtime-frames.tsv";
  if (!std::filesystem::exists(tsv)) GTEST_SKIP() << tsv << " absent";
  std::string why;
  const auto frames = read_frames(tsv, why);
  ASSERT_TRUE(why.empty()) << why;
  ASSERT_FALSE(frames.empty()) << "no frames in " << tsv;

  std::map<std::string, std::string> dll_of;  // assembly name -> DLL path
  for (const ManifestRow& r : manifest_rows())
    dll_of[std::filesystem::path(r.dll).stem().string()] = corpus_dir() + "/" + r.dll;

  std::map<std::string, Compiled> compiled;
  std::map<std::string, Cache> caches;
  std::size_t checked = 0;
  for (const Frame& f : frames) {
    SCOPED_TRACE(::testing::Message() << tsv << ":" << f.line_no << " " << f.assembly << " " << f.token << " " << f.il);
    ASSERT_TRUE(dll_of.count(f.assembly)) << "no manifest row with dll " << f.assembly << ".dll";
    if (!caches.count(f.assembly)) {
      auto c = compile_in_memory(dll_of[f.assembly]);
      ASSERT_TRUE(c) << c.error().message;
      auto cache = Cache::from_bytes(c->bytes);
      ASSERT_TRUE(cache) << cache.error().message;
      compiled.emplace(f.assembly, std::move(*c));
      caches.emplace(f.assembly, std::move(*cache));
    }
    const Cache& cache = caches.at(f.assembly);
    const std::uint32_t token = static_cast<std::uint32_t>(std::stoul(f.token, nullptr, 16));
    const std::uint32_t il = static_cast<std::uint32_t>(std::stoul(f.il, nullptr, 0));
    const auto r = cache.lookup(token, il);
    if (f.file.empty() || f.line.empty() || f.line == "0") {
      EXPECT_FALSE(r.has_value()) << "the runtime printed no line; ilmap answers " << (r ? std::string(r->file) : "");
      ++checked;
      continue;
    }
    ASSERT_TRUE(r.has_value()) << "no answer; the runtime printed " << f.file << ":" << f.line << ":" << f.column;
    EXPECT_EQ(r->file, f.file);
    EXPECT_EQ(std::to_string(r->line), f.line);
    EXPECT_EQ(std::to_string(r->column), f.column);
    ++checked;
  }
  EXPECT_EQ(checked, frames.size());
}

}  // namespace
}  // namespace ilmap::test
