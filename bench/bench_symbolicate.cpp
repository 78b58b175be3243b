// bench_symbolicate.cpp - ilmap_bench_symbolicate: `ilmap symbolicate` throughput.
//
//   ilmap_bench_symbolicate --make DIR --corpus CORPUS_OUT [--modules 50] [--frames 1000000]
//       DIR/modules: NN copies of the corpus PEs with their PDBs under 50 distinct module names
//       (Mod00.dll + Mod00.pdb, ...); DIR/trace.log: the CoreCLR ShowILOffsets form of that many
//       frames at real sequence points of those modules, 1 line in 5 not a frame (exception
//       headers, text), ~100 bytes a line; DIR/sparse.log: as many lines of ordinary log text,
//       one in 1,000 a frame of trace.log; DIR/originals: the PEs and PDBs under their own
//       names, DIR/modules.tsv: module name TAB original name.
//   ilmap_bench_symbolicate --dir DIR [benchmark flags]   (after --make, and after one run of
//       `ilmap symbolicate --search DIR/modules --cache-dir DIR/cache` made the caches)
//       symbolicate/frames      Symbolicator over the first 200,000 lines of trace.log held in
//                               memory, warm caches: items/s = frames per second on one core
//       symbolicate/prefixed    the same lines behind a journald prefix ("Nov 24 10:00:00 host
//                               app[123]: "): frames found in the middle of a line
//       symbolicate/json        the same exceptions as JSON log lines (Microsoft.Extensions.Logging's
//                               JSON console shape, the trace in "Exception")
//       symbolicate/sparse      log text with one frame line in 1,000 (the others ordinary log
//                               lines with timestamps, ':' and "0x"): bytes/s of text
//       symbolicate/first_use   a new ModuleIndex and cache directory, one module found,
//                               compiled and mapped: time per module (find + compile + map)
// The whole-process run (a 100 MB log through the ilmap program, peak RSS) is scripts/bench-symbolicate.sh.
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "symbols/ModuleIndex.h"
#include "symbolicate/Symbolicator.h"
#include "bench_common.h"
#include "ilmap/cache.h"

using namespace ilmap;
namespace fs = std::filesystem;
namespace sym = ilmap::symbolicate;

