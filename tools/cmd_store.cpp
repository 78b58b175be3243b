// cmd_store.cpp - `ilmap store add STORE INPUT...`, `ilmap store get STORE KEY [-o OUT]`,
// `ilmap store get STORE --for FILE`, `ilmap store verify STORE`, `ilmap store watch INBOX
// STORE`: a symbol store laid out under SSQP keys, with the ilmap cache of every Portable PDB
// beside it, fed with files or NuGet symbol packages (symbols/).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "support/AtomicFile.h"
#include "tools/Commands.h"
#include "support/FileBytes.h"
#include "support/Platform.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/MsymIngest.h"
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
  std::string e = platform::fs_string(p.extension());
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e == ".pdb" || e == ".dll" || e == ".exe" || e == ".msym";
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

// One input of `store add`: a PE/PDB file, or a NuGet package (its events kept for output).
struct AddItem {
  std::string path;
  bool package = false;
  std::vector<symbols::StoredFile> stored;  // a file: itself, then its cache; a package: each event's
  std::vector<std::string> package_lines;   // a package: the text lines of its events, in order
  nlohmann::ordered_json sources = nlohmann::ordered_json::array();  // a package's source files
  std::optional<Error> error;
};

const char* json_outcome(PutOutcome o) {
  return o == PutOutcome::kAdded ? "added" : o == PutOutcome::kReplaced ? "replaced" : "already_present";
}

bool is_cache_key(const std::string& key) { return key.size() > 6 && key.compare(key.size() - 6, 6, ".ilmap") == 0; }

// Counts of the summary line: every PE/PDB (a file, or an entry of a package) once.
struct AddCounts {
  std::size_t added = 0, present = 0, refused = 0, failed = 0;
  void count(const AddItem& it) {
    for (const auto& s : it.stored)
      if (!is_cache_key(s.key)) ++(s.outcome == PutOutcome::kAlreadyPresent ? present : added);
    if (it.error) ++(it.error->code == Errc::kMismatch ? refused : failed);
  }
};

void run_package(symbols::Store& store, AddItem& it, const symbols::PackageAddOptions& po) {
  Status s = symbols::add_package(store, it.path, po, [&](const symbols::PackageEvent& ev) {
    switch (ev.kind) {
      case symbols::PackageEvent::kStored:
        it.stored.push_back(ev.stored);
        it.package_lines.push_back(std::string(outcome_word(ev.stored.outcome)) + ": " + escape_text(ev.stored.key));
        break;
      case symbols::PackageEvent::kSource:
        it.sources.push_back({{"path", ev.source}, {"outcome", json_outcome(ev.source_outcome)}});
        it.package_lines.push_back("source " + std::string(outcome_word(ev.source_outcome)) + ": " + escape_text(ev.source));
        break;
      case symbols::PackageEvent::kMatched:
        it.package_lines.push_back(escape_text(ev.source) + format(": %zu of %zu documents matched to package sources", ev.matched, ev.documents));
        break;
    }
  });
  if (!s) it.error = s.error();
}

void run_file(symbols::Store& store, AddItem& it) {
  // A Mono AOT .msym (docs/msym.md): stored as it is, under its AOT id's key.
  auto r = symbols::is_msym_name(it.path) ? symbols::add_msym_to_store(store, it.path) : symbols::add_to_store(store, it.path);
  if (!r)
    it.error = r.error();
  else
    it.stored = std::move(*r);
}

// "added: KEY (cache added)": a file and its cache on one line; a cache not in the file's key
// directory (a PE's embedded PDB) is named.
std::string file_line(const AddItem& it) {
  const symbols::StoredFile& f = it.stored.front();
  std::string line = std::string(outcome_word(f.outcome)) + ": " + escape_text(f.key);
  if (it.stored.size() > 1) {
    const symbols::StoredFile& c = it.stored[1];
    const bool beside = c.key.substr(0, c.key.rfind('/')) == f.key.substr(0, f.key.rfind('/'));
    line += std::string(" (cache ") + outcome_word(c.outcome) + (beside ? "" : ": " + escape_text(c.key)) + ")";
  }
  return line;
}

