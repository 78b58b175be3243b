// sentry_check.cpp - test driver for symbolicate/SentryEvent (tests/sentry/run.sh).
//
//   ilmap_sentry_check symbolicate CACHE...      stdin -> stdout, the summary on stderr
//   ilmap_sentry_check verify CACHE WITH WITHOUT OUT MAPPED=DIR
//       WITH/WITHOUT: SentryProbe's output run with and without its PDB (envelopes and
//       truth.tsv). Every envelope of WITHOUT is symbolicated into OUT; then each frame of the
//       probe's own module must carry the file, line and column that (1) the SDK itself
//       reported in WITH's envelope, frame for frame, and (2) the runtime's own StackTrace
//       printed for that method token and IL offset (WITH/truth.tsv); its context_line must be
//       that line of the source file (document paths starting with MAPPED are read from DIR:
//       the build maps its source folder as CI builds do); frames of other modules (System.Linq, ...) must be left
//       exactly as they were. Exit 0 when all agree, 1 otherwise.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "symbolicate/SentryEvent.h"

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool load_caches(char** argv, int from, int to, ilmap::SentryCacheSetProvider& provider) {
  for (int i = from; i < to; ++i) {
    auto c = ilmap::Cache::open(argv[i]);
    if (!c) {
      std::cerr << "ilmap_sentry_check: error: " << argv[i] << ": " << c.error().message << "\n";
      return false;
    }
    provider.add(std::move(*c));
  }
  return true;
}

// The payload of the first `event` item of an envelope written by the SDK (one line each).
Json event_of(const std::string& envelope) {
  std::istringstream in(envelope);
  std::string line;
  bool next_is_event = false;
  while (std::getline(in, line)) {
    if (next_is_event) return Json::parse(line);
    if (line.find("\"type\":\"event\"") != std::string::npos) next_is_event = true;
  }
  return Json();
}

// The stack traces of an event: exception.values[] then threads.values[], in order.
std::vector<const Json*> traces(const Json& event) {
  std::vector<const Json*> r;
  for (const char* key : {"exception", "threads"})
    if (event.contains(key) && event[key].contains("values"))
      for (const Json& v : event[key]["values"])
        if (v.contains("stacktrace")) r.push_back(&v["stacktrace"]);
  return r;
}

std::vector<std::string> source_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  std::string l;
  while (std::getline(in, l)) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    lines.push_back(l);
  }
  if (!lines.empty() && lines[0].compare(0, 3, "\xEF\xBB\xBF") == 0) lines[0].erase(0, 3);
  return lines;
}