namespace {

std::string g_dir;
std::string g_text;  // the benchmark's lines
std::string g_prefixed, g_json, g_sparse;  // the same frames in other log shapes (main)

// Ordinary log lines (timestamps, ':', "0x", brackets): the text around the frames of a sparse log.
constexpr const char* kProse[] = {
    "2026-11-24T10:00:00.123Z info: Microsoft.AspNetCore.Hosting.Diagnostics[1] Request starting HTTP/1.1 GET "
    "http://localhost:5000/api/items/42 - - -",
    "2026-11-24T10:00:00.125Z dbug: App.Worker[0] Worker running at: 11/24/2026 10:00:00 +00:00, that is on time",
    "2026-11-24T10:00:00.131Z warn: App.Cache[3] Cache miss for key user:1234, fetching from shard 0x1f",
    "2026-11-24T10:00:00.140Z info: Microsoft.EntityFrameworkCore.Database.Command[20101] Executed DbCommand (3ms) "
    "[Parameters=[@__p_0='?' (DbType = Int32)], CommandType='Text', CommandTimeout='30']",
    "Nov 24 10:00:00 host app[123]: processed batch 17 in 12 ms, queue length 7, heap at 0x7ffd1234",
};

int make(const std::string& dir, const std::string& corpus, int modules, long frames) {
  std::vector<std::pair<fs::path, fs::path>> pairs;  // PE, PDB
  for (const auto& e : fs::recursive_directory_iterator(corpus)) {
    if (e.path().extension() != ".dll") continue;
    fs::path pdb = e.path();
    pdb.replace_extension(".pdb");
    if (fs::exists(pdb)) pairs.emplace_back(e.path(), pdb);
  }
  std::sort(pairs.begin(), pairs.end());
  if (pairs.empty()) return std::fprintf(stderr, "no PE+PDB pairs under %s\n", corpus.c_str()), 2;
  fs::create_directories(dir + "/modules");
  struct Point { std::uint32_t token, il; };
  std::vector<std::vector<Point>> points;  // per distinct PE
  std::vector<std::vector<std::string>> names;
  for (const auto& [pe, pdb] : pairs) {
    std::vector<Point> pts;
    std::vector<std::string> nm;
    // Compile in memory through the index itself (no cache directory) to read points and names.
    sym::ModuleIndexOptions o;
    o.search = {pe.string(), pdb.string()};
    auto idx = sym::ModuleIndex::create(o);
    const sym::ModuleAnswer* a = idx ? &(*idx)->by_file_name(pe.filename().string()) : nullptr;
    if (!a || !a->cache) continue;
    std::vector<CachePoint> cp;
    for (std::uint32_t rid = 1; rid <= a->cache->method_count(); ++rid) {
      cp.clear();
      if (!a->cache->points(rid, cp)) continue;
      const auto n = a->cache->method_name(0x06000000 | rid);
      for (const CachePoint& p : cp)
        if (!p.hidden && n) pts.push_back({0x06000000 | rid, p.il_offset}), nm.emplace_back(n->coreclr);
    }
    if (!pts.empty()) points.push_back(std::move(pts)), names.push_back(std::move(nm));
  }
  std::vector<std::string> module_names;
  for (int m = 0; m < modules; ++m) {
    char name[32];
    std::snprintf(name, sizeof name, "Mod%02d", m);
    module_names.emplace_back(name);
  }
  std::vector<std::size_t> which(modules);
  for (int m = 0; m < modules; ++m) {
    // Only pairs that produced points; map back to their files by order.
    which[m] = std::size_t(m) % points.size();
  }
  std::size_t k = 0;
  std::vector<std::pair<fs::path, fs::path>> usable;
  for (const auto& pr : pairs) {
    sym::ModuleIndexOptions o;
    o.search = {pr.first.string(), pr.second.string()};
    auto idx = sym::ModuleIndex::create(o);
    if (idx && (*idx)->by_file_name(pr.first.filename().string()).cache) usable.push_back(pr);
    (void)k;
  }
  // originals/ and modules.tsv (module name, original file name) let a tool that finds a PDB by
  // the name the PE's CodeView entry gives (dotnet-stack) read the same frames under their
  // original module names.
  fs::create_directories(dir + "/originals");
  std::ofstream table(dir + "/modules.tsv", std::ios::binary);
  for (int m = 0; m < modules; ++m) {
    const auto& [pe, pdb] = usable[which[m]];
    fs::copy_file(pe, dir + "/modules/" + module_names[m] + ".dll", fs::copy_options::overwrite_existing);
    fs::copy_file(pdb, dir + "/modules/" + module_names[m] + ".pdb", fs::copy_options::overwrite_existing);
    fs::copy_file(pe, dir + "/originals/" + pe.filename().string(), fs::copy_options::overwrite_existing);
    fs::copy_file(pdb, dir + "/originals/" + pdb.filename().string(), fs::copy_options::overwrite_existing);
    table << module_names[m] << '\t' << pe.stem().string() << '\n';
  }
  std::ofstream out(dir + "/trace.log", std::ios::binary);
  std::mt19937_64 rng(42);
  std::string line;
  for (long f = 0; f < frames; ++f) {
    if (f % 4 == 0) out << "System.InvalidOperationException: generated failure number " << f << "\n";
    const int m = int(rng() % std::uint64_t(modules));
    const auto& pts = points[which[m]];
    const std::size_t i = rng() % pts.size();
    char tail[64];
    std::snprintf(tail, sizeof tail, ".dll:token 0x%x+0x%x\n", pts[i].token, pts[i].il);
    line = "   at " + names[which[m]][i] + " in " + module_names[m] + tail;
    out << line;
  }
  out.close();
  // sparse.log: as many lines as trace.log has frames, one in 1,000 a frame of trace.log (in its
  // order), the others ordinary log text: the shape of an application log with a few traces.
  std::ifstream in(dir + "/trace.log", std::ios::binary);
  std::ofstream sparse(dir + "/sparse.log", std::ios::binary);
  for (long i = 0; i < frames; ++i) {
    if (i % 1000 == 999) {
      while (std::getline(in, line) && line.compare(0, 6, "   at ") != 0) {
      }
      sparse << line << '\n';
    } else {
      sparse << kProse[i % 5] << '\n';
    }
  }
  sparse.close();
  std::printf("%d modules (%zu distinct PEs), %ld frames, %llu bytes; sparse.log %llu bytes\n", modules,
              usable.size(), frames, static_cast<unsigned long long>(fs::file_size(dir + "/trace.log")),
              static_cast<unsigned long long>(fs::file_size(dir + "/sparse.log")));
  return 0;
}

// `text` through a Symbolicator, warm caches; items = frames, bytes = text.
void BM_text(benchmark::State& state, const std::string* text) {
  const std::string& input = *text;
  sym::ModuleIndexOptions o;
  o.search = {g_dir + "/modules"};
  o.cache_dir = g_dir + "/cache";
  auto idx = sym::ModuleIndex::create(o);
  if (!idx) return state.SkipWithError(idx.error().message.c_str());
  std::uint64_t bytes = 0;
  sym::Symbolicator warm(**idx, {}, [&](std::string_view s) { bytes += s.size(); });
  std::uint64_t frames = 0;
  auto feed = [&](sym::Symbolicator& s) {
    std::size_t start = 0;
    while (start < input.size()) {
      const std::size_t nl = input.find('\n', start);
      const std::size_t stop = nl == std::string::npos ? input.size() : nl + 1;
      s.line(std::string_view(input).substr(start, stop - start));
      start = stop;
    }
    s.finish();
  };
  feed(warm);  // maps every module once
  for (auto _ : state) {
    sym::Symbolicator s(**idx, {}, [&](std::string_view out) { bytes += out.size(); });
    feed(s);
    frames += s.stats().frames;
    if (s.stats().resolved != s.stats().frames) return state.SkipWithError("unresolved frames: make the caches first");
  }
  bench::g_sink = bytes;
  state.SetItemsProcessed(std::int64_t(frames));
  state.SetBytesProcessed(std::int64_t(input.size()) * std::int64_t(state.iterations()));
  state.counters["frames"] = double(warm.stats().frames);
}

// The log shapes of BM_text, made from the trace's lines.
void make_variants() {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0, nl; (nl = g_text.find('\n', start)) != std::string::npos; start = nl + 1)
    lines.push_back(std::string_view(g_text).substr(start, nl - start));
  for (std::string_view l : lines) g_prefixed.append("Nov 24 10:00:00 host app[123]: ").append(l).append("\n");
  std::string exception;
  auto record = [&] {
    if (exception.empty()) return;
    g_json += R"({"Timestamp":"2026-11-24T10:00:00.000Z","EventId":0,"LogLevel":"Error","Category":"App.Worker",)"
              R"("Message":"Request failed","Exception":)";
    g_json += nlohmann::json(exception).dump();
    g_json += "}\n";
    exception.clear();
  };
  for (std::string_view l : lines) {
    if (l.substr(0, 3) != "   ") record();
    if (!exception.empty()) exception += '\n';
    exception.append(l);
  }
  record();
  std::size_t frame = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i % 1000 == 999) {
      while (frame < lines.size() && lines[frame].substr(0, 6) != "   at ") ++frame;
      if (frame < lines.size()) g_sparse.append(lines[frame++]).append("\n");
    } else {
      g_sparse.append(kProse[i % 5]).append("\n");
    }
  }
}

