// Commands.h - registration of the ilmap subcommands (one file per subcommand).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "support/TextEscape.h"
#include "ilmap/status.h"

namespace ilmap::cli {

// Each register_* adds a subcommand whose callback stores the process exit code in `rc`.
void register_compile(CLI::App& app, int& rc);
void register_lookup(CLI::App& app, int& rc);
void register_lines(CLI::App& app, int& rc);
void register_dump(CLI::App& app, int& rc);
void register_info(CLI::App& app, int& rc);
void register_verify(CLI::App& app, int& rc);
void register_store(CLI::App& app, int& rc);
void register_fetch(CLI::App& app, int& rc);
void register_symbolicate(CLI::App& app, int& rc);
void register_serve(CLI::App& app, int& rc);

// Prints an info object as aligned "key: value" lines, or as JSON (cmd_info.cpp).
void print_info(const nlohmann::ordered_json& j, bool json);
// `ilmap info` for a cache input (cmd_info_cache.cpp).
int info_cache(const std::string& path, bool json);

// Prints "ilmap: error: <message>" to stderr (escaped: messages may quote paths and names
// from the input) and returns the documented exit code.
inline int report_error(const Error& e) {
  std::fprintf(stderr, "ilmap: error: %s\n", escape_text(e.message).c_str());
  return exit_code_for(e.code);
}

// --max-decompressed, as dump and info take it (compile has its own with the same meaning): the
// largest embedded PDB or embedded source inflated, and the total of the distinct embedded
// sources of one PDB (docs/limits.md).
inline constexpr std::uint64_t kDefaultMaxDecompressed = std::uint64_t(512) << 20;
inline CLI::Option* add_max_decompressed(CLI::App* cmd, std::uint64_t& value) {
  return cmd
      ->add_option("--max-decompressed", value,
                   "Largest embedded PDB or embedded source to inflate, and the most bytes all "
                   "embedded sources of one PDB may inflate to together (bytes, or with a unit: "
                   "64KiB, 512MiB; default 512MiB). Beyond it the input fails with exit 2, "
                   "before any allocation")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t(1), std::uint64_t(UINT32_MAX)));
}

}  // namespace ilmap::cli
