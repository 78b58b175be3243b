// LineIndex.cpp - the reader's part of the reverse line index: document matching
// (SPEC.md 6.3), the binding rule of a source line (6.2) and verify step 12.
//
// Points are read through the Impl's method directory and block decoder (reader/CacheImpl.h),
// the index through its layout (format/ilmap_lines_format.h). Every read is bounded: a corrupt
// index that passed open gives fewer or wrong bindings, never a read outside the file.
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reader/CacheImpl.h"
#include "reader/LineBinding.h"

namespace ilmap {
namespace {

namespace d = ilmap::disk;

// The index and the sections it refers to.
struct LinesView {
  const std::uint32_t* doc_blocks = nullptr;
  std::uint32_t doc_blocks_count = 0;
  const fb::LineBlockRef* blocks = nullptr;
  std::uint32_t blocks_count = 0;
  const std::uint8_t* data = nullptr;
  std::size_t data_size = 0;
  std::uint64_t entry_count = 0;
  const CacheInternals::Impl* impl = nullptr;  // the method directory and point blocks

  // Blocks of document `doc`: [b, e); empty when out of range or corrupt.
  void doc_range(std::uint32_t doc, std::uint32_t& b, std::uint32_t& e) const {
    b = e = 0;
    if (std::uint64_t(doc) + 1 >= doc_blocks_count) return;
    std::uint32_t x, y;
    std::memcpy(&x, doc_blocks + doc, 4);
    std::memcpy(&y, doc_blocks + doc + 1, 4);
    if (x <= y && y <= blocks_count) b = x, e = y;
  }

