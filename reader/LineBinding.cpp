// LineBinding.cpp - the debugger rule of SPEC.md 6.2: which methods, and which point of each,
// a `file:line` breakpoint binds, as netcoredbg decides it.
//
// The rule follows netcoredbg's two stages, written anew from their description (SPEC.md 6.2
// cites them): method ranges nested into levels and a walk down the levels for the line
// (ModulesSources::GetMethodTokensByLineNumber, src/metadata/modules_sources.cpp), then per
// chosen method the point that ends first at or after the line, and the choice between an
// enclosing method and a nested one that starts on the line (SymbolReader.ResolveBreakPoints,
// src/managed/SymbolReader.cs).
#include "reader/LineBinding.h"

#include <algorithm>
#include <map>
#include <span>
#include <tuple>
#include <utility>

namespace ilmap::detail {
namespace {

Pos start_of(const BoundPoint& p) { return {p.line, p.column}; }
Pos end_of(const BoundPoint& p) { return {p.end_line, p.end_column}; }

// Strictly inside: starts after and ends before (netcoredbg's method_data_t::NestedInto).
bool nested_into(const Range& a, const Range& b) { return b.start < a.start && a.end < b.end; }

// Step 8: of a row's points that end on or after `line`, the one that ends first (first in IL
// order among equals); `last`: the one that ends last. nullptr when none.
const BoundPoint* point_for_line(std::span<const BoundPoint> row_points, std::uint32_t line, bool last) {
  const BoundPoint* best = nullptr;
  for (const BoundPoint& p : row_points) {
    if (p.end_line < line) continue;
    if (!best || (last ? end_of(*best) < end_of(p) : end_of(p) < end_of(*best))) best = &p;
  }
  return best;
}

// The points of `row` in the model (IL order); empty when the row has none.
std::span<const BoundPoint> points_of(const BindingModel& m, std::uint32_t row) {
  auto it = std::lower_bound(m.rows.begin(), m.rows.end(), row);
  if (it == m.rows.end() || *it != row) return {};
  const std::size_t i = static_cast<std::size_t>(it - m.rows.begin());
  return std::span<const BoundPoint>(m.points).subspan(m.row_begin[i], m.row_begin[i + 1] - m.row_begin[i]);
}

}  // namespace

std::vector<std::uint32_t> rows_sharing_a_span(const std::vector<BoundPoint>& points) {
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> first_row;
  std::vector<std::uint32_t> rows;
  for (const BoundPoint& p : points) {
    auto [it, fresh] = first_row.try_emplace({p.line, p.column, p.end_line, p.end_column}, p.row);
    if (!fresh && it->second != p.row) rows.push_back(it->second), rows.push_back(p.row);
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

BindingModel make_binding_model(std::vector<BoundPoint> points, const std::function<bool(std::uint32_t)>& is_ctor) {
  BindingModel m;
  // Points per row in IL order (the order of their visible records).
  std::sort(points.begin(), points.end(),
            [](const BoundPoint& a, const BoundPoint& b) { return std::tie(a.row, a.ordinal) < std::tie(b.row, b.ordinal); });
  m.points = std::move(points);
  for (std::uint32_t i = 0; i < m.points.size(); ++i) {
    if (m.rows.empty() || m.rows.back() != m.points[i].row) {
      m.rows.push_back(m.points[i].row);
      m.row_begin.push_back(i);
    }
  }
  m.row_begin.push_back(static_cast<std::uint32_t>(m.points.size()));

  // Step 6: ranges, constructors' points first, then one hull per other method, rows ascending.
  // A range that ends where an earlier one ends joins it when their spans are equal (a field
  // initializer in several constructors) and is dropped otherwise, as netcoredbg's ordered set
  // keyed by the end does.
  std::map<Pos, std::size_t> by_end;
  auto add = [&](Pos s, Pos e, std::uint32_t row) {
    auto [it, fresh] = by_end.try_emplace(e, m.ranges.size());
    if (fresh) {
      m.ranges.push_back({s, e, {row}});
      return;
    }
    Range& r = m.ranges[it->second];
    if (r.start == s && std::find(r.rows.begin(), r.rows.end(), row) == r.rows.end()) r.rows.push_back(row);
  };
  std::vector<bool> ctor(m.rows.size());
  for (std::size_t i = 0; i < m.rows.size(); ++i) ctor[i] = is_ctor(m.rows[i]);
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < m.rows.size(); ++i) {
      const std::span<const BoundPoint> pts = points_of(m, m.rows[i]);
      if (pass == 0 && ctor[i]) {
        for (const BoundPoint& p : pts) add(start_of(p), end_of(p), m.rows[i]);
      } else if (pass == 1 && !ctor[i]) {
        Pos s = start_of(pts.front()), e = end_of(pts.front());
        for (const BoundPoint& p : pts) s = std::min(s, start_of(p)), e = std::max(e, end_of(p));
        add(s, e, m.rows[i]);
      }
    }
  }

  // Step 7: nesting levels (depth in the chain of enclosing ranges), each level by end.
  std::vector<std::uint32_t> order(m.ranges.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (!(m.ranges[a].start == m.ranges[b].start)) return m.ranges[a].start < m.ranges[b].start;
    return m.ranges[b].end < m.ranges[a].end;
  });
  std::vector<std::uint32_t> open;
  for (std::uint32_t i : order) {
    while (!open.empty() && !nested_into(m.ranges[i], m.ranges[open.back()])) open.pop_back();
    if (m.levels.size() <= open.size()) m.levels.resize(open.size() + 1);
    m.levels[open.size()].push_back(i);
    open.push_back(i);
  }
  for (auto& l : m.levels)
    std::sort(l.begin(), l.end(), [&](std::uint32_t a, std::uint32_t b) { return m.ranges[a].end < m.ranges[b].end; });
  return m;
}