void BM_first_use(benchmark::State& state) {
  int n = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::string cache = g_dir + "/first-use-cache";
    fs::remove_all(cache);
    state.ResumeTiming();
    sym::ModuleIndexOptions o;
    o.search = {g_dir + "/modules"};
    o.cache_dir = cache;
    auto idx = sym::ModuleIndex::create(o);
    const auto& a = (*idx)->by_file_name("Mod" + std::string(n % 2 ? "01" : "00") + ".dll");
    if (!a.cache) return state.SkipWithError(a.detail.c_str());
    ++n;
  }
}
BENCHMARK(BM_first_use)->Name("symbolicate/first_use")->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  std::string make_dir, corpus;
  int modules = 50;
  long frames = 1000000;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--make") && i + 1 < argc) make_dir = argv[++i];
    else if (!std::strcmp(argv[i], "--corpus") && i + 1 < argc) corpus = argv[++i];
    else if (!std::strcmp(argv[i], "--modules") && i + 1 < argc) modules = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--dir") && i + 1 < argc) g_dir = argv[++i];
    else rest.push_back(argv[i]);
  }
  if (!make_dir.empty()) return make(make_dir, corpus, modules, frames);
  if (g_dir.empty()) {
    std::fprintf(stderr, "usage: ilmap_bench_symbolicate --make DIR --corpus CORPUS_OUT | --dir DIR [benchmark flags]\n");
    return 1;
  }
  std::ifstream f(g_dir + "/trace.log", std::ios::binary);
  std::string line;
  for (int i = 0; i < 200000 && std::getline(f, line); ++i) g_text += line + "\n";
  make_variants();
  benchmark::RegisterBenchmark("symbolicate/frames", BM_text, &g_text)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("symbolicate/prefixed", BM_text, &g_prefixed)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("symbolicate/json", BM_text, &g_json)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("symbolicate/sparse", BM_text, &g_sparse)->Unit(benchmark::kMillisecond);
  int rargc = int(rest.size());
  benchmark::Initialize(&rargc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
