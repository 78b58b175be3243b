// cmd_lookup.cpp - `ilmap lookup` (placeholder until its issue lands: reports "not implemented").
#include "Commands.h"

namespace ilmap::cli {

void register_lookup(CLI::App& app, int& rc) {
  CLI::App* cmd = app.add_subcommand("lookup", "(not implemented yet)");
  cmd->allow_extras();
  cmd->callback([&rc] { rc = report_error(Error{Errc::kUnsupported, "'lookup' is not implemented yet"}); });
}

}  // namespace ilmap::cli
