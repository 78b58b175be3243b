// GoldenFiles.h - the golden bad files of tests/hostile/golden/ (in the manner of zstd's
// tests/golden-decompression-errors): each is a minimal input with one defect, the ilmap
// command to run on it, the exit code and a fragment of the message. Generated from code so each
// defect is explicit; make_golden writes them, Golden.CommittedFilesMatchGenerator keeps the
// committed copies in step, golden-cli.sh runs the CLI on them. make_golden also writes
// structures.tsv (bad cache, CacheStructure number), which the .NET tests read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::hostile {

struct GoldenFile {
  std::string name;      // file name under golden/
  std::string command;   // ilmap subcommand (dump, info or verify) and options, space-separated
  int exit_code;
  std::string fragment;  // must appear in stderr
  std::vector<std::uint8_t> bytes;
  // A bad cache: the structure its first failure (open, then verify) names (SPEC.md section 7);
  // kNone for every other file.
  CacheStructure structure = CacheStructure::kNone;
};

std::vector<GoldenFile> golden_files();

// A Portable PDB with `documents` documents whose EmbeddedSource CDIs use `distinct` blobs in
// turn (document d: blob d % distinct), each deflating to `source_size` bytes of text.
std::vector<std::uint8_t> embedded_sources_pdb(unsigned documents, unsigned distinct,
                                               std::size_t source_size);

}  // namespace ilmap::hostile
