// PointEncoder.cpp - every method's points as a point block, and a block again in a wider
// profile.
//
// SPEC.md 5.1 (header values and profiles), 5.2 (the IL column, then one LSB-first bit string
// of the visible records' other fields and the hidden records) and 5.3 (records in PDB order).
// Bases and widths are chosen per block, each base the smaller of "minimum" and "zero" (5.2
// leaves the choice to writers). A Windows PDB's points are checked here against what a block
// can hold, and its hidden points that a hidden record cannot describe are kept apart (5.5).
// The decoding side is format/ilmap_format.h.
//
// One translation unit on purpose: the encoder is the sink of the sequence-point decoder
// (decode/SequencePoints-inl.h), and with the encoder's type local to this file the compiler
// inlines the decoder, the sink and the block writer into one loop per chunk. With the encoder
// in a file of its own, calls per method cost 4% more instructions on 5,000 small methods.
#include "compiler/PointEncoder.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "compiler/ReleaseWindow.h"
#include "decode/msf/MsfPdb.h"

namespace ilmap {
namespace {

namespace f = ilmap::disk;

// Threads that encode one PDB, at most.
constexpr unsigned kMaxEncodeThreads = 64;

// Bytes of blocks after which one thread starts a new chunk: what the cache's copy of the
// blocks holds twice at most (docs/architecture.md, "Memory").
constexpr std::size_t kChunkBytes = std::size_t(8) << 20;
// Bytes of input blobs read before their pages are given back (encode_chunk).
constexpr std::size_t kReleaseBytes = std::size_t(4) << 20;

// Writes bits LSB-first: each put stores 8 bytes at the current byte (so the buffer needs 8
// bytes of slack after the last byte written) and advances by the whole bytes filled.
class BitWriter {
 public:
  explicit BitWriter(std::uint8_t* out) : p_(out) {}
  // v < 2^width, width <= 56.
  void put(std::uint64_t v, unsigned width) {
    acc_ |= v << fill_;  // fill_ < 8
    std::memcpy(p_, &acc_, 8);
    fill_ += width;
    p_ += fill_ >> 3;
    acc_ >>= fill_ & ~7u;  // at most 56
    fill_ &= 7;
  }
  // One past the last byte holding a bit.
  std::uint8_t* finish() const { return p_ + (fill_ ? 1 : 0); }

 private:
  std::uint8_t* p_;
  std::uint64_t acc_ = 0;
  unsigned fill_ = 0;
};

// Chooses a base for a field: the minimum (so widths cover max-min) or zero (so the base takes
// no header byte), whichever makes the block smaller.
void choose_base(std::uint32_t lo, std::uint32_t hi, std::size_t count, std::uint32_t& base,
                 std::uint8_t& width) {
  const unsigned w_min = f::bit_width(hi - lo);
  const unsigned w_zero = f::bit_width(hi);
  const std::uint64_t cost_min = f::code_bytes(f::length_code(lo)) * 8 + std::uint64_t(w_min) * count;
  const std::uint64_t cost_zero = std::uint64_t(w_zero) * count;
  if (cost_zero <= cost_min) {
    base = 0;
    width = static_cast<std::uint8_t>(w_zero);
  } else {
    base = lo;
    width = static_cast<std::uint8_t>(w_min);
  }
}

// Collects one method's points as they are decoded (the sink of decode_sequence_points_to:
// visible and hidden points into separate arrays, no capacity checks thanks to reserve), then
// appends its block (SPEC.md section 5) to the point blocks.
class BlockEncoder {
 public:
  struct Visible {
    std::uint32_t il, line, dline, doc;  // doc: 0-based
    std::uint16_t col, ecol;
  };
  struct Hidden {
    std::uint32_t il, doc;
  };

  void reserve(std::size_t n) {
    if (n > cap_) {
      cap_ = std::max(n, cap_ * 2);
      visible_.reset(new Visible[cap_]);
      hidden_.reset(new Hidden[cap_]);
    }
    nv_ = visible_.get();
    nh_ = hidden_.get();
  }
  void reset() {
    nv_ = visible_.get();
    nh_ = hidden_.get();
  }

  void operator()(const SequencePoint& p) {
    if (p.hidden()) {
      *nh_++ = {p.il_offset, p.document - 1};
    } else {
      *nv_++ = {p.il_offset, p.start_line, p.end_line - p.start_line, p.document - 1,
                p.start_column, p.end_column};
    }
  }

