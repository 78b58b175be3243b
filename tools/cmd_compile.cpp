// cmd_compile.cpp - `ilmap compile INPUT... [-o OUT | --out-dir DIR] [--pdb FILE]
//                   [--include GLOB] [--exclude GLOB] [--json] [--embed-sources] [--jobs N]
//                   [--force] [-q] [--fsync] [--max-decompressed SIZE]`.
//
// Inputs are .pdb, .dll/.exe and directories (searched recursively). Each input is compiled
// independently (in parallel with --jobs); a failure is reported and the others go on. In a
// directory, PEs without debug information are skipped and counted. Output follows the rules of
// AtomicFile.h (never an input, write-through for devices, atomic replacement otherwise); an
// up-to-date cache (same input hash, size and compiler version, and it verifies) is left alone.
// Messages are printed in input order, so output is deterministic.

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "support/Ascii.h"
#include "tools/Commands.h"
#include "tools/HelpFormatter.h"
#include "symbols/CompileFile.h"
#include "symbols/ResolveConfig.h"
#include "tools/SymbolPathOption.h"
#include "support/Platform.h"
#include "support/TextEscape.h"

namespace ilmap::cli {
namespace {

namespace fs = std::filesystem;

struct CompileArgs {
  std::vector<std::string> inputs;
  std::string out;
  std::string out_dir;
  symbols::CompileOptions compile;  // --embed-sources, --force, --fsync, --max-decompressed
  bool quiet = false;
  unsigned jobs = 0;
  std::string pdb;                   // --pdb: the PDB of the one PE input
  std::string pe;                    // --pe: the PE of the one PDB input (method names)
  std::vector<std::string> include;  // --include globs (directory mode)
  std::vector<std::string> exclude;  // --exclude globs (directory mode)
  bool json = false;
  std::string symbol_path;           // --symbol-path: where a PE's PDB is fetched from when not found locally
  long download_timeout_s = symbols::HttpOptions{}.total_timeout_s;
};

enum class Outcome { kCompiled, kUpToDate, kSkipped, kFailed };

struct Job {
  std::string input;
  std::string output;
  bool from_directory = false;  // found by listing a directory (may be skipped)
  std::string collides_with;    // directory mode: an earlier input that writes the same output
  // Results, filled by a worker.
  Outcome outcome = Outcome::kFailed;
  int rc = 0;
  std::string message;
  std::string reason;           // skipped: why; failed: the error without "ilmap: error: "
  std::vector<std::string> warnings;  // each printed as "ilmap: warning: ..." (what the cache lacks)
  std::uint64_t points = 0;
  std::size_t bytes = 0;
};

std::string lower_ext(const fs::path& p) {
  std::string e = platform::fs_string(p.extension());
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

bool is_input_ext(const std::string& e) { return e == ".pdb" || e == ".pdz" || e == ".dll" || e == ".exe"; }


// One input: symbols::compile_file, its outcome turned into the job's message and exit code.
// `file_options`: what every input of the run shares (compile settings, --pdb, --pe, the
// symbol path); `threads`: the threads this input may use to encode its point blocks.
void run_job(Job& job, symbols::CompileFileOptions file_options, unsigned threads) {
  file_options.threads = threads;
  file_options.from_directory = job.from_directory;
  file_options.collides_with = job.collides_with;
  symbols::CompileFileResult r = symbols::compile_file(job.input, job.output, file_options);
  job.warnings = std::move(r.warnings);
  switch (r.outcome) {
    case symbols::CompileOutcome::kFailed:
      job.outcome = Outcome::kFailed;
      job.rc = exit_code_for(r.error.code);
      job.reason = r.error.message;
      job.message = "ilmap: error: " + r.error.message;
      return;
    case symbols::CompileOutcome::kSkipped:
      job.outcome = Outcome::kSkipped;
      job.reason = r.skipped;
      job.message = job.input + ": skipped: " + r.skipped;
      return;
    case symbols::CompileOutcome::kUpToDate:
      job.outcome = Outcome::kUpToDate;
      job.message = format("%s: up to date: %s", job.input.c_str(), job.output.c_str());
      return;
    case symbols::CompileOutcome::kCompiled:
      job.outcome = Outcome::kCompiled;
      job.points = r.points;
      job.bytes = r.bytes;
      job.message = format("%s -> %s (%llu points, %zu bytes, %.2f bytes/point)", job.input.c_str(),
                           job.output.c_str(), static_cast<unsigned long long>(r.points), r.bytes,
                           r.points ? double(r.point_bytes) / double(r.points) : 0.0);
      return;
  }
}

bool glob_match(const std::string& glob, const fs::path& rel) {
  const std::u8string generic = rel.generic_u8string();  // '/' separators, UTF-8 on Windows too
  return platform::glob_match(glob.c_str(), std::string(reinterpret_cast<const char*>(generic.data()), generic.size()).c_str()) ||
         platform::glob_match(glob.c_str(), platform::fs_string(rel.filename()).c_str());
}

// --include (any must match when given) and --exclude (none may match), on the path relative
// to the listed directory and on the file name.
bool selected(const CompileArgs& o, const fs::path& rel) {
  if (!o.include.empty() &&
      std::none_of(o.include.begin(), o.include.end(), [&](const std::string& g) { return glob_match(g, rel); }))
    return false;
  return std::none_of(o.exclude.begin(), o.exclude.end(), [&](const std::string& g) { return glob_match(g, rel); });
}


// Expands directories into their .dll/.exe files, plus .pdb files with no same-named .dll or
// .exe beside them (a PE's PDB is read through the PE, so that a stale PDB is reported as a
// mismatch instead of being compiled as if it were the PE's; --include/--exclude select among
// these, they never turn such a PDB into an input of its own). Sorted for determinism.
Status expand_inputs(const CompileArgs& o, std::vector<Job>& jobs) {
  std::map<std::string, std::string> out_of;  // output -> input, to detect collisions
  auto add = [&](const fs::path& input, const fs::path& output, bool from_directory) -> Status {
    const std::string in = platform::fs_string(input), out = platform::fs_string(output);
    auto [it, fresh] = out_of.emplace(out, in);
    if (!fresh && !from_directory)
      return {Errc::kUsage, format("inputs %s and %s would both write %s; use --out-dir with distinct names or compile them separately", it->second.c_str(), in.c_str(), out.c_str())};
    Job job;
    job.input = in;
    job.output = out;
    job.from_directory = from_directory;
    if (!fresh) job.collides_with = it->second;
    jobs.push_back(std::move(job));
    return {};
  };
  for (const std::string& arg : o.inputs) {
    std::error_code ec;
    const fs::path p = platform::fs_path(arg);
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> files;
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && is_input_ext(lower_ext(it->path()))) files.push_back(it->path());
      }
      if (ec) return {Errc::kIo, format("%s: cannot list directory: %s", arg.c_str(), ec.message().c_str())};
      std::sort(files.begin(), files.end());
      // "<dir>/<lower stem>" of every PE and every .pdb found. A PDB beside a same-named PE is
      // the PE's to find; a .pdz (an MSFZ PDB) also stands back for a same-named .pdb.
      const auto stem_key = [](const fs::path& f) {
        return platform::fs_string(f.parent_path() / platform::fs_path(ascii_lower(platform::fs_string(f.stem()))));
      };
      std::set<std::string> pe_stems, pdb_stems;
      for (const fs::path& f : files) {
        const std::string e = lower_ext(f);
        if (e == ".pdb") pdb_stems.insert(stem_key(f));
        else if (e != ".pdz") pe_stems.insert(stem_key(f));
      }
      for (const fs::path& f : files) {
        const std::string e = lower_ext(f);
        if ((e == ".pdb" || e == ".pdz") && pe_stems.count(stem_key(f))) continue;
        if (e == ".pdz" && pdb_stems.count(stem_key(f))) continue;
        fs::path rel = f.lexically_relative(p);
        if (!selected(o, rel)) continue;
        fs::path out = o.out_dir.empty() ? f : platform::fs_path(o.out_dir) / rel;
        out.replace_extension(".ilmap");
        if (Status s = add(f, out, true); !s) return s;  // run_job creates the folders
      }
      continue;
    }
    if (!fs::exists(p, ec)) return {Errc::kIo, format("%s: no such file or directory", arg.c_str())};
    fs::path out;
    if (!o.out.empty()) {
      out = platform::fs_path(o.out);
    } else if (!o.out_dir.empty()) {
      out = platform::fs_path(o.out_dir) / p.filename();
      out.replace_extension(".ilmap");
    } else {
      out = p;
      out.replace_extension(".ilmap");
    }
    if (Status s = add(p, out, false); !s) return s;
  }
  return {};
}