void bind_like_debugger(const BindingModel& m, std::uint32_t line, std::vector<BoundPoint>& out) {
  out.clear();
  // Step 8: walk down the levels.
  const Range* result = nullptr;
  const Range* nested = nullptr;
  for (std::size_t k = 0; k < m.levels.size(); ++k) {
    auto it = std::lower_bound(m.levels[k].begin(), m.levels[k].end(), line,
                               [&](std::uint32_t r, std::uint32_t l) { return m.ranges[r].end.line < l; });
    if (it == m.levels[k].end()) break;
    const Range* r = &m.ranges[*it];
    if (line == r->start.line) {
      (result ? nested : result) = r;
      break;
    }
    if (line > r->start.line && r->end.line >= line) {
      result = r;
      continue;
    }
    if (k == 0 && line < r->start.line) {
      line = r->start.line;
      result = r;
      break;
    }
    if (result && line <= r->start.line && r->end.line <= result->end.line) nested = r;
    break;
  }
  if (!result) return;

  // The point of each method; a nested method that starts on the line wins when its first point
  // ends before the enclosing method's point, and yields when it lies inside it.
  std::vector<std::uint32_t> rows(result->rows.begin() + 1, result->rows.end());
  rows.push_back(result->rows.front());
  const std::span<const BoundPoint> nested_points = nested ? points_of(m, nested->rows.front()) : std::span<const BoundPoint>();
  bool nested_applies = nested != nullptr;
  for (std::uint32_t row : rows) {
    const BoundPoint* cur = point_for_line(points_of(m, row), line, false);
    if (!cur) continue;
    if (nested_applies) {
      const BoundPoint* first = point_for_line(nested_points, line, false);
      const BoundPoint* last = point_for_line(nested_points, line, true);
      if (first && last) {
        if (start_of(*cur) < start_of(*first) && end_of(*last) < end_of(*cur)) {
          out.push_back(*cur);
          break;
        }
        if (end_of(*first) < end_of(*cur)) {
          out.push_back(*first);
          break;
        }
      }
    }
    nested_applies = false;
    out.push_back(*cur);
  }
  // Step 9.
  std::sort(out.begin(), out.end(), [](const BoundPoint& a, const BoundPoint& b) { return std::tie(a.row, a.il, a.ordinal) < std::tie(b.row, b.il, b.ordinal); });
  out.erase(std::unique(out.begin(), out.end(), [](const BoundPoint& a, const BoundPoint& b) { return a.row == b.row && a.ordinal == b.ordinal; }),
            out.end());
}

}  // namespace ilmap::detail
