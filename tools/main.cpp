// main.cpp - the ilmap command-line program.
//
// Exit codes: 0 ok, 1 usage, 2 bad or corrupt input (or I/O failure), 3 not found or
// mismatched identity.
#include <cstdio>

#include "Commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "ilmap - compile .NET Portable PDBs into a memory-mappable lookup cache and resolve\n"
      "(method token, IL offset) to file:line:column.\n\n"
      "Exit codes: 0 ok, 1 usage error, 2 bad or corrupt input, 3 not found or mismatched.",
      "ilmap"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ilmap " ILMAP_VERSION_STRING);
  int rc = 0;
  ilmap::cli::register_compile(app, rc);
  ilmap::cli::register_lookup(app, rc);
  ilmap::cli::register_dump(app, rc);
  ilmap::cli::register_info(app, rc);
  ilmap::cli::register_verify(app, rc);
  // Name an unknown command instead of CLI11's generic "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known = known || sub->get_name() == argv[1];
    if (!known) {
      std::fprintf(stderr, "ilmap: error: unknown command '%s' (commands: compile, lookup, dump, info, verify; see ilmap --help)\n", argv[1]);
      return 1;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 1;
  }
  std::fflush(stdout);
  return rc;
}
