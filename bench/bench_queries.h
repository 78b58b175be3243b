// bench_queries.h - query sets for lookup benchmarks, drawn from a cache (deterministic per seed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ilmap/cache.h"
#include "splitmix.h"

namespace ilmap::bench {

struct Query {
  std::uint32_t row, il;
};

// Per-method facts used to draw queries.
struct MethodSpan {
  std::uint32_t row = 0;
  std::uint32_t first_visible_il = 0, last_il = 0;
  bool has_visible = false;
};

inline std::vector<MethodSpan> method_spans(const Cache& c) {
  std::vector<MethodSpan> v;
  std::vector<CachePoint> pts;
  for (std::uint32_t rid = 1; rid <= c.method_count(); ++rid) {
    pts.clear();
    if (!c.points(rid, pts) || pts.empty()) continue;
    MethodSpan m;
    m.row = rid;
    std::uint32_t first = 0xFFFFFFFF, last = 0;
    for (const CachePoint& p : pts) {
      last = std::max(last, p.il_offset);
      if (!p.hidden) first = std::min(first, p.il_offset);
    }
    m.has_visible = first != 0xFFFFFFFF;
    m.first_visible_il = m.has_visible ? first : 0;
    m.last_il = last;
    v.push_back(m);
  }
  return v;
}

// Random hits: a random method with visible points, a random offset in [first visible, last + 16].
// Only queries that do answer are kept.
inline std::vector<Query> random_hits(const Cache& c, const std::vector<MethodSpan>& ms, std::size_t n, std::uint64_t seed) {
  std::vector<const MethodSpan*> vis;
  for (const MethodSpan& m : ms)
    if (m.has_visible) vis.push_back(&m);
  std::vector<Query> q;
  if (vis.empty()) return q;
  Splitmix r{seed};
  while (q.size() < n) {
    const MethodSpan& m = *vis[r.below(static_cast<std::uint32_t>(vis.size()))];
    const std::uint32_t il = m.first_visible_il + r.below(m.last_il - m.first_visible_il + 17);
    if (c.lookup_row(m.row, il)) q.push_back({m.row, il});
  }
  return q;
}

// Misses of unknown rows: rows past the table (up to 0xFFFFFF) and rows without points. Row 0 is
// left out: `ilmap lookup` rejects it as a usage error.
inline std::vector<Query> random_unknown_rows(const Cache& c, const std::vector<MethodSpan>& ms, std::size_t n,
                                              std::uint64_t seed) {
  std::vector<std::uint32_t> empty_rows;
  std::size_t k = 0;
  for (std::uint32_t rid = 1; rid <= c.method_count(); ++rid) {
    if (k < ms.size() && ms[k].row == rid) { ++k; continue; }
    empty_rows.push_back(rid);
  }
  Splitmix r{seed};
  std::vector<Query> q;
  while (q.size() < n) {
    std::uint32_t row;
    if (r.below(3) == 0 && !empty_rows.empty()) row = empty_rows[r.below(static_cast<std::uint32_t>(empty_rows.size()))];
    else row = c.method_count() + 1 + r.below(0xFFFFFF - c.method_count());
    q.push_back({row, r.below(200)});
  }
  return q;
}

// Misses before the first visible point of a method (methods whose first visible IL offset > 0).
inline std::vector<Query> random_before_first(const Cache& c, const std::vector<MethodSpan>& ms, std::size_t n,
                                              std::uint64_t seed) {
  std::vector<const MethodSpan*> cand;
  for (const MethodSpan& m : ms)
    if (m.has_visible && m.first_visible_il > 0) cand.push_back(&m);
  std::vector<Query> q;
  if (cand.empty()) return q;
  Splitmix r{seed};
  while (q.size() < n) {
    const MethodSpan& m = *cand[r.below(static_cast<std::uint32_t>(cand.size()))];
    const std::uint32_t il = r.below(m.first_visible_il);
    if (!c.lookup_row(m.row, il)) q.push_back({m.row, il});
  }
  return q;
}

// Sequential: every point's own IL offset, methods in row order, capped at n queries.
inline std::vector<Query> sequential(const Cache& c, std::size_t n) {
  std::vector<Query> q;
  std::vector<CachePoint> pts;
  for (std::uint32_t rid = 1; rid <= c.method_count() && q.size() < n; ++rid) {
    pts.clear();
    if (!c.points(rid, pts)) continue;
    for (const CachePoint& p : pts) {
      if (q.size() >= n) break;
      q.push_back({rid, p.il_offset});
    }
  }
  return q;
}

}  // namespace ilmap::bench
