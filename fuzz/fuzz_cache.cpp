// fuzz_cache.cpp - libFuzzer target: Cache::from_bytes, then lookups for many (method, offset)
// pairs, points() of every method, document accessors, verify(), and the C API on the same
// bytes. Properties: no crash, no out-of-bounds read (ASan), open and the C API agree, every
// answer names an existing document, and a cache that verifies answers lookups consistently
// with points(). Method names (format 1.1): method_name and find_methods on any token and on
// names taken from the cache itself (the CoreCLR text before its '(' or '['); on a verified
// cache every token find_methods answers has a name. Source lines (format 1.2): lines_in on
// each method's first visible point's line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "FuzzCommon.h"
#include "ilmap/cache.h"
#include "ilmap/ilmap.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ilmap;
  auto cache = Cache::from_bytes({data, size});
  int err = 0;
  char msg[128];
  ilmap_cache* c = ilmap_open_bytes(data, size, &err, msg, sizeof msg);
  ILMAP_FUZZ_CHECK((c != nullptr) == cache.ok(), "C API and C++ API disagree on open");
  if (c) {
    ilmap_location loc;
    (void)ilmap_lookup(c, 0x06000001, 0, &loc);
    (void)ilmap_lookup_row(c, 1, 0xFFFFFFFF, &loc);
    std::uint32_t machine = 0;
    (void)ilmap_locate_frame(c, 0x06000001, 0, reinterpret_cast<const char*>(data), size < 32 ? size : 32, &loc, &machine);
    (void)ilmap_verify(c, msg, sizeof msg);
    const char* text = nullptr;
    std::size_t len = 0;
    std::uint32_t tokens[4];
    if (ilmap_method_name(c, 0x06000001, ILMAP_NAME_MONO, &text, &len))
      (void)ilmap_find_method(c, text, len, tokens, 4);
    (void)ilmap_assembly_name(c, &len);
    ilmap_close(c);
  }
  if (!cache) {
    fuzz::check_error(cache.error());
    return 0;
  }
  const std::uint32_t methods = cache->method_count();
  const std::uint32_t docs = cache->document_count();
  for (std::uint32_t i = 0; i <= docs && i < 4096; ++i) {
    (void)cache->document_path(i);
    (void)cache->document_source_url(i);
    (void)language_label(cache->document_language(i));
  }
  (void)cache->header();
  (void)cache->point_count();
  (void)cache->point_section_bytes();
  const Status verified = cache->verify();
  if (!verified) fuzz::check_error(verified.error());
  (void)cache->mvid();
  (void)cache->assembly_name();
  (void)cache->module_name();
  std::vector<std::uint32_t> found;
  const std::uint32_t named = cache->method_name_count() < 2048 ? cache->method_name_count() + 1 : 2048;
  for (std::uint32_t row = 0; row <= named; ++row) {
    auto n = cache->method_name(0x06000000u | row);
    (void)cache->method_name(0x02000000u | row);
    if (!n) continue;
    const std::string_view key = n->coreclr.substr(0, n->coreclr.find_first_of("(["));
    cache->find_methods(key, found);
    for (std::uint32_t t : found)
      ILMAP_FUZZ_CHECK(cache->method_name(t) || !verified.ok(), "find_methods answered a token without a name");
  }
  std::vector<CachePoint> pts;
  std::vector<std::uint32_t> scratch;
  // A frame's printed text: the cache's own first CoreCLR name when it has one (so the state
  // machine filter meets a real name), else bytes of the input.
  std::string frame_text(reinterpret_cast<const char*>(data), size < 64 ? size : 64);
  if (auto n = cache->method_name(0x06000001u)) frame_text = std::string(n->coreclr) + "+MoveNext()";
  const std::uint32_t limit = methods < 2048 ? methods + 1 : 2048;
  for (std::uint32_t rid = 0; rid <= limit; ++rid) {
    for (std::uint32_t il : {0u, 1u, 7u, 0x100u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
      auto r = cache->lookup_row(rid, il);
      if (r) {
        ILMAP_FUZZ_CHECK(r->document < docs, "lookup answered with a document beyond the table");
        ILMAP_FUZZ_CHECK(r->il_offset <= il, "lookup answered with a point after the offset");
      }
      (void)cache->lookup(0x06000000u | rid, il);
      (void)cache->lookup(0x02000000u | rid, il);
      // The frame rule (SPEC.md 6.4) answers what the lookup answers when it answers, whatever
      // text the frame printed; only where it finds nothing may a state machine's method answer.
      const auto plain = cache->lookup(0x06000000u | rid, il);
      for (std::string_view printed : {std::string_view{}, std::string_view(frame_text)}) {
        const FrameAnswer a = cache->lookup_frame(0x06000000u | rid, il, printed, scratch);
        if (plain) {
          ILMAP_FUZZ_CHECK(a.result && a.state_machine_method == 0 && a.result->il_offset == plain->il_offset &&
                               a.result->document == plain->document && a.result->line == plain->line,
                           "lookup_frame differs from the lookup that answered");
        } else if (a.result) {
          ILMAP_FUZZ_CHECK(a.state_machine_method != 0 && a.result->document < docs,
                           "lookup_frame answered without a state machine where the lookup did not");
        }
      }
    }
    pts.clear();
    Status s = cache->points(rid, pts);
    if (!s) {
      fuzz::check_error(s.error());
      ILMAP_FUZZ_CHECK(!verified.ok() || rid == 0 || rid > methods, "verify() passed but points() failed");
      continue;
    }
    // Source lines (format 1.2): any document and line stays in bounds; on a verified cache a
    // point's own line binds a point on that line, of its document.
    std::vector<LineMatch> bound;
    for (const CachePoint& p : pts) {
      if (p.hidden || p.document >= docs) continue;
      const std::uint32_t doc = p.document;
      Status ls = cache->lines_in(std::span<const std::uint32_t>(&doc, 1), p.start_line, p.start_column + 1, bound);
      if (!ls) {
        fuzz::check_error(ls.error());
        continue;
      }
      for (const LineMatch& m : bound)
        ILMAP_FUZZ_CHECK(!verified.ok() || (m.document == doc && m.line == p.start_line),
                         "lines bound a point of another document or line");
      ILMAP_FUZZ_CHECK(!verified.ok() || !bound.empty(), "lines found nothing on a line with a point");
      // Without a column, both rules (SPEC.md 6.2): on a verified cache each binds a point of the
      // document; "all methods" one on that line.
      for (const LineRule rule : {LineRule::kDebugger, LineRule::kAllMethods}) {
        ls = cache->lines_in(std::span<const std::uint32_t>(&doc, 1), p.start_line, 0, bound, rule);
        if (!ls) {
          fuzz::check_error(ls.error());
          continue;
        }
        for (const LineMatch& m : bound)
          ILMAP_FUZZ_CHECK(!verified.ok() || (m.document == doc && (rule == LineRule::kDebugger || m.line == p.start_line)),
                           "lines (no column) bound a point of another document or line");
        ILMAP_FUZZ_CHECK(!verified.ok() || !bound.empty(), "lines (no column) found nothing on a line with a point");
      }
      break;
    }
    if (!verified.ok()) continue;
    // A verified cache: each visible point answers a lookup at its own offset.
    for (const CachePoint& p : pts) {
      if (p.hidden) continue;
      auto r = cache->lookup_row(rid, p.il_offset);
      ILMAP_FUZZ_CHECK(r && r->il_offset == p.il_offset && r->line == p.start_line &&
                           r->column == p.start_column && r->document == p.document,
                       "lookup at a point's own offset does not return that point");
    }
  }
  return 0;
}
