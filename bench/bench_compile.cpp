// bench_compile.cpp - ilmap_bench_compile: compile throughput (PDB held in memory -> cache bytes).
//
//   ilmap_bench_compile [--pdb FILE]... [benchmark flags]     Google Benchmark, one entry per file:
//       compile/<file>  PortablePdb::parse + XXH3 of the input + identity + build_cache
//       decode/<file>   PortablePdb::parse + decode every sequence point (no cache)
//     counters: bytes_per_second (of PDB), points/s, points, pdb_bytes, cache_bytes.
//   ilmap_bench_compile --median [--repeat N] --pdb FILE...   one warm-up, N timed iterations each;
//     prints "file=F pdb_bytes=B points=P cache_bytes=C compile_median_ns=T decode_median_ns=D"
//     (the same shape as the oracle's decode-all, for scripts/bench.sh).
//   --threads N: build_cache encodes with N threads (CacheBuildOptions::threads; used only for
//     PDBs with 1024+ methods and 4 MiB+ of blobs, like `ilmap compile --jobs N`). Default 1.
// Without --pdb: the shared corpus's largest PDBs and corpus/out/cs-{manymethods,bigmethod}.
#include <algorithm>
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>

#include "bench_common.h"

namespace fs = std::filesystem;
using namespace ilmap;
using namespace ilmap::bench;

namespace {

struct Input {
  std::string path, label;
  std::vector<std::uint8_t> bytes;
  std::uint64_t points = 0;
  std::size_t cache_bytes = 0;
};

std::vector<std::string> default_inputs() {
  std::vector<std::string> v;
  const std::string shared = ILMAP_BENCH_SHARED_DIR "/corpus-public";
  std::error_code ec;
  for (const char* dir : {"symbolic_Sentry.Samples.Maui", "asmresolver_LargeIndicesPdb"}) {
    for (auto& e : fs::directory_iterator(shared + "/" + dir, ec))
      if (e.path().extension() == ".pdb") v.push_back(e.path().string());
  }
  for (const char* dir : {"cs-manymethods", "cs-bigmethod"}) {
    for (auto& e : fs::directory_iterator(std::string(ILMAP_BENCH_SOURCE_DIR "/corpus/out/") + dir, ec))
      if (e.path().extension() == ".pdb") v.push_back(e.path().string());
  }
  return v;
}

void set_counters(benchmark::State& state, const Input& in) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.bytes.size()));
  state.counters["points/s"] = benchmark::Counter(double(in.points), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["points"] = double(in.points);
  state.counters["pdb_bytes"] = double(in.bytes.size());
  state.counters["cache_bytes"] = double(in.cache_bytes);
}

void bm_compile(benchmark::State& state, const Input* in) {
  for (auto _ : state) {
    auto r = compile_in_memory(in->bytes, in->label);
    if (!r) {
      state.SkipWithError(r.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(r->cache_bytes);
  }
  set_counters(state, *in);
}

void bm_decode(benchmark::State& state, const Input* in) {
  std::vector<SequencePoint> scratch;
  for (auto _ : state) {
    auto r = decode_all(in->bytes, scratch);
    if (!r) {
      state.SkipWithError(r.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(*r);
  }
  set_counters(state, *in);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  bool median_mode = false;
  int repeat = 20;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--pdb") && i + 1 < argc) files.push_back(argv[++i]);
    else if (!std::strcmp(argv[i], "--median")) median_mode = true;
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) g_compile_threads = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    else rest.push_back(argv[i]);
  }
  if (files.empty()) files = default_inputs();
  if (files.empty()) {
    std::fprintf(stderr, "no inputs (give --pdb FILE)\n");
    return 1;
  }

  std::vector<Input> inputs;
  inputs.reserve(files.size());
  for (const std::string& f : files) {
    Input in;
    in.path = f;
    in.label = fs::path(f).filename().string();
    in.bytes = read_file(f);
    auto r = compile_in_memory(in.bytes, in.label);
    if (!r) {
      std::fprintf(stderr, "%s: %s\n", f.c_str(), r.error().message.c_str());
      return 2;
    }
    in.points = r->points;
    in.cache_bytes = r->cache_bytes;
    inputs.push_back(std::move(in));
  }

  if (median_mode) {
    std::vector<SequencePoint> scratch;
    for (const Input& in : inputs) {
      std::vector<double> tc, td;
      for (int i = -1; i < repeat; ++i) {
        std::uint64_t t0 = now_ns();
        auto r = compile_in_memory(in.bytes, in.label);
        std::uint64_t t1 = now_ns();
        auto d = decode_all(in.bytes, scratch);
        std::uint64_t t2 = now_ns();
        if (!r || !d) return 2;
        if (i >= 0) {
          tc.push_back(double(t1 - t0));
          td.push_back(double(t2 - t1));
        }
      }
      std::printf("file=%s pdb_bytes=%zu points=%llu cache_bytes=%zu compile_median_ns=%.0f decode_median_ns=%.0f\n",
                  in.path.c_str(), in.bytes.size(), static_cast<unsigned long long>(in.points), in.cache_bytes,
                  median(tc), median(td));
      std::fflush(stdout);
    }
    return 0;
  }

  for (const Input& in : inputs) {
    benchmark::RegisterBenchmark(("compile/" + in.label).c_str(), bm_compile, &in)->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("decode/" + in.label).c_str(), bm_decode, &in)->Unit(benchmark::kMicrosecond);
  }
  int bargc = static_cast<int>(rest.size());
  benchmark::Initialize(&bargc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(bargc, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