nlohmann::ordered_json item_json(const AddItem& it) {
  nlohmann::ordered_json r;
  r["input"] = it.path;
  if (it.error) {
    r["result"] = it.error->code == Errc::kMismatch ? "refused" : "failed";
    r["exit_code"] = exit_code_for(it.error->code);
    r["error"] = it.error->message;
  } else {
    bool added = false;
    for (const auto& s : it.stored) added = added || (!is_cache_key(s.key) && s.outcome != PutOutcome::kAlreadyPresent);
    r["result"] = added ? "added" : "already_present";
  }
  if (!it.package && !it.stored.empty()) r["key"] = it.stored.front().key;
  r["stored"] = nlohmann::ordered_json::array();
  for (const auto& s : it.stored) r["stored"].push_back({{"key", s.key}, {"outcome", json_outcome(s.outcome)}});
  if (it.package) r["sources"] = it.sources;
  return r;
}

// What a run prints, and the progress line on a terminal. Items are printed in input order as
// soon as every item before them is done (the output does not depend on --jobs); the progress
// line ("ilmap: store add: 312/1000 files") is rewritten on stderr a few times a second, erased
// before a line is printed and at the end.
class AddPrinter {
 public:
  AddPrinter(const std::vector<AddItem>& items, bool quiet, bool json, bool progress)
      : items_(items), done_(items.size(), false), quiet_(quiet), json_(json) {
    if (progress) ticker_ = std::thread([this] { tick(); });
  }
  ~AddPrinter() { finish(); }

  void done(std::size_t i) {
    std::lock_guard<std::mutex> lock(mutex_);
    done_[i] = true;
    ++count_;
    for (; next_ < items_.size() && done_[next_]; ++next_) print(items_[next_]);
  }

  void finish() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (ticker_.joinable()) ticker_.join();
    erase();
  }

 private:
  void erase() {
    if (shown_) std::fputs("\r\033[K", stderr);
    shown_ = false;
  }
  void print(const AddItem& it) {
    erase();
    if (it.error) std::fprintf(stderr, "ilmap: error: %s\n", escape_text(it.error->message).c_str());
    if (quiet_ || json_) return;
    if (it.package) {
      for (const std::string& l : it.package_lines) print_line(l);
    } else if (!it.stored.empty()) {
      print_line(file_line(it));
    }
    std::fflush(stdout);
  }
  // The line shows after 300 ms and is rewritten every 200 ms. ILMAP_TEST_PROGRESS_MS=N (a test
  // knob) makes both N ms, so that a test sees the line however fast the machine adds files.
  void tick() {
    auto delay = std::chrono::milliseconds(300), period = std::chrono::milliseconds(200);
    if (const char* v = std::getenv("ILMAP_TEST_PROGRESS_MS"); v && std::atoi(v) > 0)
      delay = period = std::chrono::milliseconds(std::atoi(v));
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      wake_.wait_for(lock, period);
      if (stop_ || std::chrono::steady_clock::now() - start < delay) continue;
      std::fprintf(stderr, "\rilmap: store add: %zu/%zu files\033[K", count_, items_.size());
      std::fflush(stderr);
      shown_ = true;
    }
  }

  const std::vector<AddItem>& items_;
  std::vector<bool> done_;
  std::size_t next_ = 0, count_ = 0;
  bool quiet_, json_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false, shown_ = false;
  std::thread ticker_;
};

