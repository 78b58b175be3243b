// cmd_compile.cpp - `ilmap compile` (placeholder until its issue lands: reports "not implemented").
#include "Commands.h"

namespace ilmap::cli {

void register_compile(CLI::App& app, int& rc) {
  CLI::App* cmd = app.add_subcommand("compile", "(not implemented yet)");
  cmd->allow_extras();
  cmd->callback([&rc] { rc = report_error(Error{Errc::kUnsupported, "'compile' is not implemented yet"}); });
}

}  // namespace ilmap::cli