  // Visible record `k` of method row `row` (SPEC.md 5); false when absent or corrupt.
  bool record(std::uint32_t row, std::uint32_t k, d::VisibleRecord& r) const {
    const std::uint8_t* rec;
    const std::uint8_t* end;
    d::BlockHeader h;
    if (!impl->block(row, rec, end, h) || k >= h.visible) return false;
    r = d::get_visible(rec, k, h);
    return true;
  }
};

// The index's three parts, from the plain fields or from `index_zstd` unpacked (SPEC.md
// 3.7, 3.8: doc_blocks, blocks and data back to back); kMalformed (or kTooLarge) when the
// frame does not unpack or its content does not split. Open made sure that one of the two forms
// is there.
Status view_of(const Cache& cache, std::span<const std::uint8_t> packed, LinesView& v) {
  v.impl = &CacheInternals::of(cache);
  const fb::LineIndex* li = v.impl->root->lines();
  if (li->index_zstd()) {
    const std::uint64_t head = (std::uint64_t(cache.document_count()) + 1) * 4;
    std::uint32_t nblocks = 0;
    if (packed.size() >= head) std::memcpy(&nblocks, packed.data() + head - 4, 4);
    if (packed.size() < head || (packed.size() - head) / sizeof(fb::LineBlockRef) < nblocks)
      return {Errc::kMalformed, CacheStructure::kLineIndex, format("line index (lines.index_zstd): %zu unpacked bytes, too few for %u document entries and the blocks they name",
                                       packed.size(), cache.document_count() + 1)};
    v.doc_blocks = reinterpret_cast<const std::uint32_t*>(packed.data());
    v.doc_blocks_count = cache.document_count() + 1;
    v.blocks = reinterpret_cast<const fb::LineBlockRef*>(packed.data() + head);
    v.blocks_count = nblocks;
    v.data = packed.data() + head + std::size_t(nblocks) * sizeof(fb::LineBlockRef);
    v.data_size = packed.size() - head - std::size_t(nblocks) * sizeof(fb::LineBlockRef);
  } else {
    v.doc_blocks = li->doc_blocks()->data();
    v.doc_blocks_count = li->doc_blocks()->size();
    v.blocks = reinterpret_cast<const fb::LineBlockRef*>(li->blocks()->Data());
    v.blocks_count = li->blocks()->size();
    v.data = li->data()->data();
    v.data_size = li->data()->size();
  }
  v.entry_count = li->entry_count();
  return {};
}

bool is_sep(char c) { return c == '/' || c == '\\'; }
bool same_char(char a, char b) { return a == b || (is_sep(a) && is_sep(b)); }
bool same_tail(std::string_view path, std::string_view q) {
  if (q.size() > path.size()) return false;
  const std::size_t off = path.size() - q.size();
  for (std::size_t i = 0; i < q.size(); ++i)
    if (!same_char(path[off + i], q[i])) return false;
  return true;
}

// A candidate binding: a visible point of a matched document on the line searched.
struct Cand {
  std::uint32_t row, il, doc, line, column, end_line, end_column;
  bool starts_before_or_at(std::uint32_t l, std::uint32_t c) const { return line < l || (line == l && column <= c); }
  bool ends_at_or_after(std::uint32_t l, std::uint32_t c) const { return end_line > l || (end_line == l && end_column >= c); }
  // The span of `o` lies inside this one and differs from it.
  bool strictly_contains(const Cand& o) const {
    const bool same = line == o.line && column == o.column && end_line == o.end_line && end_column == o.end_column;
    return !same && starts_before_or_at(o.line, o.column) && ends_at_or_after(o.end_line, o.end_column);
  }
};

// The first line >= `line` that starts a point of document `doc`, and that line's points, in
// index order, appended to `out`. Returns 0 when none.
std::uint32_t next_line_points(const LinesView& v, std::uint32_t doc, std::uint32_t line, std::vector<Cand>& out) {
  std::uint32_t b, e;
  v.doc_range(doc, b, e);
  if (b == e) return 0;
  // First block whose first line is >= line; the line's entries may begin in the one before.
  std::uint32_t lo = b, hi = e;
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (v.blocks[mid].line() < line) lo = mid + 1;
    else hi = mid;
  }
  std::uint32_t found = 0;
  for (std::uint32_t j = lo > b ? lo - 1 : b; j < e; ++j) {
    const fb::LineBlockRef& ref = v.blocks[j];
    if (ref.offset() >= v.data_size) return found;
    if (found && ref.line() > found) break;
    d::LineBlockReader r(v.data + ref.offset(), v.data + v.data_size, ref.line());
    if (!r.start()) return found;
    for (unsigned i = 0; i < r.count(); ++i) {
      d::LineEntry en;
      if (!r.next(en)) return found;
      if (en.line < line) continue;
      if (!found) found = en.line;
      if (en.line != found) return found;
      d::VisibleRecord rec;
      // A corrupt entry (no such record, another document or line) binds nothing.
      if (!v.record(en.row, en.ordinal, rec) || rec.document != doc || rec.line != en.line) continue;
      out.push_back({en.row, rec.il, doc, rec.line, rec.column, rec.end_line, rec.end_column});
    }
  }
  return found;
}

// Every visible point of document `doc` in index order, appended to `out` (the debugger rule
// builds method ranges from them). Stops at a block that does not decode.
void all_points(const LinesView& v, std::uint32_t doc, std::vector<detail::BoundPoint>& out) {
  std::uint32_t b, e;
  v.doc_range(doc, b, e);
  for (std::uint32_t j = b; j < e; ++j) {
    const fb::LineBlockRef& ref = v.blocks[j];
    if (ref.offset() >= v.data_size) return;
    d::LineBlockReader r(v.data + ref.offset(), v.data + v.data_size, ref.line());
    if (!r.start()) return;
    for (unsigned i = 0; i < r.count(); ++i) {
      d::LineEntry en;
      if (!r.next(en)) return;
      d::VisibleRecord rec;
      if (!v.record(en.row, en.ordinal, rec) || rec.document != doc || rec.line != en.line) continue;
      out.push_back({en.row, en.ordinal, rec.il, doc, rec.line, rec.column, rec.end_line, rec.end_column});
    }
  }
}

// A constructor's name as CoreCLR prints it: "NS.C..ctor(...)" or "NS.C..cctor(...)".
bool is_constructor_name(std::string_view coreclr) {
  const std::size_t paren = coreclr.find('(');
  const std::string_view head = coreclr.substr(0, paren);
  return head.ends_with("..ctor") || head.ends_with("..cctor");
}

// netcoredbg's normalisation of a relative path (ResolveRelativeSourceFileName): split at either
// separator, drop "." components, let ".." remove the component before it (or nothing), join with
// '/'. The file name (after the last separator) is kept as it is.
std::string normalise_relative(std::string_view q) {
  std::vector<std::string_view> dirs;
  std::size_t i;
  while ((i = q.find_first_of("/\\")) != std::string_view::npos) {
    const std::string_view part = q.substr(0, i);
    if (part == "..") {
      if (!dirs.empty()) dirs.pop_back();
    } else if (part != ".") {
      dirs.push_back(part);
    }
    q.remove_prefix(i + 1);
  }
  std::string out;
  for (std::string_view d : dirs) out.append(d).push_back('/');
  out.append(q);
  return out;
}

// An absolute path: starts with a separator, or with a drive letter and a separator.
bool is_absolute(std::string_view q) {
  return is_sep(q.front()) || (q.size() > 2 && q[1] == ':' && is_sep(q[2]));
}

// The debugger rule's model of `documents` (SPEC.md 6.2 steps 6 and 7): built from every visible
// point of the documents on the first query of the set, then kept (Impl::binding_models).
std::shared_ptr<const detail::BindingModel> binding_model(const Cache& cache, const LinesView& v,
                                                           std::span<const std::uint32_t> documents) {
  const auto& impl = *v.impl;
  std::vector<std::uint32_t> key(documents.begin(), documents.end());
  {
    std::lock_guard<std::mutex> lock(impl.binding_mutex);
    auto it = impl.binding_models.find(key);
    if (it != impl.binding_models.end()) return it->second;
  }
  std::vector<detail::BoundPoint> all;
  for (std::uint32_t doc : documents) all_points(v, doc, all);
  std::vector<std::uint32_t> shared;
  if (!cache.has_method_names()) shared = detail::rows_sharing_a_span(all);
  auto is_ctor = [&](std::uint32_t row) {
    if (!cache.has_method_names()) return std::binary_search(shared.begin(), shared.end(), row);
    const auto name = cache.method_name(0x06000000u | row);
    return name && is_constructor_name(name->coreclr);
  };
  auto model = std::make_shared<const detail::BindingModel>(detail::make_binding_model(std::move(all), is_ctor));
  std::lock_guard<std::mutex> lock(impl.binding_mutex);
  return impl.binding_models.try_emplace(std::move(key), std::move(model)).first->second;
}

}  // namespace