const char* json_outcome_name(Outcome c) {
  switch (c) {
    case Outcome::kCompiled: return "compiled";
    case Outcome::kUpToDate: return "up_to_date";
    case Outcome::kSkipped: return "skipped";
    case Outcome::kFailed: return "failed";
  }
  return "failed";
}

// How many jobs ended each way: the summary line and the JSON's totals.
struct Tally {
  std::size_t compiled = 0, up_to_date = 0, skipped = 0, failed = 0;
  void add(Outcome c) {
    switch (c) {
      case Outcome::kCompiled: ++compiled; break;
      case Outcome::kUpToDate: ++up_to_date; break;
      case Outcome::kSkipped: ++skipped; break;
      case Outcome::kFailed: ++failed; break;
    }
  }
};

void print_json(const std::vector<Job>& jobs, const Tally& tally) {
  nlohmann::ordered_json j;
  j["compiled"] = tally.compiled;
  j["up_to_date"] = tally.up_to_date;
  j["skipped"] = tally.skipped;
  j["failed"] = tally.failed;
  j["results"] = nlohmann::ordered_json::array();
  for (const Job& job : jobs) {
    nlohmann::ordered_json r;
    r["input"] = job.input;
    r["output"] = job.output;
    r["result"] = json_outcome_name(job.outcome);
    if (job.outcome == Outcome::kCompiled) {
      r["points"] = job.points;
      r["bytes"] = job.bytes;
    } else if (job.outcome == Outcome::kSkipped) {
      r["reason"] = job.reason;
    } else if (job.outcome == Outcome::kFailed) {
      r["exit_code"] = job.rc;
      r["error"] = job.reason;
    }
    j["results"].push_back(std::move(r));
  }
  std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
}

