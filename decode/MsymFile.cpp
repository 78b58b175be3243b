// MsymFile.cpp - the `.msym` decoder and its lookup (see MsymFile.h, docs/msym.md).
#include "decode/MsymFile.h"

#include <algorithm>
#include <limits>
#include <string>

#include "support/ByteCursor.h"

namespace ilmap {
namespace {

std::string hex(std::size_t v) { return format("0x%zx", v); }

// Where a value lies, for messages: the header, or entry `entry` starting at byte `at`. Built
// only when a message is (a file of 100k entries is parsed without making a string).
struct Where {
  std::uint32_t entry;  // kHeader: the header
  std::size_t at;
  static constexpr std::uint32_t kHeader = 0xffffffffu;
  std::string text() const {
    return entry == kHeader ? std::string("header") : "entry " + std::to_string(entry) + " (at " + hex(at) + ")";
  }
};

// Mono's variable-length integer (encode_var_int): at most 4 bytes. Mono asserts on a fifth;
// here it is an error, as is a value cut by the end of the file or of the entry's data.
Status read_var(ByteCursor& c, std::uint32_t& out, const char* what, const Where& where) {
  const std::size_t at = c.abs();
  out = 0;
  for (unsigned i = 0; i < 4; ++i) {
    std::uint8_t b;
    if (!c.read(b))
      return Status(Errc::kTruncated, "msym " + where.text() + ": " + what + " at " + hex(at) + " cut by the end of its data");
    out |= std::uint32_t(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return {};
  }
  return Status(Errc::kMalformed, "msym " + where.text() + ": " + what + " at " + hex(at) + " longer than 4 bytes");
}

// Zigzag as the runtime decodes it (seq-points-data.c decode_zig_zag): 2n -> n, 2n+1 -> -n-1.
std::int64_t unzigzag(std::uint32_t v) { return (v & 1) ? -std::int64_t(v >> 1) - 1 : std::int64_t(v >> 1); }

bool fits_int32(std::int64_t v) {
  return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
}

}  // namespace

// docs/msym.md section 4 counts 16 bytes an entry (and 8 a point) in its memory bound.
static_assert(sizeof(MsymFile::Entry) == 16 && sizeof(MsymFile::Point) == 8);

Result<MsymFile> MsymFile::parse(std::span<const std::uint8_t> bytes) {
  if (bytes.size() > kMaxFileSize)
    return Error{Errc::kTooLarge, "msym: " + std::to_string(bytes.size()) + " bytes, more than the " +
                                      std::to_string(kMaxFileSize) + " an msym file may have"};
  ByteCursor c(bytes);
  MsymFile f;
  std::uint32_t count = 0;
  if (Status s = read_var(c, count, "entry count", Where{Where::kHeader, 0}); !s) return s.error();
  // An entry takes at least 4 bytes: a count the rest of the file cannot hold is a lie, and no
  // more than the file can hold is reserved.
  if (count > c.remaining() / 4)
    return Error{Errc::kTruncated, "msym header: " + std::to_string(count) + " entries claimed, but " +
                                       std::to_string(c.remaining()) + " bytes follow (4 at least per entry)"};
  f.entries_.reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const Where where{i, c.abs()};
    std::uint32_t token = 0, index = 0, debug = 0, size = 0;
    if (Status s = read_var(c, token, "method token", where); !s) return s.error();
    if (Status s = read_var(c, index, "method index", where); !s) return s.error();
    if (Status s = read_var(c, debug, "has_debug_data", where); !s) return s.error();
    if (Status s = read_var(c, size, "data size", where); !s) return s.error();
    ByteCursor data;
    if (!c.sub(size, data))
      return Error{Errc::kTruncated, "msym " + where.text() + ": " + std::to_string(size) + " bytes of points at " +
                                         hex(c.abs()) + ", but " + std::to_string(c.remaining()) + " remain"};
    Entry e{token, index, static_cast<std::uint32_t>(f.points_.size()), 0, 1};
    std::int64_t il = 0, native = 0;
    while (!data.empty()) {
      const std::size_t at = data.abs();
      std::uint32_t dil = 0, dnative = 0;
      const std::uint8_t* q = data.ptr();
      if (data.remaining() >= 2 && (q[0] | q[1]) < 0x80) {  // both deltas one byte: most points
        dil = q[0], dnative = q[1];
        (void)data.skip(2);
      } else {
        if (Status s = read_var(data, dil, "IL delta", where); !s) return s.error();
        if (Status s = read_var(data, dnative, "native delta", where); !s) return s.error();
      }
      il += unzigzag(dil);
      native += unzigzag(dnative);
      if (!fits_int32(il) || !fits_int32(native))
        return Error{Errc::kMalformed, "msym " + where.text() + ": point at " + hex(at) + " leaves 32 bits (IL " +
                                           std::to_string(il) + ", native " + std::to_string(native) + ")"};
      std::int32_t point_il = static_cast<std::int32_t>(il);
      if (debug != 0) {
        // The debugger's part: flags and the indexes of the next points, skipped but checked.
        std::uint32_t flags = 0, next = 0, ignored = 0;
        if (Status s = read_var(data, flags, "flags", where); !s) return s.error();
        if (Status s = read_var(data, next, "next count", where); !s) return s.error();
        if (next > data.remaining())
          return Error{Errc::kTruncated, "msym " + where.text() + ": point at " + hex(at) + " claims " + std::to_string(next) +
                                             " next indexes, but " + std::to_string(data.remaining()) + " bytes remain"};
        for (std::uint32_t k = 0; k < next; ++k)
          if (Status s = read_var(data, ignored, "next index", where); !s) return s.error();
        // The runtime's decoder sets the exit point's IL offset, and the next delta adds to it.
        if (flags & 2) il = point_il = kExitIlOffset;
      }
      if (e.count > 0 && f.points_.back().native_offset > native) e.sorted = 0;
      f.points_.push_back({point_il, static_cast<std::int32_t>(native)});
      ++e.count;
    }
    f.entries_.push_back(e);
  }
  if (!c.empty())
    return Error{Errc::kMalformed, "msym: " + std::to_string(c.remaining()) + " bytes after the last entry, at " + hex(c.abs())};
  f.by_token_.resize(f.entries_.size());
  for (std::uint32_t i = 0; i < f.by_token_.size(); ++i) f.by_token_[i] = i;
  f.by_id_ = f.by_token_;
  const auto& es = f.entries_;
  std::stable_sort(f.by_token_.begin(), f.by_token_.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return es[a].token < es[b].token; });
  std::stable_sort(f.by_id_.begin(), f.by_id_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return es[a].token != es[b].token ? es[a].token < es[b].token : es[a].method_index < es[b].method_index;
  });
  f.points_.shrink_to_fit();
  return f;
}