// The lower-cased file name without its extension: inputs sharing it (foo.dll, foo.pdb, two
// copies of foo.pdb) may write the same keys, so they are added one after the other, in input
// order, by one thread (what each reports does not depend on --jobs).
std::string stem_group(const std::string& path) {
  std::string s = platform::fs_string(platform::fs_path(path).stem());
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

struct AddFlags {
  unsigned jobs = 0;
  bool quiet = false, json = false;
};

int run_add(const StoreArgs& where, const std::vector<std::string>& inputs, const symbols::PackageAddOptions& po,
            const AddFlags& flags) {
  auto opened = open_store(where);
  if (!opened) return report_error(opened.error());
  symbols::Store& store = **opened;
  std::vector<std::string> files;
  int rc = 0;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(platform::fs_path(in), ec)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(platform::fs_path(in), ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && is_module_ext(it->path())) found.push_back(platform::fs_string(it->path()));
      if (ec) rc = std::max(rc, report_error({Errc::kIo, in + ": cannot list: " + ec.message()}));
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(in);
    }
  }
  std::vector<AddItem> items(files.size());
  // Files in groups of one stem (each group one thread's, in input order); packages after all
  // files, one at a time (two packages may hold the same PDB or source file).
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::size_t> packages;
  std::map<std::string, std::size_t> group_of;
  for (std::size_t i = 0; i < files.size(); ++i) {
    items[i].path = files[i];
    items[i].package = symbols::is_package_name(files[i]);
    if (items[i].package) {
      packages.push_back(i);
      continue;
    }
    auto [it, fresh] = group_of.emplace(stem_group(files[i]), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  // Before any thread starts: the umask is read by setting it, and a signal must find the
  // handlers that remove temporary files.
  (void)new_file_mode();
  install_temp_cleanup();
  const bool progress = !flags.quiet && platform::is_terminal(2) && !files.empty();
  AddPrinter printer(items, flags.quiet, flags.json, progress);
  const unsigned want = flags.jobs ? flags.jobs : std::max(1u, std::thread::hardware_concurrency());
  const unsigned n = std::max(1u, std::min<unsigned>(want, static_cast<unsigned>(groups.size())));
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t g; (g = next.fetch_add(1)) < groups.size();)
      for (std::size_t i : groups[g]) {
        run_file(store, items[i]);
        printer.done(i);
      }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (std::size_t i : packages) {
    run_package(store, items[i], po);
    printer.done(i);
  }
  printer.finish();
  AddCounts c;
  for (const AddItem& it : items) {
    c.count(it);
    if (it.error) rc = std::max(rc, exit_code_for(it.error->code));
  }
  if (flags.json) {
    nlohmann::ordered_json j;
    j["added"] = c.added;
    j["already_present"] = c.present;
    j["refused"] = c.refused;
    j["failed"] = c.failed;
    j["results"] = nlohmann::ordered_json::array();
    for (const AddItem& it : items) j["results"].push_back(item_json(it));
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  } else if (!flags.quiet || c.refused || c.failed) {
    std::fprintf(c.refused || c.failed ? stderr : stdout, "%zu added, %zu already present, %zu refused, %zu failed\n",
                 c.added, c.present, c.refused, c.failed);
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
    // What the server sent is checked against what its key names (as store verify does) before
    // a byte is written: a body cut short or padded by a lying server is refused.
    if (auto c = symbols::check_stored_bytes(key, b->bytes()); !c)
      return report_error({c.error().code, b->where() + ": not the file its key names: " + c.error().message});
    return copy_out(*b, out);
  }
  auto p = store.locate(key);
  if (!p) return report_error(p.error());
  print_line(escape_text(*p));
  return 0;
}