// The public calls check changed() after their reads (include/ilmap/cache.h): a result read
// while a writer changed the file is never returned as a success.
Status Cache::match_documents(std::string_view q, std::vector<std::uint32_t>& documents) const {
  Status s = match_documents_unchecked(q, documents);
  if (changed()) {
    documents.clear();
    return changed_status();
  }
  return s;
}

Status Cache::lines_in(std::span<const std::uint32_t> documents, std::uint32_t line, std::uint32_t column,
                       std::vector<LineMatch>& out, LineRule rule) const {
  Status s = lines_in_unchecked(documents, line, column, out, rule);
  if (changed()) {
    out.clear();
    return changed_status();
  }
  return s;
}

Status Cache::match_documents_unchecked(std::string_view q, std::vector<std::uint32_t>& documents) const {
  documents.clear();
  if (q.empty()) return {Errc::kUsage, "empty document path"};
  const std::uint32_t n = document_count();
  // 1. The exact path.
  for (std::uint32_t i = 0; i < n; ++i)
    if (document_path(i) == q) documents.push_back(i);
  if (!documents.empty()) return {};
  // 2. The same path with either separator.
  std::vector<std::string_view> paths;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::string_view p = document_path(i);
    if (p.size() == q.size() && same_tail(p, q)) paths.push_back(p);
  }
  // 3. A relative path, "./" and "../" resolved: the shortest document path that ends with it
  // on a component boundary (the first such document on a tie). An absolute path matches only
  // in steps 1 and 2.
  if (paths.empty() && !is_absolute(q)) {
    const std::string r = normalise_relative(q);
    const std::size_t name = r.find_last_of("/\\");
    if (name == std::string::npos ? !r.empty() : name + 1 < r.size()) {
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::string_view p = document_path(i);
        if (same_tail(p, r) && (p.size() == r.size() || is_sep(p[p.size() - r.size() - 1])) &&
            (paths.empty() || p.size() < paths.front().size()))
          paths.assign(1, p);
      }
    }
  }
  if (paths.empty())
    return {Errc::kNotFound, format("no document of the cache matches '%.*s' (exact path, either separator, or a path suffix)",
                                    static_cast<int>(q.size()), q.data())};
  // Every document with the path matched (steps 1 and 2 may match several spellings: the first).
  const std::string_view chosen = paths.front();
  for (std::uint32_t i = 0; i < n; ++i)
    if (document_path(i) == chosen) documents.push_back(i);
  return {};
}

