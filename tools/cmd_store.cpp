// cmd_store.cpp - `ilmap store add STORE INPUT...`, `ilmap store get STORE KEY [-o OUT]`,
// `ilmap store get STORE --for FILE`, `ilmap store verify STORE`, `ilmap store watch INBOX
// STORE`: a symbol store laid out under SSQP keys, with the ilmap cache of every Portable PDB
// beside it, fed with files or NuGet symbol packages (symbols/).
#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include "support/AtomicFile.h"
#include "tools/Commands.h"
#include "support/FileBytes.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/PackageIngest.h"
#include "symbols/S3Store.h"
#include "decode/PeFile.h"
#include "symbols/StoreIngest.h"
#include "symbols/StoreWatch.h"
#include "symbols/SymbolStore.h"

namespace ilmap::cli {
namespace {

namespace fs = std::filesystem;
using symbols::PutOutcome;

void print_line(const std::string& s) {
  const std::string line = s + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
}

bool is_module_ext(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e == ".pdb" || e == ".dll" || e == ".exe";
}

const char* outcome_word(PutOutcome o) {
  return o == PutOutcome::kAdded ? "added" : o == PutOutcome::kReplaced ? "replaced" : "already present";
}

// --sources and --source-url-root come together (exit 1 otherwise).
bool check_source_options(const symbols::PackageAddOptions& po) {
  if (po.sources_dir.empty() != po.source_url_root.empty()) {
    std::fprintf(stderr, "ilmap: error: --sources and --source-url-root go together\n");
    return false;
  }
  return true;
}

// Where STORE and --endpoint-url/--region point: a folder, or a bucket for s3://BUCKET/PREFIX
// (credentials from the environment: symbols/S3Client.h).
struct StoreArgs {
  std::string root, endpoint, region;
};

Result<std::unique_ptr<symbols::Store>> open_store(const StoreArgs& a) {
  if (!symbols::S3Store::is_s3_url(a.root)) {
    // "s3:/x", "S3://x", "https://x": meant as a URL, never a folder named "s3:" or "https:".
    const std::size_t colon = a.root.find(':');
    if (colon != std::string::npos && colon > 0 && a.root.find('/') == colon + 1)
      return Error{Errc::kUsage, a.root + ": not a store: a bucket is s3://BUCKET/PREFIX, a folder a path (write ./" + a.root + " for a folder)"};
    if (!a.endpoint.empty() || !a.region.empty())
      return Error{Errc::kUsage, "--endpoint-url and --region are for s3:// stores"};
    return std::unique_ptr<symbols::Store>(std::make_unique<symbols::SymbolStore>(a.root));
  }
  auto config = symbols::S3Config::from_environment(a.endpoint, a.region);
  if (!config) return config.error();
  auto s3 = symbols::S3Store::open(a.root, std::move(*config));
  if (!s3) return s3.error();
  return std::unique_ptr<symbols::Store>(std::make_unique<symbols::S3Store>(std::move(*s3)));
}

void add_store_options(CLI::App* cmd, StoreArgs& a) {
  cmd->add_option("--endpoint-url", a.endpoint, "S3 endpoint for an s3:// STORE (else $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL)");
  cmd->add_option("--region", a.region, "S3 region for an s3:// STORE (else $AWS_REGION, $AWS_DEFAULT_REGION, us-east-1)");
}

int add_one_package(symbols::Store& store, const std::string& path, const symbols::PackageAddOptions& po) {
  Status s = symbols::add_package(store, path, po, [](const symbols::PackageEvent& ev) {
    switch (ev.kind) {
      case symbols::PackageEvent::kStored:
        print_line(std::string(outcome_word(ev.stored.outcome)) + ": " + escape_text(ev.stored.key));
        break;
      case symbols::PackageEvent::kSource:
        print_line("source " + std::string(outcome_word(ev.source_outcome)) + ": " + escape_text(ev.source));
        break;
      case symbols::PackageEvent::kMatched:
        print_line(escape_text(ev.source) + format(": %zu of %zu documents matched to package sources", ev.matched, ev.documents));
        break;
    }
  });
  return s ? 0 : report_error(s.error());
}

int run_add(const StoreArgs& where, const std::vector<std::string>& inputs, const symbols::PackageAddOptions& po) {
  auto opened = open_store(where);
  if (!opened) return report_error(opened.error());
  symbols::Store& store = **opened;
  std::vector<std::string> files;
  int rc = 0;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && is_module_ext(it->path())) found.push_back(it->path().string());
      if (ec) rc = std::max(rc, report_error({Errc::kIo, in + ": cannot list: " + ec.message()}));
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(in);
    }
  }
  for (const std::string& f : files) {
    if (symbols::is_package_name(f)) {
      rc = std::max(rc, add_one_package(store, f, po));
      continue;
    }
    auto r = symbols::add_to_store(store, f);
    if (!r) {
      rc = std::max(rc, report_error(r.error()));
      continue;
    }
    for (const symbols::StoredFile& s : *r) {
      print_line(std::string(outcome_word(s.outcome)) + ": " + escape_text(s.key));
    }
  }
  return rc;
}

