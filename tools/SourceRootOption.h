// SourceRootOption.h - the `--source-root PREFIX=DIR` option that symbolicate and serve share:
// one help text and one check (parse_source_root: a usage error, exit 1, naming what is wrong).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "symbolicate/SourceProvider.h"

namespace ilmap::cli {

// Adds `--source-root PREFIX=DIR` (repeatable) to `cmd`; `use` completes "for ..." (what the
// command shows the source in).
inline CLI::Option* add_source_root_option(CLI::App* cmd, std::vector<std::string>& specs, const std::string& use) {
  return cmd
      ->add_option("--source-root", specs,
                   "PREFIX=DIR: a document path starting with PREFIX (e.g. /_/) is read from DIR plus the rest of "
                   "the path, for " + use + "; used only when the file's SHA-1/SHA-256 equals the checksum the "
                   "PDB records, and never outside DIR (repeatable)")
      ->check(CLI::Validator(
          [](std::string& spec) {
            auto r = parse_source_root(spec);
            return r ? std::string() : r.error().message;
          },
          "PREFIX=DIR"))
      ->allow_extra_args(false);
}

}  // namespace ilmap::cli
