// cmd_compile.cpp - `ilmap compile INPUT... [-o OUT | --out-dir DIR] [--embed-sources]
//                   [--jobs N] [--force] [-q] [--fsync] [--max-decompressed SIZE]`.
//
// Inputs are .pdb, .dll/.exe and directories (searched recursively). Each input is compiled
// independently (in parallel with --jobs); a failure is reported and the others go on. Output
// is written atomically; an up-to-date cache (same input hash, size and compiler version) is
// left alone. Messages are printed in input order, so output is deterministic.
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "AtomicFile.h"
#include "CacheBuilder.h"
#include "Commands.h"
#include "DebugInput.h"
#include "Guids.h"
#include "Identity.h"
#include "MetadataSchema.h"
#include "ilmap/cache.h"
#include "ilmap_generated.h"

namespace ilmap::cli {
namespace {

namespace fs = std::filesystem;

struct CompileOptions {
  std::vector<std::string> inputs;
  std::string out;
  std::string out_dir;
  bool embed_sources = false;
  bool force = false;
  bool quiet = false;
  bool fsync = false;
  unsigned jobs = 0;
  std::uint64_t max_decompressed = std::uint64_t(512) << 20;  // one embedded PDB or source
};

struct Job {
  std::string input;
  std::string output;
  // Results, filled by a worker.
  int rc = 0;
  std::string message;
};

std::string lower_ext(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

bool is_input_ext(const std::string& e) { return e == ".pdb" || e == ".dll" || e == ".exe"; }

std::uint64_t hash_combine(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t v[2] = {a, b};
  return XXH3_64bits(v, sizeof v);
}

// Identity fields of the cache from the decoded input.
CacheSource make_source(const DebugInput& in) {
  CacheSource src;
  src.pdb = &*in.pdb;
  src.source_name = fs::path(in.path).filename().string();
  src.source_size = in.file.bytes().size();
  src.source_xxh3 = XXH3_64bits(in.file.bytes().data(), in.file.bytes().size());
  if (in.source == PdbSource::kSibling)
    src.source_xxh3 = hash_combine(src.source_xxh3, XXH3_64bits(in.sibling.bytes().data(), in.sibling.bytes().size()));
  const PdbId id = in.pdb->id();
  std::string pdb_name = in.pdb_path.empty() ? std::string() : in.pdb_path;
  if (pdb_name.empty() && in.pe) {
    if (const CodeViewEntry* cv = in.matched_codeview()) pdb_name = cv->path;
  }
  if (pdb_name.empty()) pdb_name = fs::path(in.path).replace_extension(".pdb").string();
  src.pdb_key = ssqp_portable_pdb_key(pdb_name, id.guid());
  src.debug_id = portable_debug_id(id.guid(), id.stamp());
  if (in.pe) {
    CachePeIdentity pe;
    pe.name = fs::path(in.path).filename().string();
    pe.timestamp = in.pe->timestamp;
    pe.size_of_image = in.pe->size_of_image;
    pe.pe_key = ssqp_pe_key(in.path, in.pe->timestamp, in.pe->size_of_image);
    pe.code_id = pe_code_id(in.pe->timestamp, in.pe->size_of_image);
    if (in.pe->mvid != Guid{}) pe.mvid = in.pe->mvid;
    for (const CodeViewEntry& cv : in.pe->codeview)
      pe.codeview.push_back({cv.guid, cv.age, cv.stamp, cv.path, cv.portable()});
    for (const PdbChecksum& c : in.pe->checksums) pe.pdb_checksums.push_back(c.algorithm + ":" + hex_lower(c.hash));
    src.pe = std::move(pe);
  }
  return src;
}

// True when some document of the PDB has an EmbeddedSource CDI (what --embed-sources stores).
bool has_embedded_sources(const PortablePdb& pdb) {
  for (std::uint32_t rid = 1; rid <= pdb.document_count(); ++rid)
    if (pdb.find_cdi(kHcdiDocument, rid, guids::kCdiEmbeddedSource)) return true;
  return false;
}

// Up to date = the bytes this run would write: same input, same compiler, and the same answer
// to --embed-sources (which only changes the bytes when the PDB has embedded sources).
bool up_to_date(const std::string& output, const CacheSource& src, bool embed_sources) {
  auto cache = Cache::open(output);
  if (!cache) return false;
  const auto* root = static_cast<const fb::Cache*>(cache->root());
  const fb::Identity* id = root->identity();
  if (!(id && id->source_xxh3() == src.source_xxh3 && id->source_size() == src.source_size &&
        id->compiler_version() && id->compiler_version()->str() == compiler_version() &&
        id->source_name() && id->source_name()->str() == src.source_name))
    return false;
  const bool cache_has = id->holds_embedded_sources();
  if (cache_has != embed_sources) return !cache_has && !has_embedded_sources(*src.pdb);
  return true;
}

// `threads`: the threads this input may use to encode its point blocks.
void run_job(Job& job, const CompileOptions& o, unsigned threads) {
  DebugInputOptions io;
  const std::uint64_t cap = o.max_decompressed;
  io.pe.max_embedded_pdb = static_cast<std::uint32_t>(std::min<std::uint64_t>(cap, UINT32_MAX));
  auto in = open_debug_input(job.input, io);
  if (!in) {
    job.rc = exit_code_for(in.error().code);
    job.message = "ilmap: error: " + in.error().message;
    return;
  }
  const CacheSource src = make_source(**in);
  if (!o.force && up_to_date(job.output, src, o.embed_sources)) {
    job.message = format("%s: up to date: %s", job.input.c_str(), job.output.c_str());
    return;
  }
  CacheBuildOptions bo;
  bo.embed_sources = o.embed_sources;
  bo.max_embedded_source = static_cast<std::size_t>(cap);
  bo.threads = threads;
  CacheStats stats;
  auto bytes = build_cache(src, bo, &stats);
  if (!bytes) {
    job.rc = exit_code_for(bytes.error().code);
    job.message = "ilmap: error: " + job.input + ": " + bytes.error().message;
    return;
  }
  if (Status s = write_file_atomically(job.output, *bytes, o.fsync); !s) {
    job.rc = exit_code_for(s.code());
    job.message = "ilmap: error: " + s.message();
    return;
  }
  job.message = format("%s -> %s (%llu points, %zu bytes, %.2f bytes/point)", job.input.c_str(),
                       job.output.c_str(), static_cast<unsigned long long>(stats.points), bytes->size(),
                       stats.points ? double(stats.point_bytes) / double(stats.points) : 0.0);
}

// Expands directories into their .pdb files, plus .dll/.exe files with no same-named .pdb
// beside them (those carry an embedded PDB or name one elsewhere). Sorted for determinism.
Status expand_inputs(const CompileOptions& o, std::vector<Job>& jobs) {
  std::map<std::string, std::string> out_of;  // output -> input, to detect collisions
  auto add = [&](const fs::path& input, const fs::path& output) -> Status {
    auto [it, fresh] = out_of.emplace(output.string(), input.string());
    if (!fresh)
      return {Errc::kUsage, format("inputs %s and %s would both write %s; use --out-dir with distinct names or compile them separately", it->second.c_str(), input.string().c_str(), output.string().c_str())};
    jobs.push_back({input.string(), output.string(), 0, {}});
    return {};
  };
  for (const std::string& arg : o.inputs) {
    std::error_code ec;
    const fs::path p(arg);
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> files;
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && is_input_ext(lower_ext(it->path()))) files.push_back(it->path());
      }
      if (ec) return {Errc::kIo, format("%s: cannot list directory: %s", arg.c_str(), ec.message().c_str())};
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) {
        const std::string e = lower_ext(f);
        if (e != ".pdb" && fs::exists(fs::path(f).replace_extension(".pdb"), ec)) continue;
        fs::path rel = fs::relative(f, p, ec);
        fs::path out = o.out_dir.empty() ? f : fs::path(o.out_dir) / rel;
        out.replace_extension(".ilmap");
        if (Status s = add(f, out); !s) return s;
        if (!o.out_dir.empty()) fs::create_directories(out.parent_path(), ec);
      }
      continue;
    }
    if (!fs::exists(p, ec)) return {Errc::kIo, format("%s: no such file or directory", arg.c_str())};
    fs::path out;
    if (!o.out.empty()) {
      out = o.out;
    } else if (!o.out_dir.empty()) {
      out = fs::path(o.out_dir) / p.filename();
      out.replace_extension(".ilmap");
    } else {
      out = p;
      out.replace_extension(".ilmap");
    }
    if (Status s = add(p, out); !s) return s;
  }
  return {};
}

