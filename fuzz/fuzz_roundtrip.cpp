// fuzz_roundtrip.cpp - libFuzzer target asserting the compile invariant (the symbolic-ppdb
// habit: parse -> convert -> serialize -> re-parse). For PDB bytes that decode completely
// (documents, every method's sequence points, CDI, SourceLink), build_cache must succeed,
// Cache::from_bytes must open the result, verify() must pass, and the canonical listing read
// back from the cache must equal the decoder's listing byte for byte. Any violation aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compiler/CacheBuilder.h"
#include "FuzzCommon.h"
#include "ilmap/cache.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ilmap;
  auto pdb = PortablePdb::parse({data, size});
  if (!pdb) return 0;
  const fuzz::Decoded d = fuzz::decode_all(*pdb);
  if (!d.ok) return 0;

  CacheSource src;
  src.pdb = &*pdb;
  src.source_name = "fuzz.pdb";
  src.source_size = size;
  src.pdb_key = "fuzz.pdb/key";
  src.debug_id = "id";
  CacheBuildOptions opt;
  opt.zstd_level = 1;
  opt.max_embedded_source = fuzz::kFuzzInflateCap;
  CacheStats stats;
  auto bytes = build_cache(src, opt, &stats);
  ILMAP_FUZZ_CHECK(bytes.ok(), "build_cache failed on a PDB that decodes: " + bytes.error().message);
  // ILMAP_FUZZ_DUMP=path writes the built cache there (to replay a failure with the CLI).
  if (const char* dump = std::getenv("ILMAP_FUZZ_DUMP")) {
    if (std::FILE* f = std::fopen(dump, "wb")) {
      std::fwrite(bytes->data(), 1, bytes->size(), f);
      std::fclose(f);
    }
  }
  auto cache = Cache::from_bytes(*bytes);
  ILMAP_FUZZ_CHECK(cache.ok(), "a freshly built cache does not open: " + cache.error().message);
  const Status v = cache->verify();
  ILMAP_FUZZ_CHECK(v.ok(), "a freshly built cache fails verify(): " + v.message());
  ILMAP_FUZZ_CHECK(cache->method_count() == pdb->method_count(), "method count differs");
  ILMAP_FUZZ_CHECK(cache->document_count() == d.docs.size(), "document count differs");
  ILMAP_FUZZ_CHECK(cache->point_count() == stats.points, "point count differs");

  std::string listing;
  std::vector<CachePoint> pts;
  for (std::uint32_t rid = 1; rid <= cache->method_count(); ++rid) {
    pts.clear();
    const Status s = cache->points(rid, pts);
    ILMAP_FUZZ_CHECK(s.ok(), "points() failed on a fresh cache: " + s.message());
    for (const CachePoint& p : pts)
      append_listing_line(listing, 0x06000000u | rid, p.il_offset, p.start_line, p.start_column,
                          p.end_line, p.end_column, p.hidden, cache->document_path(p.document));
  }
  if (listing != d.listing) {
    std::size_t i = 0;
    while (i < listing.size() && i < d.listing.size() && listing[i] == d.listing[i]) ++i;
    const std::size_t from = i > 80 ? i - 80 : 0;
    fuzz::invariant_failed("cache listing == decoder listing",
                     "first difference at byte " + std::to_string(i) + "\ncache:   " +
                         listing.substr(from, 200) + "\ndecoder: " + d.listing.substr(from, 200));
  }
  return 0;
}
