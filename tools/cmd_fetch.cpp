// cmd_fetch.cpp - `ilmap fetch --symbol-path SPEC FILE...`: for each FILE (a PE, or a PDB on
// disk) find what it needs (the PDBs its CodeView entries name; for a PDB, its cache) in the
// symbol path, preferring ilmap caches, verifying everything, and print `KEY<TAB>PATH` for each.
// Modules are resolved by --jobs threads (each its own libcurl easy handle), printed in order;
// on a terminal a progress line shows meanwhile on stderr (FetchProgress.h).
// The work is symbols/ModuleResolver's; this file is the command line.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <thread>


#include "tools/Commands.h"
#include "tools/HelpFormatter.h"
#include "tools/FetchProgress.h"
#include "support/FileBytes.h"
#include "support/Platform.h"
#include "symbols/ModuleIdentity.h"
#include "symbols/ModuleResolver.h"
#include "decode/PeFile.h"
#include "symbols/SymbolPath.h"
#include "tools/SymbolPathOption.h"

namespace ilmap::cli {
namespace {

struct FetchArgs {
  std::string spec;
  std::vector<std::string> files;
  long negative_ttl = 3600;
  long connect_timeout_ms = 10000;
  long read_timeout_s = 30;
  long download_timeout_s = symbols::HttpOptions{}.total_timeout_s;
  std::uint64_t max_size = std::uint64_t(1) << 30;
  int attempts = 3;
  unsigned jobs = 4;
  bool verbose = false;
};

int run_fetch(const FetchArgs& a) {
  const std::string spec = symbol_path_or_env(a.spec);
  if (spec.empty()) {
    std::fprintf(stderr, "ilmap: error: fetch needs --symbol-path SPEC (or _NT_SYMBOL_PATH)\n");
    return 1;
  }
  auto entries = symbols::parse_symbol_path(spec);
  if (!entries) return report_error(entries.error());
  symbols::ResolveOptions ro;
  ro.negative_ttl_s = a.negative_ttl;
  ro.http.connect_timeout_ms = a.connect_timeout_ms;
  ro.http.read_timeout_s = a.read_timeout_s;
  ro.http.total_timeout_s = a.download_timeout_s;
  ro.http.max_bytes = a.max_size;
  ro.http.attempts = a.attempts;
  symbols::TransferCounter received;
  ro.http.counter = &received;
  if (a.verbose) ro.note = [](const std::string& s) { std::fprintf(stderr, "ilmap: %s\n", escape_text(s).c_str()); };
  auto resolver = symbols::ModuleResolver::create(std::move(*entries), ro);
  if (!resolver) return report_error(resolver.error());

  // One item per wanted module (or per FILE that failed before that), resolved by up to
  // --jobs threads, reported in input order.
  struct Item {
    std::string path;
    std::optional<symbols::ModuleIdentity> want;
    std::optional<Error> error;
    std::optional<symbols::Resolved> found;
  };
  std::vector<Item> items;
  for (const std::string& path : a.files) {
    auto file = FileBytes::open(path);
    if (!file) {
      items.push_back({path, std::nullopt, file.error(), std::nullopt});
      continue;
    }
    auto ident = symbols::identify_file(path, file->bytes());
    if (!ident) {
      items.push_back({path, std::nullopt, Error{ident.error().code, path + ": " + ident.error().message}, std::nullopt});
      continue;
    }
    if (ident->kind != symbols::ModuleKind::kPe) {
      items.push_back({path, *ident, std::nullopt, std::nullopt});
      continue;
    }
    PeOptions po;
    po.embedded_pdb_errors_fatal = false;
    auto pe = PeFile::parse(file->bytes(), po);
    if (!pe) {
      items.push_back({path, std::nullopt, Error{pe.error().code, path + ": " + pe.error().message}, std::nullopt});
      continue;
    }
    const auto wants = symbols::pdbs_wanted_by(pe->info());
    if (wants.empty())
      items.push_back({path, std::nullopt, Error{Errc::kNotFound, path + ": the PE names no PDB (no CodeView entry)"}, std::nullopt});
    for (const auto& w : wants) items.push_back({path, w, std::nullopt, std::nullopt});
  }
  std::atomic<std::size_t> next{0}, done{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < items.size();) {
      Item& it = items[i];
      if (it.want) {
        auto r = resolver->resolve(*it.want);
        if (r) it.found = *r;
        else it.error = Error{r.error().code, it.path + ": " + r.error().message};
      }
      done.fetch_add(1);
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(a.jobs, static_cast<unsigned>(items.size())));
  {
    // A progress line on a terminal only (docs/symbol-stores.md "Fetching from symbol
    // servers"); erased before the answers print.
    FetchProgress progress(!a.verbose && platform::is_terminal(2), items.size(), done, received);
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
  }

  int rc = 0;
  for (const Item& it : items) {
    if (it.error) {
      rc = std::max(rc, report_error(*it.error));
      continue;
    }
    if (!it.found) continue;
    const std::string line = escape_text(it.found->key) + "\t" + escape_text(it.found->path) + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  return rc;
}

}  // namespace

void register_fetch(CLI::App& app, int& rc) {
  auto a = std::make_shared<FetchArgs>();
  // The short description is what `ilmap help` lists; the details show in `ilmap help fetch`.
  CLI::App* cmd = app.add_subcommand("fetch", "Fetch the PDBs (or their ilmap caches) a PE needs from a symbol path.");
  cmd->footer(
      "Finds the PDBs a PE names (or a PDB's cache) in a symbol path, preferring ilmap caches,\n"
      "verifies them (cache: verify + PDB id; PDB: id and the PE's PdbChecksum), keeps downloads in\n"
      "the local cache, and prints KEY<TAB>PATH for each. SPEC: srv*CACHE*https://server;\n"
      "srv*https://other (with a cache*DIR before it); DIR (a local store). Exit 3 when not found\n"
      "or only wrong files were offered, 2 on I/O or server failure.");
  cmd->add_option("--symbol-path", a->spec, "Symbol path (default: $_NT_SYMBOL_PATH)");
  cmd->add_option("FILE", a->files, "PE or PDB files")->required();
  cmd->add_option("--negative-ttl", a->negative_ttl, "Seconds a 404 is remembered (default 3600; 0: never)")
      ->check(CLI::Range(0L, 365L * 86400));
  cmd->add_option("--connect-timeout-ms", a->connect_timeout_ms, "Connect timeout (default 10000)")->check(CLI::Range(1L, 600000L));
  cmd->add_option("--read-timeout", a->read_timeout_s, "Seconds below 1 KiB/s before a transfer times out (default 30)")
      ->check(CLI::Range(1L, 3600L));
  add_download_timeout_option(cmd, a->download_timeout_s);
  show_as_size(cmd->add_option("--max-size", a->max_size, "Largest file to download (bytes, or with a unit: 64MiB; default 1GiB)")
                   ->transform(size_value())
                   ->check(CLI::Range(std::uint64_t(1), std::uint64_t(1) << 40)));
  cmd->add_option("--attempts", a->attempts, "Tries per request on 5xx, timeouts, broken connections (default 3)")
      ->check(CLI::Range(1, 10));
  cmd->add_option("-j,--jobs", a->jobs, "Modules resolved (downloaded) at once (default 4)")->check(CLI::Range(1u, 64u));
  cmd->add_flag("-v,--verbose", a->verbose, "Say why a download was refused or not asked for");
  cmd->callback([a, &rc] { rc = run_fetch(*a); });
}

}  // namespace ilmap::cli
