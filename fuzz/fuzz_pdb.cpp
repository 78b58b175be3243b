// fuzz_pdb.cpp - libFuzzer target: PortablePdb::parse and every decoder on its result
// (documents, each method's sequence points, CDI rows, state machines, SourceLink, embedded
// sources with a 1 MiB cap). Property: no crash, no sanitizer report, every error has a code
// and a message.
#include <cstddef>
#include <cstdint>

#include "FuzzCommon.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto pdb = ilmap::PortablePdb::parse({data, size});
  if (!pdb) {
    ilmap::fuzz::check_error(pdb.error());
    return 0;
  }
  (void)ilmap::fuzz::decode_all(*pdb);
  return 0;
}
