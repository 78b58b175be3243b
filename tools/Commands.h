// Commands.h - registration of the ilmap subcommands (one file per subcommand).
#pragma once

#include <CLI/CLI.hpp>

namespace ilmap::cli {

// Each register_* adds a subcommand whose callback stores the process exit code in `rc`.
void register_dump(CLI::App& app, int& rc);

}  // namespace ilmap::cli
