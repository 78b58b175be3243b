// HostileSupport.h - the end-to-end path every hostile input goes through in-process, and the
// check that its outcome is acceptable: success, or an Error with a documented Errc (1..11) and
// a message. Used by the truncate/flip sweeps and the regression replay.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiler/CacheBuilder.h"
#include "decode/DebugInput.h"
#include "decode/Listing.h"
#include "decode/MethodBody.h"
#include "decode/PeFile.h"
#include "decode/PortablePdb.h"
#include "decode/SourceLink.h"
#include "ilmap/cache.h"

namespace ilmap::hostile {

using Bytes = std::vector<std::uint8_t>;

inline Bytes read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Small caps so corrupted size fields cannot make the sweep slow; the code paths are the same.
inline constexpr std::size_t kSweepInflateCap = 4u << 20;

// Records a failure when `e` is not a clean, documented error.
inline void expect_clean(const Error& e, const std::string& where) {
  const int c = static_cast<int>(e.code);
  EXPECT_TRUE(c >= 1 && c <= 11) << where << ": undocumented error code " << c << ": " << e.message;
  EXPECT_FALSE(e.message.empty()) << where << ": error " << errc_name(e.code) << " without a message";
}

// Cache bytes: open, accessors, lookups over every method at a few offsets, points, verify.
// Returns true when the cache opened and verified.
inline bool exercise_cache(std::span<const std::uint8_t> bytes, const std::string& where) {
  auto cache = Cache::from_bytes(bytes);
  if (!cache) {
    expect_clean(cache.error(), where + " (open)");
    return false;
  }
  const std::uint32_t methods = cache->method_count();
  for (std::uint32_t i = 0; i < cache->document_count() && i < 1024; ++i) {
    (void)cache->document_path(i);
    (void)cache->document_source_url(i);
  }
  std::vector<CachePoint> pts;
  for (std::uint32_t rid = 1; rid <= methods && rid <= 4096; ++rid) {
    for (std::uint32_t il : {0u, 3u, 0x40u, 0xFFFFFFFFu}) {
      if (auto r = cache->lookup(0x06000000u | rid, il)) {
        EXPECT_LT(r->document, cache->document_count()) << where;
      }
    }
    pts.clear();
    if (Status s = cache->points(rid, pts); !s) expect_clean(s.error(), where + " (points)");
  }
  (void)cache->lookup(0x06000000u | (methods + 1), 0);
  // Source lines and method names (format 2.0: packed, unpacked and rebuilt on first use; the
  // checksum is not checked before them, so a flipped frame reaches the rebuild).
  std::vector<LineMatch> lines;
  for (std::uint32_t doc = 0; doc < cache->document_count() && doc < 16; ++doc) {
    for (std::uint32_t line : {1u, 10u, 100u}) {
      if (Status s = cache->lines_in(std::span<const std::uint32_t>(&doc, 1), line, 0, lines); !s)
        expect_clean(s.error(), where + " (lines)");
      for (const LineMatch& m : lines) EXPECT_LT(m.document, cache->document_count()) << where;
    }
  }
  std::vector<std::uint32_t> found;
  for (std::uint32_t t = 1; t <= cache->method_name_count() && t <= 256; ++t) {
    if (auto n = cache->method_name(0x06000000u | t)) {
      const std::string_view c = n->coreclr;
      (void)cache->find_methods(c.substr(0, c.find('(')), found);
    }
  }
  const Status v = cache->verify();
  if (!v) expect_clean(v.error(), where + " (verify)");
  return v.ok();
}

// Decodes everything (documents, every method, CDI, SourceLink, embedded sources) and, when
// that succeeds, compiles in memory and checks the cache opens and verifies (the round-trip
// invariant: a PDB that decodes must compile). Returns true when it compiled.
inline bool exercise_pdb(const PortablePdb& pdb, const std::string& where) {
  bool ok = true;
  auto docs = pdb.documents();
  if (!docs) {
    expect_clean(docs.error(), where + " (documents)");
    ok = false;
  }
  std::vector<SequencePoint> pts;
  for (std::uint32_t rid = 1; rid <= pdb.method_count(); ++rid) {
    pts.clear();
    if (Status s = pdb.sequence_points(rid, pts); !s) {
      expect_clean(s.error(), where + " (sequence points)");
      ok = false;
    }
  }
  if (auto cdi = pdb.custom_debug_information(); !cdi) expect_clean(cdi.error(), where + " (cdi)");
  auto sl = pdb.source_link();
  if (!sl) {
    expect_clean(sl.error(), where + " (sourcelink)");
    ok = false;
  } else if (*sl) {
    auto m = SourceLinkMap::parse(**sl);
    if (!m) {
      expect_clean(m.error(), where + " (sourcelink json)");
      ok = false;
    }
  }
  bool sources_ok = true;
  for (std::uint32_t rid = 1; rid <= pdb.document_count() && rid <= 256; ++rid) {
    auto src = pdb.embedded_source(rid, kSweepInflateCap);
    if (!src) {
      expect_clean(src.error(), where + " (embedded source)");
      sources_ok = false;
    }
  }
  if (!ok) return false;
  CacheSource cs;
  cs.pdb = &pdb;
  cs.source_name = "hostile.pdb";
  CacheBuildOptions opt;
  opt.embed_sources = sources_ok;
  opt.zstd_level = 1;
  opt.max_embedded_source = kSweepInflateCap;
  auto bytes = build_cache(cs, opt);
  EXPECT_TRUE(bytes.ok()) << where << ": decodes but does not compile: "
                          << (bytes.ok() ? "" : bytes.error().message);
  if (!bytes) return false;
  auto cache = Cache::from_bytes(*bytes);
  EXPECT_TRUE(cache.ok()) << where << ": compiled cache does not open";
  if (!cache) return false;
  const Status v = cache->verify();
  EXPECT_TRUE(v.ok()) << where << ": compiled cache does not verify: " << v.message();
  return v.ok();
}

inline bool exercise_pdb_bytes(std::span<const std::uint8_t> bytes, const std::string& where) {
  auto pdb = PortablePdb::parse(bytes);
  if (!pdb) {
    expect_clean(pdb.error(), where + " (parse)");
    return false;
  }
  return exercise_pdb(*pdb, where);
}

// A PE: parse, then the PDB the CLI would use: `sibling` when its id matches a Portable
// CodeView entry, else the embedded PDB (inflated under the cap).
// Every method body of a PE's metadata (decode/MethodBody): a clean error, or instructions that
// tile the code exactly; the names of the methods called resolved or empty.
inline void exercise_method_bodies(const PeFile& pe, const std::string& where) {
  if (!pe.metadata()) return;
  std::vector<Instruction> code;
  for (std::uint32_t rid = 1; rid <= pe.metadata()->rows(kMethodDef); ++rid) {
    auto body = method_body_of(pe, 0x06000000u | rid);
    if (!body) {
      expect_clean(body.error(), where + " (method body)");
      continue;
    }
    if (Status s = decode_instructions(body->code, code); !s) {
      expect_clean(s.error(), where + " (IL)");
      continue;
    }
    std::size_t at = 0;
    for (const Instruction& i : code) {
      if (i.offset != at || i.size == 0) ADD_FAILURE() << where << ": instructions do not tile the code";
      at += i.size;
      if (i.is_call()) (void)called_method_name(pe, i.token);
    }
    if (at != body->code.size()) ADD_FAILURE() << where << ": instructions do not cover the code";
  }
}

inline bool exercise_pe_bytes(std::span<const std::uint8_t> bytes, const Bytes* sibling,
                              const std::string& where) {
  PeOptions po;
  po.max_embedded_pdb = kSweepInflateCap;
  auto pe = PeFile::parse(bytes, po);
  if (!pe) {
    expect_clean(pe.error(), where + " (pe)");
    return false;
  }
  exercise_method_bodies(*pe, where);
  if (sibling) {
    auto pdb = PortablePdb::parse(*sibling);
    if (pdb && pdb->has_pdb_stream()) {
      for (const CodeViewEntry& cv : pe->info().codeview) {
        if (cv.portable() && cv.guid == pdb->id().guid() && cv.stamp == pdb->id().stamp())
          return exercise_pdb(*pdb, where + " (sibling)");
      }
    }
  }
  if (!pe->info().embedded_pdb) return false;
  auto inflated = pe->inflate_embedded_pdb();
  if (!inflated) {
    expect_clean(inflated.error(), where + " (inflate)");
    return false;
  }
  return exercise_pdb_bytes(*inflated, where + " (embedded)");
}

// Positions to mutate: every position when the file is small, else every position of the first
// `head` bytes (headers live there) and an even spread of the rest, `budget` in all.
inline std::vector<std::size_t> sweep_positions(std::size_t size, std::size_t budget,
                                                std::size_t head = 1024) {
  std::vector<std::size_t> out;
  if (size <= budget) {
    for (std::size_t i = 0; i < size; ++i) out.push_back(i);
    return out;
  }
  head = std::min(head, budget / 2);
  for (std::size_t i = 0; i < head; ++i) out.push_back(i);
  const std::size_t rest = budget - head;
  for (std::size_t k = 0; k < rest; ++k) out.push_back(head + (size - head) * k / rest);
  return out;
}

}  // namespace ilmap::hostile