int copy_out(const symbols::StoredBytes& from, const std::string& to) {
  if (Status s = write_file_atomically(to, from.bytes(), false); !s) return report_error(s.error());
  return 0;
}

int run_get(const StoreArgs& where, const std::string& key, const std::string& for_file, const std::string& out) {
  const std::string& root = where.root;
  auto opened = open_store(where);
  if (!opened) return report_error(opened.error());
  const symbols::Store& store = **opened;
  if (!for_file.empty()) {
    auto file = FileBytes::open(for_file);
    if (!file) return report_error(file.error());
    auto ident = symbols::identify_file(for_file, file->bytes());
    if (!ident) return report_error({ident.error().code, for_file + ": " + ident.error().message});
    std::vector<std::string> keys{ident->key};
    if (ident->kind == symbols::ModuleKind::kPe) {
      PeOptions po;
      po.embedded_pdb_errors_fatal = false;
      if (auto pe = PeFile::parse(file->bytes(), po))
        for (const auto& w : symbols::pdbs_wanted_by(pe->info())) keys.push_back(w.key);
    }
    std::vector<std::string> with_caches;
    for (const std::string& k : keys) {
      with_caches.push_back(k);
      if (k.size() > 4 && symbols::key_equal(k.substr(k.size() - 4), ".pdb")) with_caches.push_back(symbols::cache_key_for(k));
    }
    bool any = false;
    for (const std::string& k : with_caches) {
      auto p = store.locate(k);
      if (p) {
        print_line(escape_text(k) + "\t" + escape_text(*p));
        any = true;
      } else if (p.error().code != Errc::kNotFound) {
        return report_error(p.error());
      }
    }
    if (!any) return report_error({Errc::kNotFound, root + ": nothing stored for " + for_file + " (keys: " + keys.front() +
                                                        (keys.size() > 1 ? ", " + keys[1] : std::string()) + ")"});
    return 0;
  }
  if (!out.empty()) {
    auto b = store.read(key);
    if (!b) return report_error(b.error());
    return copy_out(*b, out);
  }
  auto p = store.locate(key);
  if (!p) return report_error(p.error());
  print_line(escape_text(*p));
  return 0;
}

int run_store_verify(const StoreArgs& where) {
  std::error_code ec;
  if (!symbols::S3Store::is_s3_url(where.root) && !fs::is_directory(where.root, ec))
    return report_error({Errc::kIo, where.root + ": not a directory"});
  auto opened = open_store(where);
  if (!opened) return report_error(opened.error());
  const symbols::VerifyReport rep = symbols::verify_store(**opened);
  int rc = 0;
  bool corrupt = false, mismatch = false;
  for (const auto& p : rep.problems) {
    std::fprintf(stderr, "ilmap: error: %s: %s\n", escape_text(p.path).c_str(), escape_text(p.error.message).c_str());
    (exit_code_for(p.error.code) == 3 ? mismatch : corrupt) = true;
  }
  rc = corrupt ? 2 : mismatch ? 3 : 0;
  print_line(format("%zu files, %zu caches checked, %zu other files skipped: %s", rep.files, rep.caches, rep.skipped,
                    rep.problems.empty() ? "ok" : (std::to_string(rep.problems.size()) + (rep.problems.size() == 1 ? " problem" : " problems")).c_str()));
  return rc;
}

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop = true; }

int run_watch(symbols::WatchOptions o) {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  auto r = symbols::run_watch(o, g_stop, [](const std::string& line) {
    print_line(line);
    std::fflush(stdout);
  });
  if (!r) return report_error(r.error());
  print_line(format("%zu archived, %zu failed", r->archived, r->failed));
  return 0;
}

}  // namespace