int run_compile(const CompileOptions& o) {
  if (!o.out.empty() && !o.out_dir.empty())
    return report_error({Errc::kUsage, "-o and --out-dir cannot be used together"});
  if (!o.out.empty() && (o.inputs.size() != 1 || std::filesystem::is_directory(o.inputs[0])))
    return report_error({Errc::kUsage, "-o takes exactly one input file; use --out-dir for several"});
  if (!o.out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(o.out_dir, ec);
    if (!fs::is_directory(o.out_dir, ec))
      return report_error({Errc::kIo, format("%s: cannot create output directory", o.out_dir.c_str())});
  }
  std::vector<Job> jobs;
  if (Status s = expand_inputs(o, jobs); !s) return report_error(s.error());
  if (jobs.empty()) return report_error({Errc::kNotFound, "no .pdb, .dll or .exe inputs found"});
  const unsigned threads = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  const unsigned n = std::min<unsigned>(threads, static_cast<unsigned>(jobs.size()));
  // Fewer inputs than threads: a large input encodes its point blocks with the rest.
  const unsigned per_input = std::max(1u, threads / n);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < jobs.size();) run_job(jobs[i], o, per_input);
  };
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < n; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  int rc = 0, failed = 0;
  for (const Job& j : jobs) {
    if (j.rc != 0) {
      std::fprintf(stderr, "%s\n", j.message.c_str());
      ++failed;
      rc = std::max(rc, j.rc);
    } else if (!o.quiet) {
      std::printf("%s\n", j.message.c_str());
    }
  }
  if (jobs.size() > 1 && (failed || !o.quiet))
    std::fprintf(failed ? stderr : stdout, "compiled %zu of %zu inputs, %d failed\n", jobs.size() - failed, jobs.size(), failed);
  return rc;
}

}  // namespace

