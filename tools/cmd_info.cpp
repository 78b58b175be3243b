// cmd_info.cpp - `ilmap info` (placeholder until its issue lands: reports "not implemented").
#include "Commands.h"

namespace ilmap::cli {

void register_info(CLI::App& app, int& rc) {
  CLI::App* cmd = app.add_subcommand("info", "(not implemented yet)");
  cmd->allow_extras();
  cmd->callback([&rc] { rc = report_error(Error{Errc::kUnsupported, "'info' is not implemented yet"}); });
}

}  // namespace ilmap::cli