void register_store(CLI::App& app, int& rc) {
  CLI::App* store = app.add_subcommand("store", "Add, get, verify PEs/PDBs (with caches) in a symbol store; ingest NuGet packages.");
  store->footer(
      "A symbol store: PEs and PDBs under their SSQP keys (file/id/file), each Portable PDB's\n"
      "ilmap cache beside it (file/id/stem.ilmap). Reads one-tier and two-tier (index2.txt) stores.\n"
      "STORE is a folder, or an S3 bucket s3://BUCKET/PREFIX for add, get and verify (credentials\n"
      "from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY; docs/symbol-stores.md \"S3 buckets\").\n"
      "NuGet packages (.nupkg, .snupkg) are added with `store add` or from an inbox (`store watch`).\n"
      "`ilmap store add --help` etc. describe the subcommands.");
  store->require_subcommand(1);

  struct AddArgs {
    StoreArgs root;
    std::vector<std::string> inputs;
    symbols::PackageAddOptions po;
  };
  auto a = std::make_shared<AddArgs>();
  CLI::App* add = store->add_subcommand(
      "add",
      "Add PEs and PDBs (files, or directories searched for .dll/.exe/.pdb) and compile each\n"
      "Portable PDB's cache beside it. Same bytes twice: 'already present'. Different bytes under\n"
      "an existing key: refused (exit 3). Writes are atomic and locked (concurrent adds are safe).\n"
      "A .nupkg/.snupkg file is a NuGet package: every PE/PDB inside is added; with --sources,\n"
      "its src/ files are published there as ID/VERSION/PATH and documents of PDBs without\n"
      "SourceLink get URLs under --source-url-root (longest common path suffix: see\n"
      "docs/symbol-stores.md).");
  add->add_option("STORE", a->root.root, "Store directory (created if absent), or s3://BUCKET/PREFIX")->required();
  add_store_options(add, a->root);
  add->add_option("INPUT", a->inputs, "PE/PDB files, directories, NuGet packages")->required();
  add->add_option("--sources", a->po.sources_dir, "Source store directory for package sources");
  add->add_option("--source-url-root", a->po.source_url_root, "URL the source store is served under");
  add->callback([a, &rc] { rc = check_source_options(a->po) ? run_add(a->root, a->inputs, a->po) : 1; });

  auto w = std::make_shared<symbols::WatchOptions>();
  CLI::App* watch = store->add_subcommand(
      "watch",
      "Add the NuGet packages (*.nupkg, *.snupkg) dropped into INBOX to STORE, one at a time:\n"
      "claimed into INBOX/.ilmap-work/, then moved to --archive (default INBOX/archive) or to\n"
      "INBOX/failed/ with NAME.reason. Resumes claimed packages after a crash. Write packages\n"
      "under another name and rename them into INBOX (files younger than --settle are left).\n"
      "Runs until SIGINT/SIGTERM (finishing the current package), or one pass with --once.");
  watch->add_option("INBOX", w->inbox, "Directory packages are dropped into")->required();
  watch->add_option("STORE", w->store, "Store directory (created if absent)")->required()->check([](const std::string& s) {
    return symbols::S3Store::is_s3_url(s) ? std::string("store watch into an s3:// store is not supported yet") : std::string();
  });
  watch->add_option("--sources", w->package.sources_dir, "Source store directory for package sources");
  watch->add_option("--source-url-root", w->package.source_url_root, "URL the source store is served under");
  watch->add_option("--archive", w->archive, "Where processed packages go (default INBOX/archive)");
  watch->add_flag("--once", w->once, "Process what is there, then exit");
  watch->add_option("--interval", w->interval, "Seconds between scans (default 2)")->check(CLI::Range(0.05, 3600.0));
  watch->add_option("--settle", w->settle, "Seconds a package must be unmodified before it is taken (default 2)")
      ->check(CLI::Range(0.0, 86400.0));
  watch->callback([w, &rc] { rc = check_source_options(w->package) ? run_watch(*w) : 1; });

  struct GetArgs {
    StoreArgs root;
    std::string key, for_file, out;
  };
  auto g = std::make_shared<GetArgs>();
  CLI::App* get = store->add_subcommand(
      "get",
      "Print the path of the file stored under KEY (keys compare without case), or copy it to\n"
      "-o OUT; with --for FILE, print 'KEY<TAB>PATH' for every stored file FILE's keys find (its\n"
      "own, the PDBs its CodeView entries name, their caches). Exit 3 when nothing is found.");
  get->add_option("STORE", g->root.root, "Store directory, or s3://BUCKET/PREFIX")->required();
  add_store_options(get, g->root);
  CLI::Option* key = get->add_option("KEY", g->key, "SSQP key, e.g. foo.pdb/<guid>FFFFFFFF/foo.pdb");
  CLI::Option* forf = get->add_option("--for", g->for_file, "A PE or PDB whose keys to look up");
  key->excludes(forf);
  get->add_option("-o,--output", g->out, "Copy the file here (atomically) instead of printing its path")->excludes(forf);
  get->callback([g, key, forf, &rc] {
    if (key->count() == 0 && forf->count() == 0) {
      std::fprintf(stderr, "ilmap: error: store get needs a KEY or --for FILE\n");
      rc = 1;
      return;
    }
    rc = run_get(g->root, g->key, g->for_file, g->out);
  });

  auto v = std::make_shared<StoreArgs>();
  CLI::App* ver = store->add_subcommand(
      "verify",
      "Check every PE/PDB against the key it is stored under (re-derived from its bytes) and\n"
      "every cache (ilmap verify, and its PDB id against the PDB beside it or the key).\n"
      "Exit 2 when a file is corrupt, 3 when one sits under the wrong key.");
  ver->add_option("STORE", v->root, "Store directory, or s3://BUCKET/PREFIX")->required();
  add_store_options(ver, *v);
  ver->callback([v, &rc] { rc = run_store_verify(*v); });
}

}  // namespace ilmap::cli