// True when `path` names what standard output already is (e.g. -o /dev/stdout).
bool is_stdout(const std::string& path) {
  platform::FileInfo a, b;
  return platform::stat_fd(1, a) && platform::stat_path(path, b) && a.same_file(b);
}

int run_compile(const CompileArgs& o) {
  if (!o.out.empty() && !o.out_dir.empty())
    return report_error({Errc::kUsage, "-o and --out-dir cannot be used together"});
  if (!o.out.empty() && (o.inputs.size() != 1 || fs::is_directory(platform::fs_path(o.inputs[0]))))
    return report_error({Errc::kUsage, "-o takes exactly one input file; use --out-dir for several"});
  if (!o.pdb.empty() && (o.inputs.size() != 1 || fs::is_directory(platform::fs_path(o.inputs[0]))))
    return report_error({Errc::kUsage, "--pdb takes exactly one input file (a .dll or .exe)"});
  if (!o.pe.empty() && (o.inputs.size() != 1 || fs::is_directory(platform::fs_path(o.inputs[0]))))
    return report_error({Errc::kUsage, "--pe takes exactly one input file (a .pdb)"});
  const bool to_stdout = o.out == "-" || (!o.out.empty() && is_stdout(o.out));
  if (to_stdout && o.json) return report_error({Errc::kUsage, "--json cannot be used with -o - (standard output carries the cache)"});
  if (o.out == "-" && platform::is_terminal(1)) return report_error({Errc::kUsage, "-o -: standard output is a terminal; redirect it to a file or a pipe"});
  if (!o.out_dir.empty()) {
    std::error_code ec;
    const fs::path out_dir = platform::fs_path(o.out_dir);
    if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
      return report_error({Errc::kIo, escape_text(o.out_dir) + ": exists and is not a directory (--out-dir)"});
    fs::create_directories(out_dir, ec);
    if (!fs::is_directory(out_dir, ec))
      return report_error({Errc::kIo, format("%s: cannot create output directory: %s", escape_text(o.out_dir).c_str(), ec.message().c_str())});
  }
  std::vector<Job> jobs;
  if (Status s = expand_inputs(o, jobs); !s) return report_error({s.code(), escape_text(s.message())});
  bool any_directory = false;
  for (const Job& j : jobs) any_directory |= j.from_directory;
  if (jobs.empty() && !o.json) return report_error({Errc::kNotFound, "no .pdb, .dll or .exe inputs found"});
  // Before any thread starts: the umask is read by setting it, and a signal must find the
  // handlers that remove temporary files.
  (void)new_file_mode();
  install_temp_cleanup();
  const unsigned threads = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(jobs.size())));
  // Fewer inputs than threads: a large input encodes its point blocks with the rest.
  const unsigned per_input = std::max(1u, threads / n);
  symbols::ResolveConfig config;
  config.compile = o.compile;
  // --symbol-path (or $_NT_SYMBOL_PATH): a PE whose PDB is not found locally gets it from there.
  if (o.pdb.empty()) config.symbol_path = symbol_path_or_env(o.symbol_path);
  config.download_timeout_s = o.download_timeout_s;
  symbols::CompileFileOptions file_options = config.compile_file_options();
  file_options.pdb = o.pdb;
  file_options.pe = o.pe;
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < jobs.size();) run_job(jobs[i], file_options, per_input);
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < n; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  int rc = 0;
  Tally tally;
  for (const Job& j : jobs) {
    tally.add(j.outcome);
    for (const std::string& w : j.warnings) std::fprintf(stderr, "ilmap: warning: %s\n", escape_text(w).c_str());
    if (j.outcome == Outcome::kFailed) {
      std::fprintf(stderr, "%s\n", escape_text(j.message).c_str());
      rc = std::max(rc, j.rc);
    } else if (!o.quiet && !o.json && !to_stdout) {
      std::printf("%s\n", escape_text(j.message).c_str());
    }
  }
  if (o.json) {
    print_json(jobs, tally);
  } else if ((jobs.size() > 1 || any_directory) && (tally.failed || !o.quiet)) {
    std::fprintf(tally.failed ? stderr : stdout, "%zu compiled, %zu up to date, %zu skipped, %zu failed\n",
                 tally.compiled, tally.up_to_date, tally.skipped, tally.failed);
  }
  return rc;
}

}  // namespace

