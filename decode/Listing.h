// Listing.h - the canonical sequence-point listing (docs/text-output.md, "Canonical listing").
//
// One line per point, sorted by (token, IL offset), equal keys in PDB order:
//   0x06000002 8 C:\src\Program.cs 22:13-22:20
//   0x06000002 6 C:\src\Program.cs 16707566:0-16707566:0 hidden
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decode/PortablePdb.h"
#include "decode/SequencePoints.h"
#include "support/TextEscape.h"

namespace ilmap {

// Appends one listing line (with '\n'). The path is escaped with escape_text (TextEscape.h):
// ordinary paths, backslashes included, are copied unchanged.
void append_listing_line(std::string& out, std::uint32_t token, std::uint32_t il_offset,
                         std::uint32_t start_line, std::uint32_t start_column,
                         std::uint32_t end_line, std::uint32_t end_column, bool hidden,
                         std::string_view path);
// The same with `escaped_path` already passed through escape_text (no per-line scan: callers
// that print many points escape each document's path once).
void append_listing_line_escaped(std::string& out, std::uint32_t token, std::uint32_t il_offset,
                                 std::uint32_t start_line, std::uint32_t start_column,
                                 std::uint32_t end_line, std::uint32_t end_column, bool hidden,
                                 std::string_view escaped_path);
inline void append_listing_line(std::string& out, std::uint32_t token, const SequencePoint& p,
                                std::string_view path) {
  append_listing_line(out, token, p.il_offset, p.start_line, p.start_column, p.end_line,
                      p.end_column, p.hidden(), path);
}

// Sorts one method's points by IL offset, keeping PDB order for equal offsets.
void sort_points_by_offset(std::vector<SequencePoint>& points);

// Calls `append(buf, token, point)` for every point of every method of `pdb` (methods in row
// order, points sorted by IL offset) and `sink(chunk)` with the text appended. Methods whose
// blob is malformed are reported through `on_error` and skipped. False when any failed.
template <class Append, class Sink, class OnError>
bool write_points(const PortablePdb& pdb, Append&& append, Sink&& sink, OnError&& on_error);

// Calls `sink(chunk)` with listing text for every method of `pdb`. Methods whose blob is
// malformed are reported through `on_error` and skipped (the rest continue).
// Returns false when any method or document failed.
template <class Sink, class OnError>
bool write_listing(const PortablePdb& pdb, const std::vector<std::string>& doc_names, Sink&& sink,
                   OnError&& on_error);

}  // namespace ilmap

#include "decode/Listing-inl.h"
