// SymbolPathOption.h - the `--symbol-path SPEC` option that lookup, compile (and symbolicate)
// share: one help text, one way to turn an input into what the symbol path holds for it.
// The work is symbols/ModuleResolver's (fetch uses it directly, with its HTTP knobs); here
// the defaults apply (docs/symbol-stores.md "Fetching from symbol servers").
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "symbols/CompileFile.h"
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

// What the symbol path holds for an input: symbols::resolve_with_symbol_path (symbols/CompileFile.h).

}  // namespace ilmap::cli