void register_compile(CLI::App& app, int& rc) {
  auto o = std::make_shared<CompileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Compile PDBs (Portable or Windows/MSF, or PEs carrying or naming one) into ilmap caches.\n"
      "Without -o or --out-dir, each cache is written beside its input as NAME.ilmap.\n"
      "Up-to-date caches (same input, same compiler, verifying) are left alone.\n"
      "A PE's PDB is searched in order: the embedded PDB, the CodeView path as written, the\n"
      "CodeView file name beside the PE, NAME.pdb beside the PE, then NAME.pdz (an MSFZ PDB) in\n"
      "place of a NAME.pdb that is absent or of another build; a file is used only when its\n"
      "PDB id matches the PE's CodeView entry (a Windows PDB: GUID and age) (--pdb names the\n"
      "file instead).\n"
      "Method names (as CoreCLR and Mono print stack frames, for `dump --methods` and the\n"
      "reader's method_name/find_methods) are stored when the PE is known: a PE input, --pe\n"
      "for a PDB input, or a same-named .dll/.exe beside the PDB whose CodeView names it; a PE\n"
      "whose names cannot be built gives a warning and a cache without them.\n"
      "Directories are searched recursively for .dll/.exe files, for .pdb files without a\n"
      "same-named .dll/.exe and for .pdz files without either; PEs there without debug information (native or framework PEs, or\n"
      "whose PDB is absent) are skipped and counted; a PDB that does not match its PE fails\n"
      "(exit 3).\n"
      "Output: an output that is an input (or the PDB read for a PE) is refused (exit 1); -o -\n"
      "writes to standard output; an existing device or FIFO (/dev/null) is written through;\n"
      "a symlink's target is replaced atomically and the link stays; other files are written\n"
      "to a temporary file and renamed (removed on SIGINT/SIGTERM/SIGHUP; a killed run's\n"
      "leftovers are removed by the next run). New caches get 0666 & ~umask; a replaced cache\n"
      "keeps its mode. Exit code: 0 if all inputs compiled (or were up to date or skipped),\n"
      "else the worst failure's code.");
  cmd->add_option("INPUT", o->inputs, "Input .pdb, .pdz, .dll, .exe files or directories")->required();
  auto* out = cmd->add_option("-o,--output", o->out, "Output cache file (exactly one input); - for standard output; missing folders are created");
  auto* dir = cmd->add_option("--out-dir", o->out_dir, "Directory for the caches (mirrors input directories)");
  out->excludes(dir);
  cmd->add_option("--pdb", o->pdb, "The PDB of the one PE input, instead of searching (its id must match)");
  add_symbol_path_option(cmd, o->symbol_path, "the PDB of a PE input when none is found beside it", o->download_timeout_s)->excludes("--pdb");
  cmd->add_option("--pe", o->pe, "The PE of the one PDB input, for method names (its CodeView entry must name the PDB; "
                                 "without it a same-named .dll/.exe beside the PDB is used when it names the PDB)");
  cmd->add_option("--include", o->include, "Directory mode: compile only files matching this glob (path relative to the directory, or file name); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--exclude", o->exclude, "Directory mode: leave out files matching this glob (path relative to the directory, or file name); repeatable")
      ->allow_extra_args(false);
  cmd->add_flag("--json", o->json, "Print one JSON object on stdout: counts and the result of each input");
  cmd->add_flag("--embed-sources", o->compile.embed_sources, "Store the PDB's embedded sources (zstd) in the cache");
  cmd->add_flag("--force", o->compile.force, "Rebuild even if the cache is up to date");
  cmd->add_flag("-q,--quiet", o->quiet, "Print only errors");
  cmd->add_flag("--fsync", o->compile.fsync, "Flush each cache to disk before renaming it into place (survives a power failure; slower). Without it writes are still atomic: an error or a kill never leaves a partial file");
  cmd->add_option("--max-decompressed", o->compile.max_decompressed,
                  "Largest embedded PDB or embedded source to inflate (bytes, or with a unit: "
                  "64KiB, 512MiB; default 512MiB). A larger declared size is refused before "
                  "any allocation")
      ->transform(size_value())
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(UINT32_MAX)));
  cmd->add_option("-j,--jobs", o->jobs, "Threads (default: number of CPUs): inputs are compiled in parallel, and a large PDB (1024+ methods, 4 MiB+ of blobs) compiled alone or with few others shares the spare threads for its point blocks; the output does not depend on N")
      ->check(CLI::Range(1u, 256u));
  cmd->callback([o, &rc] { rc = run_compile(*o); });
}

}  // namespace ilmap::cli
