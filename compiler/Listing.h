// Listing.h - the canonical sequence-point listing of DESIGN.md ("dump --sequence-points").
//
// One line per point, sorted by (token, IL offset), equal keys in PDB order:
//   0x06000002 8 C:\src\Program.cs 22:13-22:20
//   0x06000002 6 C:\src\Program.cs 16707566:0-16707566:0 hidden
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "PortablePdb.h"
#include "SequencePoints.h"

namespace ilmap {

// Appends one listing line (with '\n').
void append_listing_line(std::string& out, std::uint32_t token, const SequencePoint& p,
                         std::string_view path);

// Sorts one method's points by IL offset, keeping PDB order for equal offsets.
void sort_points_by_offset(std::vector<SequencePoint>& points);

// Calls `sink(chunk)` with listing text for every method of `pdb`. Methods whose blob is
// malformed are reported through `on_error` and skipped (the rest continue).
// Returns false when any method or document failed.
template <class Sink, class OnError>
bool write_listing(const PortablePdb& pdb, const std::vector<std::string>& doc_names, Sink&& sink,
                   OnError&& on_error);

}  // namespace ilmap

#include "Listing-inl.h"
