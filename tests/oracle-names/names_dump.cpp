// names_dump.cpp - test helper (not a tool): prints ilmap's method names of a PE in the
// NamesOracle `methods` format, so check-names.sh can diff the two.
//   names_dump DLL   ->  0x06000001 TAB <CoreCLR frame> TAB <Mono frame>, one line per MethodDef
// Exit: 0 ok, 1 usage, 2 bad input (message on stderr).
#include <cstdio>
#include <string>

#include "support/FileBytes.h"
#include "decode/PeFile.h"
#include "decode/names/MethodNames.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: names_dump DLL\n");
    return 1;
  }
  auto file = ilmap::FileBytes::open(argv[1]);
  if (!file) {
    std::fprintf(stderr, "names_dump: error: %s\n", file.error().message.c_str());
    return 2;
  }
  auto pe = ilmap::PeFile::parse(file->bytes());
  if (!pe || !pe->metadata()) {
    std::fprintf(stderr, "names_dump: error: %s: %s\n", argv[1],
                 pe ? "no CLI metadata" : pe.error().message.c_str());
    return 2;
  }
  auto names = ilmap::names::ModuleNames::build(*pe->metadata());
  if (!names) {
    std::fprintf(stderr, "names_dump: error: %s: %s\n", argv[1], names.error().message.c_str());
    return 2;
  }
  std::string out;
  for (const auto& m : names->methods()) {
    char token[16];
    std::snprintf(token, sizeof token, "0x%08x", m.token);
    out += token;
    out += '\t' + names->coreclr_frame(m.token) + '\t' + names->mono_frame(m.token) + '\n';
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
