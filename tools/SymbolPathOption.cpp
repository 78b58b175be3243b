// SymbolPathOption.cpp - see SymbolPathOption.h.
#include "tools/SymbolPathOption.h"

#include <cstdlib>

#include "support/FileBytes.h"
#include "symbols/ModuleIdentity.h"
#include "decode/PeFile.h"
#include "symbols/SymbolPath.h"

namespace ilmap::cli {

CLI::Option* add_download_timeout_option(CLI::App* cmd, long& seconds) {
  return cmd
      ->add_option("--download-timeout", seconds,
                   "Seconds one download may take in all, retries included (default " +
                       std::to_string(symbols::HttpOptions{}.total_timeout_s) +
                       "): a server that sends slowly, yet above 1 KiB/s, is cut off there")
      ->check(CLI::Range(1L, 7L * 86400));
}

std::string symbol_path_or_env(const std::string& given) {
  if (!given.empty()) return given;
  const char* env = std::getenv("_NT_SYMBOL_PATH");
  return env ? std::string(env) : std::string();
}

CLI::Option* add_symbol_path_option(CLI::App* cmd, std::string& spec, const std::string& what, long& download_timeout_s) {
  add_download_timeout_option(cmd, download_timeout_s);
  return cmd->add_option(
      "--symbol-path", spec,
      "Symbol path searched for " + what +
          " (default $_NT_SYMBOL_PATH): srv*CACHE*https://server;srv*https://other (downloads into "
          "the default cache directory's symbols/ when no cache*DIR entry comes before it);DIR (a local "
          "store), as 'ilmap fetch' reads it (docs/symbol-stores.md \"Fetching from symbol "
          "servers\"); local stores and download caches are read before a server is asked. What "
          "is found is verified (exit 3 when only wrong files are offered, 2 on server failure); "
          "downloads are kept in CACHE");
}

Result<symbols::Resolved> resolve_with_symbol_path(const std::string& spec, const std::string& input, bool want_cache,
                                                   long download_timeout_s) {
  auto entries = symbols::parse_symbol_path(spec);
  if (!entries) return entries.error();
  symbols::ResolveOptions ro;
  ro.want_cache = want_cache;
  ro.http.total_timeout_s = download_timeout_s;
  auto resolver = symbols::ModuleResolver::create(std::move(*entries), ro);
  if (!resolver) return resolver.error();
  auto file = FileBytes::open(input);
  if (!file) return file.error();
  auto ident = symbols::identify_file(input, file->bytes());
  if (!ident) return Error{ident.error().code, input + ": " + ident.error().message};
  std::optional<symbols::ModuleIdentity> want;
  if (ident->kind == symbols::ModuleKind::kPortablePdb) {
    want = *ident;
  } else if (ident->kind == symbols::ModuleKind::kPe) {
    PeOptions po;
    po.embedded_pdb_errors_fatal = false;
    auto pe = PeFile::parse(file->bytes(), po);
    if (!pe) return Error{pe.error().code, input + ": " + pe.error().message};
    for (const auto& w : symbols::pdbs_wanted_by(pe->info()))
      if (w.kind == symbols::ModuleKind::kPortablePdb) {
        want = w;
        break;
      }
    if (!want) return Error{Errc::kNotFound, input + ": the PE names no Portable PDB (no Portable CodeView entry)"};
  }
  if (!want) return Error{Errc::kUsage, input + ": not a PE or Portable PDB (--symbol-path finds what those name)"};
  auto r = resolver->resolve(*want);
  if (!r) return Error{r.error().code, input + ": " + r.error().message};
  if (want_cache && !r->is_cache)
    return Error{Errc::kNotFound, input + ": the symbol path has the PDB (" + r->path + ") but no ilmap cache of it; compile it (ilmap compile, or ilmap store add)"};
  return r;
}

}  // namespace ilmap::cli
