// msf_listing.cpp - test helper: prints the canonical listing (docs/text-output.md) of a
// Windows (MSF) PDB as decode/msf decodes it, for comparison with the Mono.Cecil oracle
// (tests/oracle-cecil), with no CLI or cache builder in between.
//   ilmap_msf_listing PDB      exit 0 ok, 1 usage, 2 unreadable or bad PDB
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "decode/msf/MsfPdb.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ilmap_msf_listing PDB\n");
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "ilmap_msf_listing: error: cannot open %s\n", argv[1]);
    return 2;
  }
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
  auto pdb = ilmap::msf::MsfPdb::parse(bytes);
  if (!pdb) {
    std::fprintf(stderr, "ilmap_msf_listing: error: %s: %s\n", argv[1], pdb.error().message.c_str());
    return ilmap::exit_code_for(pdb.error().code);
  }
  const std::string listing = ilmap::msf::msf_listing(*pdb);
  std::fwrite(listing.data(), 1, listing.size(), stdout);
  return 0;
}
