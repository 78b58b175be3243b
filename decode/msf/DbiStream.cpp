// DbiStream.cpp - DBI header, module info records, optional debug header.
#include "decode/msf/DbiStream.h"

#include <algorithm>
#include <cstring>

#include "support/ByteCursor.h"
#include "decode/msf/MsfFile.h"
#include "decode/msf/MsfFormat.h"

namespace ilmap::msf {

Result<DbiStream> DbiStream::parse(const MsfFile& msf) {
  auto bytes = msf.read_stream(kStreamDbi);
  if (!bytes) return Error{Errc::kMalformed, "DBI stream (stream 3): " + bytes.error().message};
  auto at = [&](std::size_t pos) { return "DBI stream " + msf.where(kStreamDbi, pos); };
  ByteCursor c(*bytes);
  DbiStreamHeader h;
  if (!c.read(h))
    return Error{Errc::kTruncated, format("%s: header needs %zu bytes, the stream has %zu",
                                          at(0).c_str(), sizeof h, bytes->size())};
  if (h.version_signature != -1)
    return Error{Errc::kBadVersion, format("%s: signature %d (-1 expected: pre-VC 5 DBI streams "
                                           "are not read)", at(0).c_str(), h.version_signature)};
  if (h.version_header < kDbiVersionV70)
    return Error{Errc::kBadVersion, format("%s: version %u is older than V70 (19990903)",
                                           at(4).c_str(), h.version_header)};
  DbiStream dbi;
  dbi.version_ = h.version_header;
  dbi.age_ = h.age;
  dbi.machine_ = h.machine;

  // The substream sizes, in stream order; each must be non-negative and all must fit.
  const std::int32_t sizes[] = {h.mod_info_size,        h.section_contribution_size,
                                h.section_map_size,     h.source_info_size,
                                h.type_server_map_size, h.ec_substream_size,
                                h.optional_dbg_header_size};
  static constexpr const char* kNames[] = {"module info", "section contribution", "section map",
                                           "file info", "type server map", "EC",
                                           "optional debug header"};
  static constexpr std::size_t kSizeField[] = {24, 28, 32, 36, 40, 56, 52};
  std::uint64_t total = sizeof h;
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    if (sizes[i] < 0)
      return Error{Errc::kMalformed, format("%s: %s substream size %d is negative",
                                            at(kSizeField[i]).c_str(), kNames[i], sizes[i])};
    total += static_cast<std::uint32_t>(sizes[i]);
  }
  if (total != bytes->size())
    return Error{total > bytes->size() ? Errc::kTruncated : Errc::kMalformed,
                 format("%s: header and substreams add up to 0x%llx bytes, the stream has 0x%zx",
                        at(0).c_str(), static_cast<unsigned long long>(total), bytes->size())};

  ByteCursor mods;
  (void)c.sub(static_cast<std::uint32_t>(h.mod_info_size), mods);
  while (!mods.empty()) {
    const std::size_t pos = mods.abs();
    ModInfoHeader m;
    if (!mods.read(m))
      return Error{Errc::kTruncated, format("%s: module record %zu runs past the module info "
                                            "substream", at(pos).c_str(), dbi.modules_.size())};
    DbiModule mod;
    std::string_view name, obj;
    if (!mods.read_cstring(name) || !mods.read_cstring(obj))
      return Error{Errc::kTruncated, format("%s: module record %zu's names are not terminated "
                                            "inside the module info substream", at(pos).c_str(),
                                            dbi.modules_.size())};
    // Records are 4-aligned within the substream (which itself starts 4-aligned at 64).
    const std::size_t pad = (4 - mods.pos() % 4) % 4;
    if (!mods.skip(std::min(pad, mods.remaining())))
      return Error{Errc::kTruncated, format("%s: module record padding", at(pos).c_str())};
    mod.name = std::string(name);
    mod.object_file = std::string(obj);
    mod.symbol_stream = m.module_sym_stream;
    mod.symbol_bytes = m.sym_byte_size;
    mod.c11_bytes = m.c11_byte_size;
    mod.c13_bytes = m.c13_byte_size;
    mod.record_offset = pos;
    dbi.modules_.push_back(std::move(mod));
  }

  // Skip to the optional debug header (the last substream).
  const std::size_t dbg_at = bytes->size() - static_cast<std::uint32_t>(h.optional_dbg_header_size);
  if (h.optional_dbg_header_size >= static_cast<std::int32_t>(2 * (kDbgHeaderTokenRidMap + 1))) {
    std::uint16_t sn;
    std::memcpy(&sn, bytes->data() + dbg_at + 2 * kDbgHeaderTokenRidMap, 2);
    dbi.token_rid_map_ = sn;
  }
  return dbi;
}

}  // namespace ilmap::msf