  std::uint32_t visible() const { return static_cast<std::uint32_t>(nv_ - visible_.get()); }
  std::uint32_t hidden() const { return static_cast<std::uint32_t>(nh_ - hidden_.get()); }
  std::uint32_t count() const { return visible() + hidden(); }

  // Appends the block's header values and records and returns its profile (the writer puts the
  // profile in the table or in front of the block, SPEC.md 5.1); nothing for a method without
  // points.
  std::uint64_t append_to(ByteBuffer& out, std::uint64_t& docs) const {
    if (count() == 0) return 0;
    std::uint64_t profile;
    const f::BlockHeader h = header(profile, docs);
    // Room for the header, the records and 8 bytes of store slack.
    std::uint8_t* const start = out.room(f::kMaxBlockHeaderSize + static_cast<std::size_t>(h.records_bytes()) + 8);
    out.set_size(out.size() + static_cast<std::size_t>(write(h, profile, start) - start));
    return profile;
  }

  // The block's header and profile, and its lowest and highest document (low | high << 32).
  // Needs count() >= 1.
  f::BlockHeader header(std::uint64_t& profile, std::uint64_t& docs) const {
    const Visible* const vb = visible_.get();
    const Hidden* const hb = hidden_.get();
    const std::uint32_t nv = visible(), nh = hidden();
    // Ranges. A width depends only on the highest set bit, so OR stands in for max.
    std::uint32_t or_il = 0, or_col = 0, or_dline = 0, or_ecol = 0;
    std::uint32_t min_line = UINT32_MAX, max_line = 0, min_doc = UINT32_MAX, max_doc = 0;
    for (const Visible* v = vb; v != nv_; ++v) {
      or_il |= v->il;
      or_col |= v->col;
      or_dline |= v->dline;
      or_ecol |= v->ecol;
      min_line = std::min(min_line, v->line);
      max_line = std::max(max_line, v->line);
      min_doc = std::min(min_doc, v->doc);
      max_doc = std::max(max_doc, v->doc);
    }
    for (const Hidden* q = hb; q != nh_; ++q) {
      or_il |= q->il;
      min_doc = std::min(min_doc, q->doc);
      max_doc = std::max(max_doc, q->doc);
    }
    f::BlockHeader h;
    h.visible = nv;
    h.hidden = nh;
    h.w_il = static_cast<std::uint8_t>(f::bit_width(or_il));
    h.w_col = static_cast<std::uint8_t>(f::bit_width(or_col));
    h.w_dline = static_cast<std::uint8_t>(f::bit_width(or_dline));
    h.w_ecol = static_cast<std::uint8_t>(f::bit_width(or_ecol));
    if (nv == 0) {
      h.base_line = 0;
      h.w_line = 0;
    } else {
      choose_base(min_line, max_line, nv, h.base_line, h.w_line);
    }
    choose_base(min_doc, max_doc, std::size_t(nv) + nh, h.base_doc, h.w_doc);
    // At most 8 records per byte of block (SPEC.md 5.1): records that would take no bits (all
    // at IL 0 on one line, column and document) get a 1-bit document field of zeros.
    if ((h.il_bytes() * 8 + h.rest_bits() == 0 || h.hidden_bits() == 0) && std::size_t(nv) + nh > 8) h.w_doc = 1;
    profile = f::block_profile(h);
    docs = min_doc | std::uint64_t(max_doc) << 32;
    return h;
  }

