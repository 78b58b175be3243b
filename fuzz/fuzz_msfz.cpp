// fuzz_msfz.cpp - libFuzzer target: the MSFZ container (a .pdz, decode/msf/MsfzFile.h) and the
// Windows PDB read through it. Properties: no crash, no sanitizer report, no allocation beyond
// the limits (chunks are checked against the file and MsfzFile::max_unpacked before anything is
// unpacked); every error has a code and a message; on success every stream reads back at its
// directory size or fails with a code, a second read gives the same bytes without unpacking a
// chunk again, and MsfPdb::parse of the same bytes either fails with a code or lists its points.
#include <cstddef>
#include <cstdint>

#include "FuzzCommon.h"
#include "decode/msf/MsfPdb.h"
#include "decode/msf/MsfzFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ilmap;
  auto z = msf::MsfzFile::parse({data, size});
  if (!z) {
    fuzz::check_error(z.error());
    return 0;
  }
  const msf::MsfzFile& f = **z;
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < f.stream_count() && i < 256; ++i) {
    auto s = f.read_stream(i);
    if (!s) {
      fuzz::check_error(s.error());
      continue;
    }
    ILMAP_FUZZ_CHECK(s->size() == f.stream_size(i), "stream size differs from the directory");
    total += s->size();
    const std::uint32_t unpacked = f.chunks_unpacked();
    auto again = f.read_stream(i);
    ILMAP_FUZZ_CHECK(again.ok() && *again == *s, "a second read differs");
    ILMAP_FUZZ_CHECK(f.chunks_unpacked() == unpacked, "a chunk was unpacked twice");
  }
  ILMAP_FUZZ_CHECK(total <= msf::MsfzFile::max_unpacked(size) + size, "streams beyond the unpack limit");
  auto pdb = msf::MsfPdb::parse({data, size});
  if (!pdb) {
    fuzz::check_error(pdb.error());
    return 0;
  }
  ILMAP_FUZZ_CHECK(pdb->msf().is_msfz(), "an MSFZ file parsed as another container");
  (void)msf::msf_listing(*pdb);
  return 0;
}
