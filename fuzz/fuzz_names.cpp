// fuzz_names.cpp - libFuzzer target: a PE's method names (decode/names): PeFile::parse, then
// ModuleNames::build under a 16 MiB text budget, every method's CoreCLR and Mono frame text, and
// the name index; then the method keys of symbolicate's call targets (decode/names/MethodKeys)
// for every MethodDef, MemberRef and MethodSpec. Properties: no crash, no sanitizer report,
// errors carry a code and a message, a method with a bad signature has an error, every method is
// found under its own index key, and every key names the method it was made from.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "FuzzCommon.h"
#include "decode/PeFile.h"
#include "decode/MetadataSchema.h"
#include "decode/names/MethodKeys.h"
#include "decode/names/MethodNames.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ilmap;
  PeOptions opt;
  opt.max_embedded_pdb = static_cast<std::uint32_t>(fuzz::kFuzzInflateCap);
  auto pe = PeFile::parse({data, size}, opt);
  if (!pe) {
    fuzz::check_error(pe.error());
    return 0;
  }
  if (!pe->metadata()) return 0;
  auto names = names::ModuleNames::build(*pe->metadata(), 16u << 20);
  if (!names) {
    fuzz::check_error(names.error());
    return 0;
  }
  for (const names::MethodName& m : names->methods()) {
    ILMAP_FUZZ_CHECK(!m.bad_signature || !m.error.empty(), "bad signature without an error");
    ILMAP_FUZZ_CHECK(names->method(m.token) == &m, "method(token) is not the method");
    (void)names->coreclr_frame(m.token);
    (void)names->mono_frame(m.token);
    std::string key = names->coreclr_type(m.type_rid);
    if (!key.empty()) key += '.';
    key += m.name;
    const std::vector<std::uint32_t> found = names->find(key);
    ILMAP_FUZZ_CHECK(std::find(found.begin(), found.end(), m.token) != found.end(), key);
  }
  auto keys = names::MethodKeys::build(*pe->metadata());
  if (!keys) {
    fuzz::check_error(keys.error());
    return 0;
  }
  const Metadata& md = *pe->metadata();
  for (const unsigned table : {unsigned(kMethodDef), unsigned(kMemberRef), unsigned(kMethodSpec)})
    for (std::uint32_t rid = 0; rid <= md.rows(table) + 1; ++rid) {  // rows 0 and rows + 1: out of range
      const auto k = keys->key(table << 24 | rid);
      ILMAP_FUZZ_CHECK(!k || names::same_method(*k, *k), "a method key does not name its own method");
      ILMAP_FUZZ_CHECK(!k || (rid >= 1 && rid <= md.rows(table)), "a key for a row out of range");
    }
  return 0;
}