  // Writes the block's header values and records in the widths and codes of `h` and `profile`
  // at `p`, which must have room for them and 8 bytes more; returns the end of the block.
  std::uint8_t* write(const f::BlockHeader& h, std::uint64_t profile, std::uint8_t* p) const {
    const Visible* const vb = visible_.get();
    const Hidden* const hb = hidden_.get();
    const std::uint32_t nh = hidden();
    const unsigned hbits = h.hidden_bits(), il_bytes = h.il_bytes();
    p += f::put_block_values(p, h, static_cast<unsigned>(profile >> 32));
    const std::uint32_t base_line = h.base_line, base_doc = h.base_doc;
    // The IL column first (what a lookup searches; byte-aligned entries, each stored as 8
    // little-endian bytes that the next entry overwrites), then the bit string.
    const Visible* const ve = nv_;
    if (il_bytes) {
      for (const Visible* v = vb; v != ve; ++v) {
        const std::uint64_t x = v->il;
        std::memcpy(p, &x, 8);  // hosts are little endian (checked in CMake)
        p += il_bytes;
      }
    }
    BitWriter bw(p);
    const unsigned rest = h.rest_bits();
    if (rest <= 56) {
      // Usual case: a whole record in one put. Fields are placed by multiplying with 2^shift
      // (no shift-count register juggling without BMI2).
      const std::uint64_t m2 = std::uint64_t(1) << h.w_line, m3 = m2 << h.w_col,
                          m4 = m3 << h.w_dline, m5 = m4 << h.w_ecol;
      for (const Visible* v = vb; v != ve; ++v) {
        const std::uint64_t r = std::uint64_t(v->line - base_line) + std::uint64_t(v->col) * m2 +
                                std::uint64_t(v->dline) * m3 + std::uint64_t(v->ecol) * m4 +
                                std::uint64_t(v->doc - base_doc) * m5;
        bw.put(r, rest);
      }
    } else {
      for (const Visible* v = vb; v != ve; ++v) {
        bw.put(v->line - base_line, h.w_line);
        bw.put(v->col, h.w_col);
        bw.put(v->dline, h.w_dline);
        bw.put(v->ecol, h.w_ecol);
        bw.put(v->doc - base_doc, h.w_doc);
      }
    }
    if (nh) {
      if (hbits <= 56) {
        for (const Hidden* q = hb; q != nh_; ++q)
          bw.put(std::uint64_t(q->il) | std::uint64_t(q->doc - base_doc) << h.w_il, hbits);
      } else {
        for (const Hidden* q = hb; q != nh_; ++q) {
          bw.put(q->il, h.w_il);
          bw.put(q->doc - base_doc, h.w_doc);
        }
      }
    }
    return bw.finish();
  }

