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
#include <tuple>
#include <utility>

namespace ilmap::detail {
namespace {

struct Pos {
  std::uint32_t line, column;
  friend bool operator<(Pos a, Pos b) { return std::tie(a.line, a.column) < std::tie(b.line, b.column); }
  friend bool operator==(Pos a, Pos b) { return a.line == b.line && a.column == b.column; }
};

Pos start_of(const BoundPoint& p) { return {p.line, p.column}; }
Pos end_of(const BoundPoint& p) { return {p.end_line, p.end_column}; }

// A method range (step 2): a row's points hull, or one point of a constructor. `rows` are the
// methods that bind together: the first the range's own, the others constructors whose point
// has the same span (netcoredbg's "multiMethodsData").
struct Range {
  Pos start, end;
  std::vector<std::uint32_t> rows;
  unsigned level = 0;
};

// Strictly inside: starts after and ends before (netcoredbg's method_data_t::NestedInto).
bool nested_into(const Range& a, const Range& b) { return b.start < a.start && a.end < b.end; }

// Step 5: of a row's points that end on or after `line`, the one that ends first (first in IL
// order among equals); `last`: the one that ends last. nullptr when none.
const BoundPoint* point_for_line(const std::vector<const BoundPoint*>& row_points, std::uint32_t line, bool last) {
  const BoundPoint* best = nullptr;
  for (const BoundPoint* p : row_points) {
    if (p->end_line < line) continue;
    if (!best || (last ? end_of(*best) < end_of(*p) : end_of(*p) < end_of(*best))) best = p;
  }
  return best;
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

void bind_like_debugger(std::vector<BoundPoint> points, std::uint32_t line, const std::function<bool(std::uint32_t)>& is_ctor,
                        std::vector<BoundPoint>& out) {
  out.clear();
  // Points per row in IL order (the order of their visible records).
  std::sort(points.begin(), points.end(),
            [](const BoundPoint& a, const BoundPoint& b) { return std::tie(a.row, a.ordinal) < std::tie(b.row, b.ordinal); });
  std::map<std::uint32_t, std::vector<const BoundPoint*>> by_row;
  for (const BoundPoint& p : points) by_row[p.row].push_back(&p);

  // Step 2: ranges, constructors' points first, then one hull per other method, rows ascending.
  // A range that ends where an earlier one ends joins it when their spans are equal (a field
  // initializer in several constructors) and is dropped otherwise, as netcoredbg's ordered set
  // keyed by the end does.
  std::vector<Range> ranges;
  std::map<Pos, std::size_t> by_end;
  auto add = [&](Pos s, Pos e, std::uint32_t row) {
    auto [it, fresh] = by_end.try_emplace(e, ranges.size());
    if (fresh) {
      ranges.push_back({s, e, {row}});
      return;
    }
    Range& r = ranges[it->second];
    if (r.start == s && std::find(r.rows.begin(), r.rows.end(), row) == r.rows.end()) r.rows.push_back(row);
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& [row, pts] : by_row) {
      const bool ctor = is_ctor(row);
      if (pass == 0 && ctor) {
        for (const BoundPoint* p : pts) add(start_of(*p), end_of(*p), row);
      } else if (pass == 1 && !ctor) {
        Pos s = start_of(*pts.front()), e = end_of(*pts.front());
        for (const BoundPoint* p : pts) s = std::min(s, start_of(*p)), e = std::max(e, end_of(*p));
        add(s, e, row);
      }
    }
  }
  if (ranges.empty()) return;

  // Step 3: nesting levels (depth in the chain of enclosing ranges), each level by end.
  std::vector<std::size_t> order(ranges.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (!(ranges[a].start == ranges[b].start)) return ranges[a].start < ranges[b].start;
    return ranges[b].end < ranges[a].end;
  });
  std::vector<std::size_t> open;
  unsigned depth = 0;
  for (std::size_t i : order) {
    while (!open.empty() && !nested_into(ranges[i], ranges[open.back()])) open.pop_back();
    ranges[i].level = static_cast<unsigned>(open.size());
    depth = std::max(depth, ranges[i].level + 1);
    open.push_back(i);
  }
  std::vector<std::vector<const Range*>> levels(depth);
  for (const Range& r : ranges) levels[r.level].push_back(&r);
  for (auto& l : levels) std::sort(l.begin(), l.end(), [](const Range* a, const Range* b) { return a->end < b->end; });

  // Step 4: walk down the levels.
  const Range* result = nullptr;
  const Range* nested = nullptr;
  for (std::size_t k = 0; k < levels.size(); ++k) {
    auto it = std::lower_bound(levels[k].begin(), levels[k].end(), line,
                               [](const Range* r, std::uint32_t l) { return r->end.line < l; });
    if (it == levels[k].end()) break;
    const Range* r = *it;
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

  // Step 5: the point of each method; a nested method that starts on the line wins when its
  // first point ends before the enclosing method's point, and yields when it lies inside it.
  std::vector<std::uint32_t> rows(result->rows.begin() + 1, result->rows.end());
  rows.push_back(result->rows.front());
  std::uint32_t nested_row = nested ? nested->rows.front() : 0;
  for (std::uint32_t row : rows) {
    const BoundPoint* cur = point_for_line(by_row[row], line, false);
    if (!cur) continue;
    if (nested_row) {
      const BoundPoint* first = point_for_line(by_row[nested_row], line, false);
      const BoundPoint* last = point_for_line(by_row[nested_row], line, true);
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
    nested_row = 0;
    out.push_back(*cur);
  }
  std::sort(out.begin(), out.end(), [](const BoundPoint& a, const BoundPoint& b) { return std::tie(a.row, a.il, a.ordinal) < std::tie(b.row, b.il, b.ordinal); });
  out.erase(std::unique(out.begin(), out.end(), [](const BoundPoint& a, const BoundPoint& b) { return a.row == b.row && a.ordinal == b.ordinal; }),
            out.end());
}

}  // namespace ilmap::detail
