// main.cpp - the ilmap command-line program.
//
// Exit codes: 0 ok, 1 usage, 2 bad or corrupt input (or I/O failure, writing stdout included),
// 3 not found or mismatched identity.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tools/Commands.h"
#include "ilmap/mapping_guard.h"
#include "tools/HelpFormatter.h"
#include "support/Platform.h"

namespace {

// Levenshtein distance (insert, delete, substitute: 1 each).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

CLI::App* find_command(CLI::App& app, std::string_view name) {
  for (CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// "unknown command 'X'", with the nearest command when it is at most 2 edits away (a typo).
int unknown_command(CLI::App& app, const std::string& name) {
  std::string best;
  std::size_t best_d = 3;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::size_t d = edit_distance(name, sub->get_name());
    if (d < best_d) best_d = d, best = sub->get_name();
  }
  const std::string hint = best.empty() ? "" : "did you mean '" + best + "'? ";
  std::string names;  // every registered command, so the list never goes stale
  for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
  std::fprintf(stderr, "ilmap: error: unknown command '%s' (%scommands: %s; see ilmap help)\n",
               name.c_str(), hint.c_str(), names.c_str());
  return 1;
}

struct CommandEntry {
  std::string_view name;  // as the command names itself in add_subcommand
  void (*add)(CLI::App&, int&);
};
constexpr CommandEntry kCommands[] = {
    {"compile", ilmap::cli::register_compile}, {"lookup", ilmap::cli::register_lookup},
    {"lines", ilmap::cli::register_lines},     {"dump", ilmap::cli::register_dump},
    {"info", ilmap::cli::register_info},       {"verify", ilmap::cli::register_verify},
    {"store", ilmap::cli::register_store},     {"fetch", ilmap::cli::register_fetch},
    {"symbolicate", ilmap::cli::register_symbolicate}, {"serve", ilmap::cli::register_serve},
};

int run(int argc, char** argv) {
  // A mapped cache or input truncated by another process faults as SIGBUS: the guard turns that
  // into "changed while in use" errors (include/ilmap/mapping_guard.h).
  ilmap::install_mapping_guard();
  // `ilmap --version` alone, what build scripts run to check the tool: the line CLI11's version
  // flag prints, without setting up any command (what that saves: BENCHMARKS.md, "Process start").
  if (argc == 2 && std::string_view(argv[1]) == "--version") return std::puts("ilmap " ILMAP_VERSION_STRING) < 0 ? 2 : 0;
  // `--config FILE` is an option of ilmap, not of a command, so CLI11 takes it only before the
  // command's name; written after it (`ilmap serve --config f.toml`, as users do), it is moved in
  // front rather than refused. Only before a `--` that ends the options.
  std::vector<char*> args(argv, argv + argc);
  if (argc > 2 && argv[1][0] != '-') {
    for (int i = 2; i < argc && std::string_view(argv[i]) != "--"; ++i) {
      const std::string_view a = argv[i];
      const int n = a == "--config" && i + 1 < argc ? 2 : a.starts_with("--config=") ? 1 : 0;
      if (n == 0) continue;
      args.erase(args.begin() + i, args.begin() + i + n);
      args.insert(args.begin() + 1, argv + i, argv + i + n);
      break;
    }
  }
  argv = args.data();
  CLI::App app{
      "ilmap - compile .NET Portable PDBs into a memory-mappable lookup cache and resolve\n"
      "(method token, IL offset) to file:line:column.\n\n"
      "Exit codes: 0 ok, 1 usage error, 2 bad or corrupt input or I/O failure, 3 not found or "
      "mismatched.\n`ilmap help CMD` (or `ilmap CMD --help`) describes one command.",
      "ilmap"};
  app.formatter(std::make_shared<ilmap::cli::HelpFormatter>());
  // Options are spelt --name everywhere: on Windows CLI11 would also take "/name", so that an
  // input path such as /home/me/app.pdb (Wine, MSYS) read as an unknown option. Before the
  // commands are added: they inherit it.
  app.allow_windows_style_options(false);
  app.require_subcommand(1);
  app.set_version_flag("--version", "ilmap " ILMAP_VERSION_STRING);
  // `ilmap --config FILE CMD ...`: options from a TOML file (CLI11's reader), each command's under
  // its own section ([serve] port = 8327, search = ["/srv/app/bin"]); the command line wins; an
  // option the command does not have is an error.
  app.set_config("--config", "",
                 "Read options from FILE (TOML): a command's options under its section, as [serve] and then "
                 "lines such as: listen = '127.0.0.1:8327'; search = ['bin']; the command line wins (docs/serve.md)")
      ->check(CLI::ExistingFile);
  app.allow_config_extras(CLI::config_extras_mode::error);
  int rc = 0;
  // `ilmap CMD ...` with a known CMD sets up that command only (its options, validators and
  // help are the same); the others cost a quarter of a short process's start. Anything else
  // (help, a typo, a flag) sets up every command, in this order.
  const CommandEntry* only = nullptr;
  if (argc > 1)
    for (const CommandEntry& c : kCommands)
      if (std::string_view(argv[1]) == c.name) only = &c;
  for (const CommandEntry& c : kCommands)
    if (!only || &c == only) c.add(app, rc);
  for (CLI::App* sub : app.get_subcommands({}))
    if (CLI::Option* o = sub->get_option_no_throw("--max-decompressed")) ilmap::cli::show_as_size(o);

  if (argc > 1 && argv[1][0] != '-') {
    const std::string name = argv[1];
    if (name == "help") {  // `ilmap help [CMD]`
      if (argc == 2) return std::fputs(app.help().c_str(), stdout), 0;
      if (argc > 3) {
        std::fprintf(stderr, "ilmap: error: help takes at most one COMMAND\n");
        return 1;
      }
      CLI::App* sub = find_command(app, argv[2]);
      if (!sub) return unknown_command(app, argv[2]);
      std::fputs(sub->help("ilmap").c_str(), stdout);
      return 0;
    }
    // Name an unknown command instead of CLI11's generic "A subcommand is required".
    if (!find_command(app, name)) return unknown_command(app, name);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ConfigError& e) {
    std::fprintf(stderr, "ilmap: error: --config: %s (a command's options go under its section, such as [serve])\n",
                 e.what());
    return 1;
  } catch (const CLI::ParseError& e) {
    const bool named = argc > 1 && find_command(app, argv[1]);
    std::fprintf(stderr, "ilmap: error: %s\nRun 'ilmap %s--help' for more information.\n", e.what(),
                 named ? (std::string(argv[1]) + " ").c_str() : "");
    return 1;
  }
  return rc;
}

// Output that did not reach stdout (a full disk, a closed pipe's EIO) is a failure: exit 2.
int finish_stdout(int rc) {
  const int earlier = errno;  // an fwrite that failed before (then fflush may have nothing left)
  errno = 0;
  bool ok = std::fflush(stdout) == 0;
  int err = ok ? earlier : errno;
  ok = ok && !std::ferror(stdout);
  if (std::fclose(stdout) != 0 && ok) ok = false, err = errno;
  if (ok) return rc;
  std::fprintf(stderr, "ilmap: error: writing to standard output failed: %s\n",
               err ? std::strerror(err) : "I/O error");
  return 2;
}

}  // namespace

// Arguments as UTF-8 on every system (on Windows argv is in the ANSI code page: the UTF-16
// command line is read instead), and a console that shows UTF-8 text as such.
int main(int argc, char** argv) {
  std::vector<std::string> utf8 = ilmap::platform::utf8_arguments(argc, argv);
  std::vector<char*> args;
  args.reserve(utf8.size() + 1);
  for (std::string& a : utf8) args.push_back(a.data());
  args.push_back(nullptr);
  ilmap::platform::utf8_console();
  return finish_stdout(run(int(utf8.size()), args.data()));
}
