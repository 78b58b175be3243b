// FuzzCommon.h - shared helpers of the libFuzzer targets: exercise every decoder entry point of
// a parsed Portable PDB, and an invariant check that aborts (so libFuzzer records a crash) when
// a property that must hold for every input does not.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "decode/Listing.h"
#include "decode/PortablePdb.h"
#include "decode/SourceLink.h"

namespace ilmap::fuzz {

// Embedded sources and embedded PDBs are inflated with a small cap so the fuzzer does not
// spend its time (or its RSS limit) on multi-megabyte outputs declared by four bytes.
inline constexpr std::size_t kFuzzInflateCap = 1u << 20;

[[noreturn]] inline void invariant_failed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "INVARIANT VIOLATED: %s\n%s\n", what, detail.c_str());
  std::abort();
}
#define ILMAP_FUZZ_CHECK(cond, detail) \
  do {                                 \
    if (!(cond)) ::ilmap::fuzz::invariant_failed(#cond, (detail)); \
  } while (0)

// An Error must carry a real code and a message (a crash-free but empty error is a bug too).
inline void check_error(const Error& e) {
  ILMAP_FUZZ_CHECK(e.code != Errc::kOk && !e.message.empty(), e.message);
}

// The decoder's view of a PDB: documents, the canonical listing, SourceLink. `ok` is false when
// any part failed (the first error is kept).
struct Decoded {
  bool ok = true;
  Error error;
  std::vector<Document> docs;
  std::string listing;
};

inline Decoded decode_all(const PortablePdb& pdb) {
  Decoded d;
  auto fail = [&](const Error& e) {
    check_error(e);
    if (d.ok) d.error = e;
    d.ok = false;
  };
  (void)pdb.id();
  (void)pdb.entry_point();
  auto docs = pdb.documents();
  if (!docs) {
    fail(docs.error());
    // Still decode every method: the sequence-point decoder must be robust on its own.
    std::vector<SequencePoint> pts;
    for (std::uint32_t rid = 1; rid <= pdb.method_count(); ++rid) {
      pts.clear();
      if (Status s = pdb.sequence_points(rid, pts); !s) check_error(s.error());
    }
  } else {
    d.docs = std::move(*docs);
    std::vector<std::string> names;
    names.reserve(d.docs.size());
    for (const Document& doc : d.docs) names.push_back(doc.name);
    const bool ok = write_listing(
        pdb, names, [&](std::string_view chunk) { d.listing.append(chunk); },
        [&](const Error& e) { fail(e); });
    ILMAP_FUZZ_CHECK(ok == d.ok, "write_listing's result disagrees with its error callback");
  }
  auto cdi = pdb.custom_debug_information();
  if (!cdi) fail(cdi.error());
  auto sm = pdb.state_machine_methods();
  if (!sm) fail(sm.error());
  auto sl = pdb.source_link();
  if (!sl) {
    fail(sl.error());
  } else if (*sl) {
    auto map = SourceLinkMap::parse(**sl);
    if (!map) {
      fail(map.error());
    } else {
      for (const Document& doc : d.docs) (void)map->map(doc.name);
    }
  }
  // Embedded sources: errors here are not decode failures of the listing (compile only reads
  // them with --embed-sources), so they do not clear `ok`.
  for (std::uint32_t rid = 1; rid <= pdb.document_count() && rid <= 64; ++rid) {
    auto src = pdb.embedded_source(rid, kFuzzInflateCap);
    if (!src) check_error(src.error());
  }
  return d;
}

}  // namespace ilmap::fuzz
