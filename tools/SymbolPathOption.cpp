// SymbolPathOption.cpp - see SymbolPathOption.h.
#include "tools/SymbolPathOption.h"

#include <cstdlib>


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

}  // namespace ilmap::cli
