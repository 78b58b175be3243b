// Commands.h - registration of the ilmap subcommands (one file per subcommand).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "ilmap/status.h"

namespace ilmap::cli {

// Each register_* adds a subcommand whose callback stores the process exit code in `rc`.
void register_compile(CLI::App& app, int& rc);
void register_lookup(CLI::App& app, int& rc);
void register_dump(CLI::App& app, int& rc);
void register_info(CLI::App& app, int& rc);
void register_verify(CLI::App& app, int& rc);

// Prints an info object as aligned "key: value" lines, or as JSON (cmd_info.cpp).
void print_info(const nlohmann::ordered_json& j, bool json);
// `ilmap info` for a cache input (cmd_info_cache.cpp).
int info_cache(const std::string& path, bool json);

// Prints "ilmap: error: <message>" to stderr and returns the documented exit code.
inline int report_error(const Error& e) {
  std::fprintf(stderr, "ilmap: error: %s\n", e.message.c_str());
  return exit_code_for(e.code);
}

}  // namespace ilmap::cli
