// cmd_verify.cpp - `ilmap verify` (placeholder until its issue lands: reports "not implemented").
#include "Commands.h"

namespace ilmap::cli {

void register_verify(CLI::App& app, int& rc) {
  CLI::App* cmd = app.add_subcommand("verify", "(not implemented yet)");
  cmd->allow_extras();
  cmd->callback([&rc] { rc = report_error(Error{Errc::kUnsupported, "'verify' is not implemented yet"}); });
}

}  // namespace ilmap::cli
