// ModuleStream.cpp - managed procedures and C13 subsections of one module stream.
#include "decode/msf/ModuleStream.h"

#include <algorithm>
#include <string>

#include "support/ByteCursor.h"
#include "decode/msf/DbiStream.h"
#include "decode/msf/MsfFile.h"
#include "decode/msf/MsfFormat.h"

namespace ilmap::msf {
namespace {

struct Ctx {
  const MsfFile& msf;
  const DbiModule& mod;
  std::size_t index;
  std::string at(std::size_t pos) const {
    return format("module %zu (%s) symbol %s", index, mod.name.c_str(),
                  msf.where(mod.symbol_stream, pos).c_str());
  }
};

Status parse_symbols(const Ctx& x, ByteCursor c, ModuleLines& out) {
  while (!c.empty()) {
    const std::size_t pos = c.abs();
    std::uint16_t len = 0;
    if (!c.read(len))
      return Status(Errc::kTruncated, format("%s: symbol record length runs past the %u-byte "
                                             "symbol substream", x.at(pos).c_str(),
                                             x.mod.symbol_bytes));
    ByteCursor rec;
    if (len < 2 || !c.sub(len, rec))
      return Status(len < 2 ? Errc::kMalformed : Errc::kTruncated,
                    format("%s: symbol record of %u bytes %s", x.at(pos).c_str(), len,
                           len < 2 ? "has no room for its kind" : "runs past the symbol substream"));
    std::uint16_t kind = 0;
    (void)rec.read(kind);
    if (kind != kSymGManProc && kind != kSymLManProc) continue;
    ManProcSym p;
    if (!rec.read(p))
      return Status(Errc::kTruncated, format("%s: S_%cMANPROC record of %u bytes is shorter than "
                                             "its %zu fixed bytes", x.at(pos).c_str(),
                                             kind == kSymGManProc ? 'G' : 'L', len,
                                             sizeof(ManProcSym) + 2));
    out.procs.push_back({p.token, p.off, p.len, p.seg, pos});
  }
  return {};
}

Status parse_checksums(const Ctx& x, ByteCursor c, ModuleLines& out) {
  if (out.saw_checksums)
    return Status(Errc::kMalformed, format("%s: a second DEBUG_S_FILECHKSMS subsection (file ids "
                                           "would be ambiguous)", x.at(c.abs()).c_str()));
  out.saw_checksums = true;
  const std::size_t base = c.abs();
  while (!c.empty()) {
    const std::size_t pos = c.abs();
    FileChecksumHeader h;
    std::span<const std::uint8_t> bytes;
    if (!c.read(h) || !c.bytes(h.size, bytes))
      return Status(Errc::kTruncated, format("%s: DEBUG_S_FILECHKSMS entry runs past its "
                                             "subsection", x.at(pos).c_str()));
    const std::size_t pad = (4 - (c.abs() - base) % 4) % 4;
    (void)c.skip(std::min(pad, c.remaining()));
    FileChecksum f;
    f.file_id = static_cast<std::uint32_t>(pos - base);
    f.name_offset = h.name_offset;
    f.kind = h.kind;
    f.bytes.assign(bytes.begin(), bytes.end());
    out.checksums.push_back(std::move(f));
  }
  return {};
}

Status parse_lines(const Ctx& x, ByteCursor c, ModuleLines& out) {
  const std::size_t pos = c.abs();
  LinesHeader h;
  if (!c.read(h))
    return Status(Errc::kTruncated, format("%s: DEBUG_S_LINES header needs %zu bytes, the "
                                           "subsection has %zu", x.at(pos).c_str(), sizeof h,
                                           c.size()));
  LinesSubsection s;
  s.offset = h.off_con;
  s.segment = h.seg_con;
  s.flags = h.flags;
  s.code_size = h.cb_con;
  s.stream_offset = pos;
  const bool columns = (h.flags & kLinesHaveColumns) != 0;
  const std::size_t per_line = sizeof(CvLine) + (columns ? sizeof(CvColumn) : 0);
  while (!c.empty()) {
    const std::size_t bpos = c.abs();
    LinesFileBlockHeader b;
    if (!c.read(b))
      return Status(Errc::kTruncated, format("%s: DEBUG_S_LINES file block header runs past its "
                                             "subsection", x.at(bpos).c_str()));
    // count * size checked against what is left before multiplying into a size.
    if (b.num_lines > c.remaining() / per_line)
      return Status(Errc::kTruncated, format("%s: DEBUG_S_LINES file block of %u lines (%zu bytes "
                                             "each) runs past its subsection (%zu bytes left)",
                                             x.at(bpos).c_str(), b.num_lines, per_line,
                                             c.remaining()));
    const std::size_t need = sizeof b + b.num_lines * per_line;
    if (b.block_size < need || b.block_size - sizeof b > c.remaining())
      return Status(Errc::kMalformed, format("%s: DEBUG_S_LINES file block size %u, but %u lines "
                                             "need %zu bytes and %zu are left", x.at(bpos).c_str(),
                                             b.block_size, b.num_lines, need,
                                             c.remaining() + sizeof b));
    ByteCursor body;
    (void)c.sub(b.block_size - sizeof b, body);
    ByteCursor cols = body;
    (void)cols.skip(b.num_lines * sizeof(CvLine));
    LineFileBlock fb{b.file_id, static_cast<std::uint32_t>(out.records.size()), b.num_lines};
    for (std::uint32_t i = 0; i < b.num_lines; ++i) {
      CvLine l{};
      (void)body.read(l);
      LineRecord r;
      r.offset = l.offset;
      r.start_line = l.flags & kLineStartMask;
      r.end_line = r.start_line + ((l.flags >> kLineDeltaShift) & kLineDeltaMask);
      if (columns) {
        CvColumn col{};
        (void)cols.read(col);
        r.start_column = col.start;
        r.end_column = col.end;
      }
      out.records.push_back(r);
    }
    s.blocks.push_back(fb);
  }
  out.lines.push_back(std::move(s));
  return {};
}

}  // namespace

const FileChecksum* ModuleLines::checksum(std::uint32_t file_id) const {
  auto it = std::lower_bound(checksums.begin(), checksums.end(), file_id,
                             [](const FileChecksum& f, std::uint32_t id) { return f.file_id < id; });
  return it != checksums.end() && it->file_id == file_id ? &*it : nullptr;
}

Result<ModuleLines> parse_module_stream(const MsfFile& msf, const DbiModule& m, std::size_t index) {
  ModuleLines out;
  if (m.symbol_stream == kNoStream16) return out;
  const Ctx x{msf, m, index};
  auto bytes = msf.read_stream(m.symbol_stream);
  if (!bytes)
    return Error{Errc::kMalformed, format("module %zu (%s): %s", index, m.name.c_str(),
                                          bytes.error().message.c_str())};
  const std::uint64_t total = std::uint64_t(m.symbol_bytes) + m.c11_bytes + m.c13_bytes;
  if (total > bytes->size())
    return Error{Errc::kTruncated,
                 format("module %zu (%s): symbols, C11 and C13 lines of 0x%llx bytes run past its "
                        "0x%zx-byte stream %u", index, m.name.c_str(),
                        static_cast<unsigned long long>(total), bytes->size(), m.symbol_stream)};
  ByteCursor c(*bytes);
  ByteCursor syms, c11, c13;
  (void)c.sub(m.symbol_bytes, syms);
  (void)c.sub(m.c11_bytes, c11);
  (void)c.sub(m.c13_bytes, c13);
  if (m.symbol_bytes != 0) {
    std::uint32_t sig = 0;
    if (!syms.read(sig))
      return Error{Errc::kTruncated, format("%s: symbol substream of %u bytes has no signature",
                                            x.at(0).c_str(), m.symbol_bytes)};
    if (sig != kCvSignatureC13)
      return Error{Errc::kBadVersion, format("%s: symbol signature %u (4, C13, expected)",
                                             x.at(0).c_str(), sig)};
    if (Status s = parse_symbols(x, syms, out); !s) return s.error();
  }
  while (!c13.empty()) {
    const std::size_t pos = c13.abs();
    SubsectionHeader h;
    ByteCursor data;
    if (!c13.read(h))
      return Error{Errc::kTruncated, format("%s: debug subsection header runs past the 0x%x-byte "
                                            "C13 line substream", x.at(pos).c_str(), m.c13_bytes)};
    if (!c13.sub(h.length, data))
      return Error{Errc::kTruncated, format("%s: debug subsection 0x%x of 0x%x bytes overruns the "
                                            "C13 line substream (0x%zx bytes left)",
                                            x.at(pos).c_str(), h.kind, h.length,
                                            c13.remaining())};
    // Subsections start 4-aligned (the last one may end the substream unaligned).
    (void)c13.skip(std::min<std::size_t>((4 - h.length % 4) % 4, c13.remaining()));
    if (h.kind & kDebugSIgnore) continue;
    Status s;
    if (h.kind == kDebugSFileChecksums) s = parse_checksums(x, data, out);
    else if (h.kind == kDebugSLines) s = parse_lines(x, data, out);
    if (!s) return s.error();
  }
  return out;
}

}  // namespace ilmap::msf
