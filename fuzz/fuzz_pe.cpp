// fuzz_pe.cpp - libFuzzer target: PeFile::parse (headers, sections, debug directory, CLI
// metadata), RVA mapping, the embedded Portable PDB inflated under a 1 MiB cap and decoded like
// fuzz_pdb, PdbChecksum verification against it; the IL of the first 1,024 method bodies
// (decode/MethodBody) and the names of the methods they call. Property: no crash, no sanitizer
// report, a declared size over the cap is kTooLarge before any allocation, decoded instructions
// tile their code exactly.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "FuzzCommon.h"
#include "decode/SymstoreKeys.h"
#include "decode/PdbChecksum.h"
#include "decode/MethodBody.h"
#include "decode/PeFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ilmap;
  PeOptions opt;
  opt.max_embedded_pdb = static_cast<std::uint32_t>(fuzz::kFuzzInflateCap);
  auto pe = PeFile::parse({data, size}, opt);
  if (!pe) {
    fuzz::check_error(pe.error());
    return 0;
  }
  const PeInfo& info = pe->info();
  for (unsigned i = 0; i < 16; ++i) {
    if (auto d = pe->directory(i)) (void)pe->rva_to_offset(d->rva, d->size);
  }
  (void)pe_code_id(info.timestamp, info.size_of_image);
  for (const CodeViewEntry& cv : info.codeview) {
    (void)portable_debug_id(cv.guid, cv.stamp);
    (void)ssqp_portable_pdb_key(cv.path, cv.guid);
  }
  (void)symbol_checksum_header(info.checksums);
  if (pe->metadata()) {
    std::vector<Instruction> code;
    const std::uint32_t rows = std::min<std::uint32_t>(pe->metadata()->rows(kMethodDef), 1024);
    for (std::uint32_t rid = 1; rid <= rows; ++rid) {
      auto body = method_body_of(*pe, 0x06000000u | rid);
      if (!body) {
        fuzz::check_error(body.error());
        continue;
      }
      if (Status s = decode_instructions(body->code, code); !s) {
        fuzz::check_error(s.error());
        continue;
      }
      std::size_t at = 0;
      for (const Instruction& i : code) {
        ILMAP_FUZZ_CHECK(i.offset == at && i.size > 0, "instructions do not tile the code");
        at += i.size;
        if (i.is_call()) (void)called_method_name(*pe, i.token);
      }
      ILMAP_FUZZ_CHECK(at == body->code.size(), "instructions do not cover the code");
    }
  }
  if (info.embedded_pdb) {
    ILMAP_FUZZ_CHECK(info.embedded_pdb->uncompressed_size <= opt.max_embedded_pdb,
                     "embedded PDB over the cap was accepted");
    auto bytes = pe->inflate_embedded_pdb();
    if (!bytes) {
      fuzz::check_error(bytes.error());
      return 0;
    }
    ILMAP_FUZZ_CHECK(bytes->size() == info.embedded_pdb->uncompressed_size,
                     "inflated size differs from the declared size");
    auto pdb = PortablePdb::parse(*bytes);
    if (!pdb) {
      fuzz::check_error(pdb.error());
      return 0;
    }
    (void)fuzz::decode_all(*pdb);
    if (pdb->has_pdb_stream()) {
      std::vector<ChecksumVerdict> each;
      (void)verify_pdb_checksums(info.checksums, pdb->bytes(), pdb->metadata().pdb_stream_offset(), &each);
    }
  }
  return 0;
}
