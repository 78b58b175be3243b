// cmd_unavailable.cpp - the commands a build of ilmap does not have, registered so that they
// answer for themselves: win-x64's first phase has no `serve` (no sockets, signals and process
// model of the Linux service yet; docs/build-and-test.md "Windows"). `ilmap serve ...` there
// prints "ilmap: error: 'serve' is not available in this build (...)" and exits 1 (usage).
#include <cstdio>

#include "tools/Commands.h"

namespace ilmap::cli {
namespace {

void add_unavailable(CLI::App& app, int& rc, const char* name, const char* why) {
  CLI::App* cmd = app.add_subcommand(name, std::string("Not available in this build: ") + why);
  cmd->allow_extras();
  cmd->prefix_command();
  cmd->callback([&rc, name, why] {
    std::fprintf(stderr, "ilmap: error: '%s' is not available in this build (%s)\n", name, why);
    rc = 1;
  });
}

}  // namespace

void register_serve(CLI::App& app, int& rc) {
  add_unavailable(app, rc, "serve", "the win-x64 build has no HTTP service yet; run it on Linux");
}

}  // namespace ilmap::cli