Status Cache::lines(std::string_view path, std::uint32_t line, std::uint32_t column, std::vector<LineMatch>& out,
                    LineRule rule) const {
  out.clear();
  std::vector<std::uint32_t> docs;
  if (Status s = match_documents_unchecked(path, docs); !s) return changed() ? changed_status() : s;
  return lines_in(docs, line, column, out, rule);
}

Status Cache::lines_in_unchecked(std::span<const std::uint32_t> documents, std::uint32_t line, std::uint32_t column,
                                 std::vector<LineMatch>& out, LineRule rule) const {
  out.clear();
  std::span<const std::uint8_t> packed;
  if (Status s = packed_line_index(packed); !s) return s;
  LinesView v;
  if (Status s = view_of(*this, packed, v); !s) return s;
  // Step 3: the first line at or after `line` with code, over the matched documents. The
  // debugger rule needs it only for a column (step 4).
  std::vector<Cand> cands, c;
  std::uint32_t target = 0;
  const bool need_line = column || rule == LineRule::kAllMethods;
  for (std::uint32_t doc : need_line ? documents : std::span<const std::uint32_t>()) {
    c.clear();
    const std::uint32_t l = next_line_points(v, doc, line, c);
    if (!l || (target && l > target)) continue;
    if (l < target || !target) cands.clear();
    target = l;
    cands.insert(cands.end(), c.begin(), c.end());
  }
  std::vector<Cand> chosen;
  // Step 4: a column on the requested line selects the innermost points containing it.
  if (column && target == line) {
    std::vector<Cand> inside;
    for (const Cand& x : cands)
      if (x.starts_before_or_at(line, column) && x.ends_at_or_after(line, column)) inside.push_back(x);
    // Per method, among its points that contain no other of its containing points, the first
    // in IL order; then no result that contains another method's result.
    for (const Cand& x : inside) {
      if (std::any_of(inside.begin(), inside.end(), [&](const Cand& y) { return y.row == x.row && x.strictly_contains(y); }))
        continue;
      auto it = std::find_if(chosen.begin(), chosen.end(), [&](const Cand& y) { return y.row == x.row; });
      if (it == chosen.end()) chosen.push_back(x);
      else if (x.il < it->il) *it = x;
    }
    std::vector<Cand> keep;
    for (const Cand& x : chosen)
      if (std::none_of(chosen.begin(), chosen.end(), [&](const Cand& y) { return x.strictly_contains(y); })) keep.push_back(x);
    chosen.swap(keep);
  }
  // The debugger rule (6.2 steps 6-9): method ranges over every point of the documents.
  if (chosen.empty() && rule == LineRule::kDebugger) {
    std::shared_ptr<const detail::BindingModel> model = binding_model(*this, v, documents);
    std::vector<detail::BoundPoint> bound;
    detail::bind_like_debugger(*model, line, bound);
    out.reserve(bound.size());
    for (const detail::BoundPoint& x : bound)
      out.push_back({0x06000000u | x.row, x.il, x.doc, x.line, x.column, x.end_line, x.end_column});
    return {};
  }
  if (cands.empty()) return {};
  // Rule "all methods", step 5: per method its first point of the line (column, then IL
  // offset), and no point nested in another method's point.
  if (chosen.empty()) {
    for (const Cand& x : cands) {
      auto it = std::find_if(chosen.begin(), chosen.end(), [&](const Cand& y) { return y.row == x.row; });
      if (it == chosen.end()) chosen.push_back(x);
      else if (x.column < it->column || (x.column == it->column && x.il < it->il)) *it = x;
    }
    std::vector<Cand> keep;
    for (const Cand& x : chosen)
      if (std::none_of(chosen.begin(), chosen.end(), [&](const Cand& y) { return y.strictly_contains(x); })) keep.push_back(x);
    chosen.swap(keep);
  }
  std::sort(chosen.begin(), chosen.end(), [](const Cand& a, const Cand& b) { return a.row != b.row ? a.row < b.row : a.il < b.il; });
  out.reserve(chosen.size());
  for (const Cand& x : chosen)
    out.push_back({0x06000000u | x.row, x.il, x.doc, x.line, x.column, x.end_line, x.end_column});
  return {};
}

