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

// SPEC.md 6.2 steps 2-6 (rule "debugger") for `line` over `points` (every visible point of the
// matched documents, any order). `is_ctor(row)`: the row's points are ranges of their own
// (constructors). Replaces `out` with the bindings, ordered by row then IL offset, distinct.
void bind_like_debugger(std::vector<BoundPoint> points, std::uint32_t line, const std::function<bool(std::uint32_t)>& is_ctor,
                        std::vector<BoundPoint>& out);

}  // namespace ilmap::detail
