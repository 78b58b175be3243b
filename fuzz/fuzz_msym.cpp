// fuzz_msym.cpp - libFuzzer target: Mono's AOT sequence-point file (`.msym`, decode/MsymFile.h,
// docs/msym.md). Properties: no crash, no sanitizer report; every error has a code and a message;
// on success the decoded form stays within the file's bounds (an entry per 4 bytes, a point per 2
// at most), and the lookup (binary search + walk) answers as a slow reference does: the first
// entry of the token (or of the token and index) in file order, the last point at or before the
// offset in file order up to the first point past it, no answer for a negative IL offset.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "FuzzCommon.h"
#include "decode/MsymFile.h"

namespace {

std::optional<std::uint32_t> reference(const ilmap::MsymFile& f, std::uint32_t token, std::uint32_t index,
                                       std::uint32_t native) {
  for (const auto& e : f.entries()) {
    if (e.token != token || (index != ilmap::MsymFile::kAnyIndex && e.method_index != index)) continue;
    std::optional<std::int32_t> il;
    for (const auto& p : f.points(e)) {
      if (std::int64_t(p.native_offset) > std::int64_t(native)) break;
      il = p.il_offset;
    }
    if (!il || *il < 0) return std::nullopt;
    return static_cast<std::uint32_t>(*il);
  }
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ilmap;
  auto r = MsymFile::parse({data, size});
  if (!r) {
    fuzz::check_error(r.error());
    return 0;
  }
  const MsymFile& f = *r;
  ILMAP_FUZZ_CHECK(f.entries().size() <= size / 4 + 1, "more entries than the file can hold");
  std::size_t points = 0;
  for (const auto& e : f.entries()) points += e.count;
  ILMAP_FUZZ_CHECK(points <= size / 2, "more points than the file can hold");
  // A bounded number of entries, each at its points' offsets and around them.
  std::size_t n = 0;
  for (const auto& e : f.entries()) {
    if (++n > 64) break;
    std::uint32_t probes[8] = {0, 1, 0x7fffffffu, 0xffffffffu};
    std::size_t k = 4;
    for (const auto& p : f.points(e)) {
      if (k + 2 > std::size(probes)) break;
      probes[k++] = static_cast<std::uint32_t>(p.native_offset);
      probes[k++] = static_cast<std::uint32_t>(p.native_offset) + 1;
    }
    for (std::size_t i = 0; i < k; ++i)
      for (std::uint32_t index : {MsymFile::kAnyIndex, e.method_index, e.method_index + 1}) {
        const auto fast = f.il_offset(e.token, index, probes[i]);
        const auto slow = reference(f, e.token, index, probes[i]);
        ILMAP_FUZZ_CHECK(fast == slow, "lookup differs from the reference for token " + std::to_string(e.token));
      }
  }
  return 0;
}