int verify(const char* cache_path, const fs::path& with, const fs::path& without, const fs::path& out,
           const std::string& path_map) {
  const std::string mapped = path_map.substr(0, path_map.find('=')), local = path_map.substr(path_map.find('=') + 1);
  ilmap::SentryCacheSetProvider provider;
  char* argv[] = {const_cast<char*>(cache_path)};
  if (!load_caches(argv, 0, 1, provider)) return 2;
  // truth.tsv: scenario, token, IL offset, file, line, column (the runtime with the PDB)
  std::map<std::tuple<std::string, std::uint32_t, std::uint32_t>, std::tuple<std::string, int, int>> truth;
  std::set<std::string> scenarios_with_truth;
  {
    std::istringstream in(read_file(with / "truth.tsv"));
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::istringstream ls(line);
      for (std::string x; std::getline(ls, x, '\t');) f.push_back(x);
      if (f.size() < 6 || f[3].empty()) continue;
      truth[{f[0], std::stoul(f[1], nullptr, 16), std::stoul(f[2])}] = {f[3], std::stoi(f[4]), std::stoi(f[5])};
      scenarios_with_truth.insert(f[0]);
    }
  }
  fs::create_directories(out);
  int failures = 0, checked = 0, others = 0, contexts = 0, urls = 0, sdk_agreed = 0, merged = 0;
  auto fail = [&](const std::string& where, const std::string& what) {
    ++failures;
    std::cout << "FAIL " << where << ": " << what << "\n";
  };
  ilmap::SentryStats stats;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(without))
    if (e.path().extension() == ".envelope") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const std::string scenario = file.stem().string();
    const std::string input = read_file(file);
    std::string output;
    if (ilmap::Status s = ilmap::symbolicate_sentry_text(input, output, provider, {}, stats); !s) {
      fail(scenario, s.message());
      continue;
    }
    std::ofstream(out / file.filename(), std::ios::binary) << output;
    const Json before = event_of(input), after = event_of(output), sdk = event_of(read_file(with / file.filename()));
    const Json& images = after["debug_meta"]["images"];
    const auto traces_a = traces(before), traces_b = traces(after), traces_sdk = traces(sdk);
    if (traces_a.size() != traces_b.size()) fail(scenario, "the number of stack traces changed");
    for (std::size_t v = 0; v < traces_b.size() && v < traces_a.size(); ++v) {
      const Json& frames = (*traces_b[v])["frames"];
      for (std::size_t i = 0; i < frames.size(); ++i) {
        const Json& f = frames[i];
        const Json& orig = (*traces_a[v])["frames"][i];
        // The SDK's frame for the same method and IL offset. Not always frame i: the SDK's
        // default (Enhanced) stack traces merge recursive frames ("M(...) x 3") by comparing
        // file and line too, so the same trace has fewer frames with the PDB than without.
        const Json* want = nullptr;
        if (v < traces_sdk.size())
          for (const Json& w : (*traces_sdk[v])["frames"])
            if (w.value("function_id", Json()) == f.value("function_id", Json()) &&
                w.value("instruction_addr", Json()) == f.value("instruction_addr", Json()))
              want = &w;
        const std::string where = scenario + " stack trace " + std::to_string(v) + " frame " + std::to_string(i) +
                                  " (" + f.value("function", std::string("?")) + ")";
        const std::size_t image = std::stoul(f.value("addr_mode", std::string("rel:999999")).substr(4));
        const std::string debug_file = image < images.size() ? images[image].value("debug_file", "") : "";
        if (debug_file.size() < 15 || debug_file.compare(debug_file.size() - 15, 15, "SentryProbe.pdb") != 0) {
          ++others;
          if (f != orig) fail(where, "a frame of another module was changed: " + f.dump());
          continue;
        }
        ++checked;
        if (!f.contains("lineno")) {
          fail(where, "not resolved");
          continue;
        }
        // (1) the SDK's own answer with the PDB deployed, frame for frame
        // The SDK writes the document path as abs_path when it lies under the project folder
        // (then filename is relative to it), else as filename alone (so with mapped paths).
        const Json sdk_path = want ? want->value("abs_path", want->value("filename", Json())) : Json();
        if (!want) {
          ++merged;
        } else if (f["lineno"] != (*want)["lineno"] || f.value("colno", 0) != want->value("colno", 0) ||
                   f["abs_path"] != sdk_path) {
          fail(where, "ilmap " + f["abs_path"].dump() + ":" + f["lineno"].dump() + ":" + f.value("colno", Json(0)).dump() +
                          " but the SDK with the PDB " + sdk_path.dump() + ":" +
                          want->value("lineno", Json()).dump() + ":" + want->value("colno", Json()).dump());
        } else {
          ++sdk_agreed;
        }
        // (2) the runtime's StackTrace for the same token and IL offset
        const std::uint32_t token = 0x06000000u | std::stoul(f["function_id"].get<std::string>(), nullptr, 16);
        const std::uint32_t il = std::stoul(f["instruction_addr"].get<std::string>(), nullptr, 16);
        auto t = truth.find({scenario, token, il});
        if (!scenarios_with_truth.count(scenario)) {
          if (!want) fail(where, "no truth for this scenario and no SDK frame to compare with");
        } else if (t == truth.end()) {
          fail(where, "no runtime frame for this token and IL offset in truth.tsv");
        } else {
          const auto& [tfile, tline, tcol] = t->second;
          if (f["abs_path"] != tfile || f["lineno"] != tline || f.value("colno", 0) != tcol)
            fail(where, "runtime says " + tfile + ":" + std::to_string(tline) + ":" + std::to_string(tcol));
        }
        // (3) the context line is that line of the source, and the URL is the SourceLink one
        if (f.contains("context_line")) {
          ++contexts;
          std::string path = f["abs_path"];
          if (path.compare(0, mapped.size(), mapped) == 0) path = local + path.substr(mapped.size());
          const auto lines = source_lines(path);
          const int n = f["lineno"].get<int>();
          if (n < 1 || static_cast<std::size_t>(n) > lines.size() || lines[n - 1] != f["context_line"])
            fail(where, "context_line is not line " + std::to_string(n) + " of the source");
          if (f["pre_context"].size() != std::min<std::size_t>(5, n - 1)) fail(where, "pre_context is not 5 lines");
          else if (n >= 2 && f["pre_context"].back() != lines[n - 2]) fail(where, "pre_context does not end with the line before");
        }
        if (f.contains("source_link")) {
          ++urls;
          const std::string u = f["source_link"], name = f["filename"];
          if (u != "https://sources.example/ilmap/tests/sentry/" + name) fail(where, "source_link " + u);
        }
      }
    }
  }
  if (checked == 0) fail("all", "no frame of SentryProbe found");
  if (sdk_agreed * 4 < checked * 3) fail("all", "fewer than 3 in 4 frames have a twin in the SDK's events with the PDB");
  if (contexts != checked) fail("all", std::to_string(checked - contexts) + " resolved frames without source context");
  if (urls != checked) fail("all", std::to_string(checked - urls) + " resolved frames without source_link");
  std::cerr << stats.summary();
  std::cout << files.size() << " events, " << checked << " SentryProbe frames checked (" << contexts
            << " with context; " << sdk_agreed << " also against the SDK's own frame, " << merged
            << " merged by the SDK with the PDB: runtime only), " << others << " frames of other modules left alone, " << failures << " failures\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "symbolicate") {
    ilmap::SentryCacheSetProvider provider;
    if (!load_caches(argv, 2, argc, provider)) return 2;
    std::stringstream in;
    in << std::cin.rdbuf();
    std::string out;
    ilmap::SentryStats stats;
    ilmap::SentryOptions options;
    if (ilmap::Status s = ilmap::symbolicate_sentry_text(in.str(), out, provider, options, stats); !s) {
      std::cerr << "ilmap_sentry_check: error: " << s.message() << "\n";
      return ilmap::exit_code_for(s.code());
    }
    std::cout << out;
    std::cerr << stats.summary();
    return 0;
  }
  if (mode == "verify" && argc == 7) return verify(argv[2], argv[3], argv[4], argv[5], argv[6]);
  std::cerr << "usage: ilmap_sentry_check symbolicate CACHE... < IN > OUT\n"
               "       ilmap_sentry_check verify CACHE WITH_PDB_DIR WITHOUT_PDB_DIR OUTDIR MAPPED=DIR\n";
  return 1;
}
