// Listing-inl.h - template body of write_listing (see Listing.h).
#pragma once

namespace ilmap {

template <class Sink, class OnError>
bool write_listing(const PortablePdb& pdb, const std::vector<std::string>& doc_names, Sink&& sink,
                   OnError&& on_error) {
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
    for (const SequencePoint& p : points)
      append_listing_line(buf, 0x06000000u | rid, p, doc_names[p.document - 1]);
    if (buf.size() > (1u << 16)) {
      sink(std::string_view(buf));
      buf.clear();
    }
  }
  if (!buf.empty()) sink(std::string_view(buf));
  return ok;
}

}  // namespace ilmap