// SPEC.md section 7, verify step 12.
Status Cache::verify_line_index() const {
  std::span<const std::uint8_t> packed;
  if (Status s = packed_line_index(packed); !s) return s;
  LinesView v;
  if (Status s = view_of(*this, packed, v); !s) return s;
  if (std::uint64_t(v.doc_blocks_count) != std::uint64_t(document_count()) + 1)
    return {Errc::kMalformed, CacheStructure::kLineIndex, format("line index: %u document entries, expected %u", v.doc_blocks_count, document_count() + 1)};
  std::uint64_t entries = 0;
  std::size_t pos = 0;
  for (std::uint32_t doc = 0; doc < document_count(); ++doc) {
    std::uint32_t x, y;
    std::memcpy(&x, v.doc_blocks + doc, 4);
    std::memcpy(&y, v.doc_blocks + doc + 1, 4);
    if ((doc == 0 && x != 0) || x > y || y > v.blocks_count)
      return {Errc::kMalformed, CacheStructure::kLineIndex, format("line index: block range of document %u is out of order", doc)};
    bool have_prev = false;
    std::uint32_t pl = 0, pc = 0, pr = 0, pk = 0;
    for (std::uint32_t j = x; j < y; ++j) {
      const fb::LineBlockRef& ref = v.blocks[j];
      if (ref.offset() != pos) return {Errc::kMalformed, CacheStructure::kLineIndex, format("line index: block %u does not start where the one before ends", j)};
      d::LineBlockReader r(v.data + pos, v.data + v.data_size, ref.line());
      if (!r.start()) return {Errc::kMalformed, CacheStructure::kLineIndex, format("line index: block %u has a bad entry count", j)};
      for (unsigned i = 0; i < r.count(); ++i) {
        d::LineEntry en;
        if (!r.next(en)) return {Errc::kMalformed, CacheStructure::kLineIndex, format("line index: block %u: entry %u does not decode", j, i)};
        d::VisibleRecord rec;
        if (!v.record(en.row, en.ordinal, rec) || rec.document != doc || rec.line != en.line)
          return {Errc::kMalformed, CacheStructure::kLineIndex, format("line index: block %u: entry %u (method row %u, point %u) is not a visible point of document %u at line %u",
                                           j, i, en.row, en.ordinal, doc, en.line)};
        const bool ordered = !have_prev || pl < en.line ||
                             (pl == en.line && (pc < rec.column || (pc == rec.column && (pr < en.row || (pr == en.row && pk < en.ordinal)))));
        if (!ordered) return {Errc::kMalformed, CacheStructure::kLineIndex, format("line index: block %u: entry %u is out of order", j, i)};
        have_prev = true;
        pl = en.line, pc = rec.column, pr = en.row, pk = en.ordinal;
        ++entries;
      }
      pos = static_cast<std::size_t>(r.position() - v.data);
    }
  }
  if (v.doc_blocks_count && v.blocks_count) {
    std::uint32_t last;
    std::memcpy(&last, v.doc_blocks + v.doc_blocks_count - 1, 4);
    if (last != v.blocks_count) return {Errc::kMalformed, CacheStructure::kLineIndex, "line index: blocks after the last document's"};
  }
  if (pos != v.data_size) return {Errc::kMalformed, CacheStructure::kLineIndex, "line index: bytes after the last block"};
  if (entries != v.entry_count || entries != point_count() - hidden_count())
    return {Errc::kMalformed, CacheStructure::kLineIndex, format("line index: %llu entries, the cache has %llu visible points", static_cast<unsigned long long>(entries),
                                     static_cast<unsigned long long>(point_count() - hidden_count()))};
  return {};
}

}  // namespace ilmap
