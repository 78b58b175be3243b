// fuzz_msf.cpp - libFuzzer target: MsfPdb::parse (MSF container, PDB info stream, /names, DBI,
// module streams, line matching) and the canonical listing of what it decoded. Properties: no
// crash, no sanitizer report, every error has a code and a message; on success every stream
// reads back at its directory size, every point names an existing document, the listing has one
// line per point, and a second parse gives the same listing. Then, as `compile` does: the srcsrv
// stream's URL of every document (bounded), and the cache of what was decoded, which either
// fails with a code or verifies and holds every point.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "compiler/CacheBuilder.h"
#include "FuzzCommon.h"
#include "ilmap/cache.h"
#include "decode/msf/MsfPdb.h"
#include "decode/msf/SrcSrv.h"

// The highest method row whose cache the target builds (see below).
constexpr std::uint32_t kMaxBuiltRow = 1u << 20;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ilmap;
  auto pdb = msf::MsfPdb::parse({data, size});
  if (!pdb) {
    fuzz::check_error(pdb.error());
    return 0;
  }
  const msf::MsfFile& f = pdb->msf();
  for (std::uint32_t i = 0; i < f.stream_count() && i < 256; ++i) {
    auto s = f.read_stream(i);
    if (!s) {
      ILMAP_FUZZ_CHECK(!f.has_stream(i), "an existing stream failed to read");
      continue;
    }
    ILMAP_FUZZ_CHECK(s->size() == f.stream_size(i), "stream size differs from the directory");
    // A byte of an MSFZ compressed chunk has no file offset: file_offset() gives the file size.
    if (!s->empty()) {
      const std::size_t off = f.file_offset(i, s->size() - 1);
      ILMAP_FUZZ_CHECK(off < size || (f.is_msfz() && off == size), "file offset past the file");
    }
  }
  std::size_t points = 0;
  for (const msf::MsfMethod& m : pdb->methods()) {
    for (const SequencePoint& p : m.points)
      ILMAP_FUZZ_CHECK(p.document >= 1 && p.document <= pdb->documents().size(),
                       "a point names a document that does not exist");
    points += m.points.size();
  }
  ILMAP_FUZZ_CHECK(points == pdb->point_count(), "point_count() disagrees with the methods");
  for (std::size_t i = 1; i < pdb->methods().size(); ++i)
    ILMAP_FUZZ_CHECK(pdb->methods()[i - 1].token < pdb->methods()[i].token,
                     "methods are not in strictly increasing token order");
  const std::string listing = msf::msf_listing(*pdb);
  ILMAP_FUZZ_CHECK(static_cast<std::size_t>(std::count(listing.begin(), listing.end(), '\n')) >= points,
                   "the listing has fewer lines than points");
  auto again = msf::MsfPdb::parse({data, size});
  ILMAP_FUZZ_CHECK(again.ok() && msf::msf_listing(*again) == listing, "a second parse differs");
  if (const auto& ss = pdb->source_server()) {
    if (auto srv = msf::SrcSrv::parse(*ss)) {
      for (const msf::MsfDocument& d : pdb->documents())
        if (auto u = srv->url(d.name)) ILMAP_FUZZ_CHECK(u->size() <= 2 * 65536, "a srcsrv URL past its bound");
    } else {
      fuzz::check_error(srv.error());
    }
  }
  // build_cache's work grows with the highest method row, not with the input: the method
  // directory is dense, up to 2^24 rows (66 MiB, docs/limits.md), so a 28 KB PDB that names row
  // 0xEFFFFF makes a 49 MB cache and takes 14 s here under the sanitizers (a slow unit, not a
  // fault). Such inputs are decoded and checked above; the builder is fuzzed on the others.
  if (!pdb->methods().empty() && (pdb->methods().back().token & 0xFFFFFFu) > kMaxBuiltRow) return 0;
  CacheSource src;
  src.msf = &*pdb;
  src.source_name = "fuzz.pdb";
  src.source_size = size;
  auto bytes = build_cache(src, CacheBuildOptions{});
  if (!bytes) {
    fuzz::check_error(bytes.error());
    return 0;
  }
  auto cache = Cache::from_bytes(bytes->span());
  ILMAP_FUZZ_CHECK(cache.ok() && cache->verify().ok(), "the cache of a decoded Windows PDB does not verify");
  ILMAP_FUZZ_CHECK(cache->point_count() == points, "the cache holds another number of points");
  return 0;
}