void register_compile(CLI::App& app, int& rc) {
  auto o = std::make_shared<CompileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Compile PDBs (or PEs carrying or naming one) into ilmap caches.\n"
      "Directories are searched recursively for .pdb, .dll and .exe files. Without -o or\n"
      "--out-dir, each cache is written beside its input as NAME.ilmap. Up-to-date caches\n"
      "are skipped. Exit code: 0 if all inputs compiled, else the worst failure's code.");
  cmd->add_option("INPUT", o->inputs, "Input .pdb, .dll, .exe files or directories")->required();
  auto* out = cmd->add_option("-o,--output", o->out, "Output cache file (exactly one input)");
  auto* dir = cmd->add_option("--out-dir", o->out_dir, "Directory for the caches (mirrors input directories)");
  out->excludes(dir);
  cmd->add_flag("--embed-sources", o->embed_sources, "Store the PDB's embedded sources (zstd) in the cache");
  cmd->add_flag("--force", o->force, "Rebuild even if the cache is up to date");
  cmd->add_flag("-q,--quiet", o->quiet, "Print only errors");
  cmd->add_flag("--fsync", o->fsync, "Flush each cache to disk before renaming it into place (survives a power failure; slower). Without it writes are still atomic: an error or a kill never leaves a partial file");
  cmd->add_option("--max-decompressed", o->max_decompressed,
                  "Largest embedded PDB or embedded source to inflate (bytes, or with a unit: "
                  "64KiB, 512MiB; default 512MiB). A larger declared size is refused before "
                  "any allocation")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(UINT32_MAX)));
  cmd->add_option("-j,--jobs", o->jobs, "Threads (default: number of CPUs): inputs are compiled in parallel, and a large PDB (1024+ methods, 4 MiB+ of blobs) compiled alone or with few others shares the spare threads for its point blocks; the output does not depend on N")
      ->check(CLI::Range(1u, 256u));
  cmd->callback([o, &rc] { rc = run_compile(*o); });
}

}  // namespace ilmap::cli