 private:
  std::unique_ptr<Visible[]> visible_;
  std::unique_ptr<Hidden[]> hidden_;
  std::size_t cap_ = 0;
  Visible* nv_ = nullptr;
  Hidden* nh_ = nullptr;
};

// Checks the points of Windows PDB method `m` (row `rid`) against what a point block can hold
// (SPEC.md 5.3) and appends to `hidden_points` each hidden point that its hidden record does not
// describe (5.5).
Status check_msf_points(const msf::MsfMethod& m, std::uint32_t rid, std::vector<fb::HiddenPoint>& hidden_points) {
  // The format takes IL offsets up to 0x7FFFFFFF that never decrease (a Portable PDB's
  // strictly increase; a Windows PDB may repeat one, as C++/CLI's do), visible lines below
  // 0xFEEFEE and end >= start. A hidden point (line 0xFEEFEE) is a hidden record; its end
  // line and columns, when not 0xFEEFEE, 0 and 0, and its place when it is not the first
  // among the points at its offset, are kept beside the blocks.
  std::uint32_t visible = 0, hidden = 0;
  std::uint32_t last_visible_il = 0, run = 0;  // the last visible point's offset, and how many have it
  for (std::size_t i = 0; i < m.points.size(); ++i) {
    const SequencePoint& p = m.points[i];
    if (!p.hidden() && (p.start_line > kHiddenLine || p.end_line >= kHiddenLine ||
                        p.end_line < p.start_line)) {
      return Error{Errc::kMalformed,
                   format("Windows PDB: method 0x%08x: point %zu has lines %u-%u (visible lines must lie below 0xFEEFEE)",
                          m.token, i, p.start_line, p.end_line)};
    }
    if (p.il_offset > 0x7FFFFFFF) {  // as the Portable PDB decoder's cap (signed 32-bit offsets)
      return Error{Errc::kMalformed, format("Windows PDB: method 0x%08x: point %zu has IL offset 0x%x (above 0x7FFFFFFF)",
                                           m.token, i, p.il_offset)};
    }
    if (i > 0 && p.il_offset < m.points[i - 1].il_offset) {
      return Error{Errc::kMalformed,
                   format("Windows PDB: method 0x%08x: point %zu has IL offset %u after %u (a method's IL offsets must not decrease)",
                          m.token, i, m.points[i].il_offset, m.points[i - 1].il_offset)};
    }
    if (!p.hidden()) {
      run = visible > 0 && p.il_offset == last_visible_il ? run + 1 : 1;
      last_visible_il = p.il_offset;
      ++visible;
      continue;
    }
    // Readers place a hidden record before the visible records at its offset.
    const std::uint32_t placed = visible - (visible > 0 && p.il_offset == last_visible_il ? run : 0);
    if (placed != visible || p.end_line != kHiddenLine || p.start_column != 0 || p.end_column != 0)
      hidden_points.emplace_back(rid, hidden, visible, p.end_line, p.start_column, p.end_column);
    ++hidden;
  }
  return {};
}

// Decodes the points of method row `rid` into `enc` (reset first); a Windows PDB's hidden
// points that their hidden records cannot describe go to `hidden_points` (SPEC.md 5.5).
Status decode_row(const BuildInput& in, std::uint32_t rid, BlockEncoder& enc, std::vector<fb::HiddenPoint>& hidden_points,
                  std::span<const std::uint8_t>* blob) {
  enc.reset();
  if (in.portable) return in.portable->for_each_sequence_point(rid, enc, blob);
  const msf::MsfMethod* m = in.msf_by_row[rid - 1];
  if (!m) return {};
  if (Status s = check_msf_points(*m, rid, hidden_points); !s) return s;
  enc.reserve(m->points.size());
  for (const SequencePoint& p : m->points) enc(p);
  return {};
}

// Encodes the rows of chunk `c`; the first error of a row stops it (c.status). A chunk whose
// blocks reach `max_bytes` ends at that row (c.last).
void encode_chunk(const BuildInput& in, BlockChunk& c, std::size_t max_bytes = SIZE_MAX) {
  BlockEncoder enc;
  c.ends.reserve(c.last >= c.first ? c.last - c.first + 1 : 0);
  // The pages of the blobs read go back as the rows move through the #Blob heap (ReleaseWindow.h).
  std::span<const std::uint8_t> blob;
  ReleaseWindow window(kReleaseBytes);
  for (std::uint32_t rid = c.first; rid <= c.last; ++rid) {
    if (Status s = decode_row(in, rid, enc, c.hidden_points, in.file ? &blob : nullptr); !s) {
      c.status = s;
      return;
    }
    if (in.file && !blob.empty()) {
      if (const auto r = window.read(blob.data(), blob.data() + blob.size()); !r.empty())
        in.file->release_pages(r.data(), r.data() + r.size());
    }
    c.total += enc.count();
    c.hidden += enc.hidden();
    if (enc.count()) {
      std::uint64_t docs = 0;
      c.profiles.push_back(enc.append_to(c.blocks, docs));
      c.docs.push_back(docs);
      c.counts.push_back(std::uint64_t(enc.visible()) | std::uint64_t(enc.hidden()) << 32);
    }
    if (c.blocks.size() > UINT32_MAX) {
      c.status = {Errc::kTooLarge, "point blocks exceed 4 GiB, the limit of the cache format"};
      return;
    }
    c.ends.push_back(static_cast<std::uint32_t>(c.blocks.size()));
    if (c.blocks.size() >= max_bytes) {
      c.last = rid;
      return;
    }
  }
}

}  // namespace

Result<std::vector<BlockChunk>> encode_point_blocks(const BuildInput& in, const CacheBuildOptions& opt) {
  const std::uint32_t methods = in.methods;
  const std::size_t blob_bytes = in.parallel_bytes;
  unsigned workers = 1;
  if (opt.threads > 1 && methods >= opt.parallel_min_methods && blob_bytes >= opt.parallel_min_blob_bytes)
    workers = std::min<unsigned>(opt.threads, kMaxEncodeThreads);
  const std::uint32_t nchunks = workers == 1 ? 1 : std::min<std::uint32_t>(methods, workers * 8);
  std::vector<BlockChunk> chunks(nchunks);
  for (std::uint32_t c = 0; c < nchunks; ++c) {
    chunks[c].first = static_cast<std::uint32_t>(std::uint64_t(methods) * c / nchunks) + 1;
    chunks[c].last = static_cast<std::uint32_t>(std::uint64_t(methods) * (c + 1) / nchunks);
  }
  if (workers == 1) {
    // Chunks of about kChunkBytes of blocks, so that the cache's copy of the blocks frees them
    // as it goes (write_point_blocks) and they are never held twice.
    for (std::uint32_t first = 1; !chunks.empty() && first <= methods;) {
      BlockChunk& c = chunks.back();
      c.first = first;
      c.last = methods;
      // Room past the cut for the block that crosses it (pages are touched only as written).
      c.blocks.reserve(std::min<std::size_t>(blob_bytes, kChunkBytes + kChunkBytes / 2) + 64);
      encode_chunk(in, c, kChunkBytes);
      if (!c.status || c.last == methods) break;
      first = c.last + 1;
      chunks.emplace_back();
    }
  } else {
    std::atomic<std::uint32_t> next{0};
    auto work = [&] {
      for (std::uint32_t c; (c = next.fetch_add(1)) < nchunks;) encode_chunk(in, chunks[c]);
    };
    std::vector<std::thread> pool;
    pool.reserve(workers - 1);
    for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
  }
  std::size_t nblocks = 0;
  for (BlockChunk& c : chunks) {
    if (!c.status) return c.status.error();
    c.first_block = nblocks;
    nblocks += c.profiles.size();
  }
  return chunks;
}

std::uint8_t* rewrite_block(const std::uint8_t* src, const std::uint8_t* end, std::uint64_t own, std::uint64_t target,
                            std::uint8_t* out) {
  f::BlockHeader h;
  const std::uint8_t* p = src;
  if (!f::get_block_header(p, end, own, h)) return out;  // not reached: the encoder wrote it
  f::BlockHeader t = h;
  set_profile_widths(t, target);
  out += f::put_block_values(out, t, static_cast<unsigned>(target >> 32));
  const unsigned from = h.il_bytes(), to = t.il_bytes();
  for (std::uint32_t k = 0; k < h.visible; ++k) {
    const std::uint64_t x = f::get_visible_il(p, k, h);
    std::memcpy(out, &x, 8);  // hosts are little endian (checked in CMake)
    out += to;
  }
  const std::uint8_t* const bits = p + std::size_t(h.visible) * from;
  std::uint64_t at = 0;
  BitWriter bw(out);
  auto copy = [&](unsigned width_from, unsigned width_to) {
    bw.put(f::get_bits(bits, at, width_from), width_to);
    at += width_from;
  };
  const unsigned rest_from = h.rest_bits(), rest_to = t.rest_bits();
  if (rest_from <= 56) {
    // Usual case: each record read in one load and its fields moved to their new places,
    // written in one put (or one per field when the new record is wider than 56 bits).
    const unsigned s1 = h.w_line, s2 = s1 + h.w_col, s3 = s2 + h.w_dline, s4 = s3 + h.w_ecol;
    const std::uint64_t m1 = (std::uint64_t(1) << h.w_line) - 1, m2 = (std::uint64_t(1) << h.w_col) - 1,
                        m3 = (std::uint64_t(1) << h.w_dline) - 1, m4 = (std::uint64_t(1) << h.w_ecol) - 1;
    const unsigned d1 = t.w_line, d2 = d1 + t.w_col, d3 = d2 + t.w_dline, d4 = d3 + t.w_ecol;
    const std::uint64_t all = (std::uint64_t(1) << rest_from) - 1;
    for (std::uint32_t k = 0; k < h.visible; ++k) {
      const std::uint64_t r = f::load_le64(bits + (at >> 3)) >> (at & 7) & all;
      at += rest_from;
      if (rest_to <= 56) {
        bw.put((r & m1) | (r >> s1 & m2) << d1 | (r >> s2 & m3) << d2 | (r >> s3 & m4) << d3 | (r >> s4) << d4, rest_to);
      } else {
        bw.put(r & m1, t.w_line);
        bw.put(r >> s1 & m2, t.w_col);
        bw.put(r >> s2 & m3, t.w_dline);
        bw.put(r >> s3 & m4, t.w_ecol);
        bw.put(r >> s4, t.w_doc);
      }
    }
  } else {
    for (std::uint32_t k = 0; k < h.visible; ++k) {
      copy(h.w_line, t.w_line);
      copy(h.w_col, t.w_col);
      copy(h.w_dline, t.w_dline);
      copy(h.w_ecol, t.w_ecol);
      copy(h.w_doc, t.w_doc);
    }
  }
  for (std::uint32_t k = 0; k < h.hidden; ++k) {
    copy(h.w_il, t.w_il);
    copy(h.w_doc, t.w_doc);
  }
  return bw.finish();
}

}  // namespace ilmap
