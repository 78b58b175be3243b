// Listing-inl.h - template bodies of write_points and write_listing (see Listing.h).
#pragma once

namespace ilmap {

template <class Append, class Sink, class OnError>
bool write_points(const PortablePdb& pdb, Append&& append, Sink&& sink, OnError&& on_error) {
  bool ok = true;
  std::vector<SequencePoint> points;
  std::string buf;
  for (std::uint32_t rid = 1; rid <= pdb.method_count(); ++rid) {
    points.clear();
    if (Status s = pdb.sequence_points(rid, points); !s) {
      on_error(s.error());
      ok = false;
      continue;
    }
    sort_points_by_offset(points);
    for (const SequencePoint& p : points) append(buf, 0x06000000u | rid, p);
    if (buf.size() > (1u << 16)) {
      sink(std::string_view(buf));
      buf.clear();
    }
  }
  if (!buf.empty()) sink(std::string_view(buf));
  return ok;
}

template <class Sink, class OnError>
bool write_listing(const PortablePdb& pdb, const std::vector<std::string>& doc_names, Sink&& sink,
                   OnError&& on_error) {
  // Each name is escaped once here, not once per point.
  std::vector<std::string> escaped;
  escaped.reserve(doc_names.size());
  for (const std::string& n : doc_names) escaped.push_back(escape_text(n));
  return write_points(
      pdb,
      [&escaped](std::string& buf, std::uint32_t token, const SequencePoint& p) {
        append_listing_line_escaped(buf, token, p.il_offset, p.start_line, p.start_column, p.end_line,
                                    p.end_column, p.hidden(), escaped[p.document - 1]);
      },
      sink, on_error);
}

}  // namespace ilmap