const MsymFile::Entry* MsymFile::find(std::uint32_t token, std::uint32_t method_index) const {
  const bool any = method_index == kAnyIndex;
  const auto& v = any ? by_token_ : by_id_;
  const auto it = std::lower_bound(v.begin(), v.end(), 0, [&](std::uint32_t i, int) {
    const Entry& e = entries_[i];
    return e.token != token ? e.token < token : !any && e.method_index < method_index;
  });
  if (it == v.end() || entries_[*it].token != token) return nullptr;
  if (!any && entries_[*it].method_index != method_index) return nullptr;
  return &entries_[*it];
}

std::optional<std::uint32_t> MsymFile::il_offset(std::uint32_t token, std::uint32_t method_index,
                                                 std::uint32_t native_offset) const {
  const Entry* e = find(token, method_index);
  if (!e) return std::nullopt;
  // File order, stopping at the first point past the offset (mono_seq_point_find_prev_by_native_offset):
  // the runtime does not assume the points sorted. When they are (Mono writes them so; parse
  // checked), the first point past the offset is found by binary search: the same answer.
  const auto pts = points(*e);
  const Point* prev = nullptr;
  if (e->sorted) {
    const auto past = std::upper_bound(pts.begin(), pts.end(), std::int64_t(native_offset),
                                       [](std::int64_t o, const Point& p) { return o < p.native_offset; });
    if (past != pts.begin()) prev = &*(past - 1);
  } else {
    for (const Point& p : pts) {
      if (std::int64_t(p.native_offset) > std::int64_t(native_offset)) break;
      prev = &p;
    }
  }
  if (!prev || prev->il_offset < 0) return std::nullopt;
  return static_cast<std::uint32_t>(prev->il_offset);
}

}  // namespace ilmap
