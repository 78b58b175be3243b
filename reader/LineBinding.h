// LineBinding.h - the debugger's choice of methods for a source line (SPEC.md 6.2, rule
// "debugger"): method ranges, their nesting, and the point each chosen method binds, over the
// visible points of one document set. Pure: the caller reads the points (reader/LineIndex.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace ilmap::detail {

// A visible point of a matched document: method row, visible ordinal (IL order within the row),
// IL offset, document index and span.
struct BoundPoint {
  std::uint32_t row = 0, ordinal = 0, il = 0, doc = 0, line = 0, column = 0, end_line = 0, end_column = 0;
};

// The rows (ascending, distinct) that have a point whose span equals a point of another row: a
// field initializer compiled into several constructors. Stands in for "is a constructor" when
// the cache has no method names (SPEC.md 6.2 step 2).
std::vector<std::uint32_t> rows_sharing_a_span(const std::vector<BoundPoint>& points);

// A position (line, column), ordered lexicographically.
struct Pos {
  std::uint32_t line = 0, column = 0;
  friend bool operator<(Pos a, Pos b) { return a.line != b.line ? a.line < b.line : a.column < b.column; }
  friend bool operator==(Pos a, Pos b) { return a.line == b.line && a.column == b.column; }
};

// A method range (SPEC.md 6.2 step 6): a row's points hull, or one point of a constructor.
// `rows`: the methods that bind together, the first the range's own, the others constructors
// whose point has the same span (netcoredbg's "multiMethodsData").
struct Range {
  Pos start, end;
  std::vector<std::uint32_t> rows;
};

// What the debugger rule needs of a document set, independent of the line asked (steps 6 and 7):
// built once per document set and kept by the cache (reader/LineIndex.cpp).
struct BindingModel {
  std::vector<BoundPoint> points;  // by (row, ordinal): each row's points in IL order
  std::vector<std::uint32_t> rows, row_begin;  // rows ascending; row i's points [row_begin[i], row_begin[i + 1])
  std::vector<Range> ranges;
  std::vector<std::vector<std::uint32_t>> levels;  // per nesting level, indexes into ranges by end
};

// SPEC.md 6.2 steps 6 and 7 over `points` (every visible point of the matched documents, any
// order). `is_ctor(row)`: the row's points are ranges of their own (constructors).
BindingModel make_binding_model(std::vector<BoundPoint> points, const std::function<bool(std::uint32_t)>& is_ctor);

// SPEC.md 6.2 steps 8 and 9 (rule "debugger") for `line`. Replaces `out` with the bindings,
// ordered by row then IL offset, distinct. O(levels · log ranges + the points of the rows bound).
void bind_like_debugger(const BindingModel& model, std::uint32_t line, std::vector<BoundPoint>& out);

}  // namespace ilmap::detail
