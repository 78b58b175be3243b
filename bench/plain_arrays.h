// plain_arrays.h - the plain-array lookup baseline of the lookup benchmark (issue 23): every
// method's visible points as a sorted array of uncompressed structs, searched by binary search,
// as a System.Reflection.Metadata user would hold them once decoded. Built from a cache's own
// points, so both answer the same queries from the same points.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ilmap/cache.h"

namespace ilmap::bench {

class PlainArrays {
 public:
  explicit PlainArrays(const Cache& c) {
    docs_.reserve(c.document_count());
    for (std::uint32_t d = 0; d < c.document_count(); ++d)
      docs_.push_back({std::string(c.document_path(d)), std::string(c.document_source_url(d)), c.document_language(d)});
    start_.push_back(0);
    std::vector<CachePoint> pts;
    for (std::uint32_t rid = 1; rid <= c.method_count(); ++rid) {
      pts.clear();
      (void)c.points(rid, pts);
      // Hidden points never answer and never stop the runtime's walk (SPEC.md 6): the answer is
      // the last visible point whose IL offset is <= x, so the visible points alone suffice.
      for (const CachePoint& p : pts)
        if (!p.hidden) points_.push_back({p.il_offset, p.start_line, p.start_column, p.end_line, p.end_column, p.document});
      start_.push_back(static_cast<std::uint32_t>(points_.size()));
    }
  }

  std::optional<LookupResult> lookup(std::uint32_t token, std::uint32_t il) const noexcept {
    const std::uint32_t rid = token & 0xFFFFFF;
    if ((token >> 24) != 0x06 || il >= 0x80000000u || rid == 0 || rid >= start_.size()) return std::nullopt;
    const Point* b = points_.data() + start_[rid - 1];
    const Point* e = points_.data() + start_[rid];
    const Point* p = std::upper_bound(b, e, il, [](std::uint32_t x, const Point& q) { return x < q.il; });
    if (p == b) return std::nullopt;
    --p;
    const Doc& d = docs_[p->document];
    LookupResult r;
    r.file = d.path;
    r.source_url = d.url;
    r.language = d.language;
    r.document = p->document;
    r.il_offset = p->il;
    r.line = p->line;
    r.column = p->column;
    r.end_line = p->end_line;
    r.end_column = p->end_column;
    return r;
  }

 private:
  struct Point {
    std::uint32_t il, line, column, end_line, end_column, document;
  };
  struct Doc {
    std::string path, url;
    Language language;
  };
  std::vector<Doc> docs_;
  std::vector<std::uint32_t> start_;  // method row r's points: [start_[r - 1], start_[r])
  std::vector<Point> points_;
};

// Same answer, field by field (views compared by their bytes).
inline bool same_answer(const std::optional<LookupResult>& a, const std::optional<LookupResult>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->file == b->file && a->source_url == b->source_url && a->language == b->language &&
         a->document == b->document && a->il_offset == b->il_offset && a->line == b->line &&
         a->column == b->column && a->end_line == b->end_line && a->end_column == b->end_column;
}

}  // namespace ilmap::bench