int run_store_verify(const StoreArgs& where) {
  std::error_code ec;
  if (!symbols::S3Store::is_s3_url(where.root) && !fs::is_directory(platform::fs_path(where.root), ec))
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

int run_watch(const symbols::WatchOptions& o, const StoreArgs& where) {
  // A bucket inbox: same endpoint, region and credentials as a bucket STORE would use.
  std::unique_ptr<symbols::Store> inbox;
  if (symbols::S3Store::is_s3_url(o.inbox)) {
    auto opened_inbox = open_store({o.inbox, where.endpoint, where.region});
    if (!opened_inbox) return report_error({opened_inbox.error().code, "INBOX: " + opened_inbox.error().message});
    inbox = std::move(*opened_inbox);
  }
  auto opened = open_store(where);
  if (!opened) return report_error(opened.error());
  platform::handle_stop_signals(on_stop_signal);
  const auto log = [](const std::string& line) {
    print_line(line);
    std::fflush(stdout);
  };
  auto r = inbox ? symbols::run_bucket_watch(o, static_cast<symbols::S3Store&>(*inbox), **opened, g_stop, log)
                 : symbols::run_watch(o, **opened, g_stop, log);
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
      "STORE is a folder, or an S3 bucket s3://BUCKET/PREFIX for add, get, verify and watch (credentials\n"
      "from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY; docs/symbol-stores.md \"S3 buckets\").\n"
      "NuGet packages (.nupkg, .snupkg) are added with `store add` or from an inbox (`store watch`).\n"
      "`ilmap store add --help` etc. describe the subcommands.");
  store->require_subcommand(1);

  struct AddArgs {
    StoreArgs root;
    std::vector<std::string> inputs;
    symbols::PackageAddOptions po;
    AddFlags flags;
  };
  auto a = std::make_shared<AddArgs>();
  CLI::App* add = store->add_subcommand(
      "add",
      "Add PEs and PDBs (files, or directories searched for .dll/.exe/.pdb/.msym) and compile each\n"
      "Portable PDB's cache beside it. Same bytes twice: 'already present'. Different bytes under\n"
      "an existing key: refused (exit 3). Writes are atomic and locked (concurrent adds are safe).\n"
      "A .nupkg/.snupkg file is a NuGet package: every PE/PDB inside is added; with --sources,\n"
      "its src/ files are published there as ID/VERSION/PATH and documents of PDBs without\n"
      "SourceLink get URLs under --source-url-root (longest common path suffix: see\n"
      "docs/symbol-stores.md). Mono AOT .msym files (of a folder mono --aot=msym-dir wrote:\n"
      "DIR/AOTID/ASSEMBLY.msym) are stored as they are under ASSEMBLY.msym/AOTID/ASSEMBLY.msym,\n"
      "for symbolicate --msym-dir STORE (docs/msym.md).\n"
      "Output: one line per file in input order ('added: KEY (cache added)'; a package: one line\n"
      "per stored file and source), then '12 added, 3 already present, 0 refused, 0 failed'\n"
      "(on stderr when something was refused or failed); errors on stderr. On a terminal, a\n"
      "progress line on stderr. Files are added by --jobs threads, packages after them one at a\n"
      "time; the output does not depend on N.\n"
      "Exit code: 0 all added or already present; 3 refused (other bytes under a key); 2 bad\n"
      "input, or the store cannot be read or written; 1 usage; with several failures the\n"
      "highest.");
  add->add_option("STORE", a->root.root, "Store directory (created if absent), or s3://BUCKET/PREFIX")->required();
  add_store_options(add, a->root);
  add->add_option("INPUT", a->inputs, "PE/PDB/.msym files, directories, NuGet packages")->required();
  add->add_option("--sources", a->po.sources_dir, "Source store directory for package sources");
  add->add_option("--source-url-root", a->po.source_url_root, "URL the source store is served under");
  add->add_option("-j,--jobs", a->flags.jobs, "Threads adding files at once (default: number of CPUs), for folders and buckets alike")
      ->check(CLI::Range(1u, 256u));
  auto* quiet = add->add_flag("-q,--quiet", a->flags.quiet, "Print only errors (and the summary line when something failed)");
  add->add_flag("--json", a->flags.json, "Print one JSON document on stdout: counts and each input's result and stored keys")
      ->excludes(quiet);
  add->callback([a, &rc] { rc = check_source_options(a->po) ? run_add(a->root, a->inputs, a->po, a->flags) : 1; });

  struct WatchArgs {
    symbols::WatchOptions o;
    StoreArgs root;
  };
  auto wa = std::make_shared<WatchArgs>();
  symbols::WatchOptions* w = &wa->o;
  CLI::App* watch = store->add_subcommand(
      "watch",
      "Add the NuGet packages (*.nupkg, *.snupkg) dropped into INBOX to STORE, one at a time:\n"
      "claimed into INBOX/.ilmap-work/, then moved to --archive (default INBOX/archive) or to\n"
      "INBOX/failed/ with NAME.reason. Resumes claimed packages after a crash. Write packages\n"
      "under another name and rename them into INBOX (files younger than --settle are left).\n"
      "Runs until SIGINT/SIGTERM (finishing the current package), or one pass with --once.\n"
      "INBOX may be a bucket prefix s3://BUCKET/PREFIX: a package stays there until it is added and\n"
      "archived under PREFIX/archive/ (or PREFIX/failed/), so a killed watcher's package is done again\n"
      "by the next pass; several watchers may serve one bucket inbox (docs/symbol-stores.md).");
  watch->add_option("INBOX", w->inbox, "Local directory packages are dropped into, or a bucket prefix s3://BUCKET/PREFIX")->required();
  watch->add_option("STORE", wa->root.root, "Store directory (created if absent), or s3://BUCKET/PREFIX")->required();
  add_store_options(watch, wa->root);
  watch->add_option("--sources", w->package.sources_dir, "Source store directory for package sources");
  watch->add_option("--source-url-root", w->package.source_url_root, "URL the source store is served under");
  watch->add_option("--archive", w->archive, "Where processed packages go (default INBOX/archive)");
  watch->add_flag("--once", w->once, "Process what is there, then exit");
  watch->add_option("--interval", w->interval, "Seconds between scans (default 2)")->check(CLI::Range(0.05, 3600.0));
  watch->add_option("--settle", w->settle, "Seconds a package must be unmodified before it is taken (default 2)")
      ->check(CLI::Range(0.0, 86400.0));
  watch->callback([wa, &rc] { rc = check_source_options(wa->o.package) ? run_watch(wa->o, wa->root) : 1; });

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
