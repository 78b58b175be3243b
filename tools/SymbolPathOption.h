// SymbolPathOption.h - the `--symbol-path SPEC` option that lookup, compile (and symbolicate)
// share: one help text, one way to turn an input into what the symbol path holds for it.
// The work is symbols/ModuleResolver's (fetch uses it directly, with its HTTP knobs); here
// the defaults apply (docs/symbol-stores.md "Fetching from symbol servers").
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "symbols/ModuleResolver.h"
#include "ilmap/status.h"

namespace ilmap::cli {

// Adds `--symbol-path SPEC` to `cmd`, and `--download-timeout` (add_download_timeout_option);
// `what` completes "Symbol path searched for ..." (what the command looks for, e.g. "the cache
// of a PE or PDB given as CACHE").
CLI::Option* add_symbol_path_option(CLI::App* cmd, std::string& spec, const std::string& what, long& download_timeout_s);

// The symbol path a command uses: `given` (its --symbol-path), else $_NT_SYMBOL_PATH, else ""
// (none), as debuggers and dotnet-symbol read it.
std::string symbol_path_or_env(const std::string& given);

// Adds `--download-timeout SECONDS` (HttpOptions::total_timeout_s, default 300) to a command
// that downloads.
CLI::Option* add_download_timeout_option(CLI::App* cmd, long& seconds);

// What the symbol path `spec` holds for the PE or Portable PDB at `input`: with `want_cache`
// the ilmap cache of its (first Portable) PDB, else that PDB itself. Everything returned was
// verified (ModuleResolver.h). kUsage for a bad SPEC; kNotFound when no source has it (or,
// wanting a cache, a source has only the PDB: the message says to compile it); kMismatch
// when only wrong files were offered; kIo on server failure.
// `download_timeout_s`: HttpOptions::total_timeout_s.
Result<symbols::Resolved> resolve_with_symbol_path(const std::string& spec, const std::string& input, bool want_cache,
                                                   long download_timeout_s);

}  // namespace ilmap::cli
