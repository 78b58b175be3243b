// PdbInfoStream.cpp - the PDB info stream's header and named-stream map; /names.
#include "decode/msf/PdbInfoStream.h"
#include "support/Ascii.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "support/ByteCursor.h"
#include "decode/msf/MsfFile.h"
#include "decode/msf/MsfFormat.h"

namespace ilmap::msf {

Result<PdbInfoStream> PdbInfoStream::parse(const MsfFile& msf) {
  auto bytes = msf.read_stream(kStreamPdbInfo);
  if (!bytes) return Error{Errc::kMalformed, "PDB info stream (stream 1): " + bytes.error().message};
  ByteCursor c(*bytes);
  auto at = [&](std::size_t pos) { return "PDB info stream " + msf.where(kStreamPdbInfo, pos); };
  PdbStreamHeader h;
  if (!c.read(h))
    return Error{Errc::kTruncated, format("%s: header needs %zu bytes, the stream has %zu",
                                          at(0).c_str(), sizeof h, bytes->size())};
  PdbInfoStream info;
  info.version_ = h.version;
  info.signature_ = h.signature;
  info.age_ = h.age;
  std::memcpy(info.guid_.data(), h.guid, 16);
  // Versions before VC70 (1999) have no GUID; every managed PDB writer wrote VC70.
  if (h.version < kPdbVersionVc70)
    return Error{Errc::kBadVersion, format("%s: version %u is older than VC70 (20000404) and has "
                                           "no GUID", at(0).c_str(), h.version)};

  // Named-stream map: string buffer, then the hash table.
  std::uint32_t strings_size = 0;
  ByteCursor strings;
  const std::size_t strings_at = c.pos() + 4;
  if (!c.read(strings_size) || !c.sub(strings_size, strings))
    return Error{Errc::kTruncated, format("%s: named-stream map's string buffer of %u bytes runs "
                                          "past the stream", at(strings_at - 4).c_str(),
                                          strings_size)};
  std::uint32_t size = 0, capacity = 0;
  const std::size_t table_at = c.pos();
  if (!c.read(size) || !c.read(capacity))
    return Error{Errc::kTruncated, format("%s: named-stream hash table header is truncated",
                                          at(table_at).c_str())};
  if (size > capacity)
    return Error{Errc::kMalformed, format("%s: named-stream hash table holds %u entries in %u "
                                          "buckets", at(table_at).c_str(), size, capacity)};
  auto read_bits = [&](const char* which, std::vector<std::uint32_t>& words) -> Status {
    const std::size_t pos = c.pos();
    std::uint32_t n = 0;
    if (!c.read(n) || n > c.remaining() / 4)
      return Status(Errc::kTruncated, format("%s: named-stream %s bit vector runs past the stream",
                                             at(pos).c_str(), which));
    words.resize(n);
    for (auto& w : words) (void)c.read(w);
    return {};
  };
  std::vector<std::uint32_t> present, deleted;
  if (Status s = read_bits("present", present); !s) return s.error();
  if (Status s = read_bits("deleted", deleted); !s) return s.error();
  std::uint64_t count = 0;
  for (std::size_t w = 0; w < present.size(); ++w) {
    if (present[w] == 0) continue;
    count += static_cast<unsigned>(std::popcount(present[w]));
    const std::uint64_t top = w * 32 + 31 - static_cast<unsigned>(std::countl_zero(present[w]));
    if (top >= capacity)
      return Error{Errc::kMalformed, format("%s: named-stream bucket %llu is present but the table "
                                            "has %u buckets", at(table_at).c_str(),
                                            static_cast<unsigned long long>(top), capacity)};
  }
  if (count != size)
    return Error{Errc::kMalformed, format("%s: named-stream hash table says %u entries, %llu "
                                          "buckets are present", at(table_at).c_str(), size,
                                          static_cast<unsigned long long>(count))};
  for (std::uint32_t i = 0; i < size; ++i) {
    const std::size_t pos = c.pos();
    std::uint32_t key = 0, value = 0;
    if (!c.read(key) || !c.read(value))
      return Error{Errc::kTruncated, format("%s: named-stream entry %u of %u runs past the stream",
                                            at(pos).c_str(), i, size)};
    ByteCursor s = strings;
    std::string_view name;
    if (!s.seek(key) || !s.read_cstring(name))
      return Error{Errc::kMalformed, format("%s: named-stream entry %u names string offset 0x%x, "
                                            "outside the %u-byte string buffer or unterminated",
                                            at(pos).c_str(), i, key, strings_size)};
    info.named_.push_back({std::string(name), value});
  }
  return info;
}

std::optional<std::uint32_t> PdbInfoStream::find(std::string_view name) const {
  const std::string key = ascii_lower(name);
  for (const NamedStream& n : named_)
    if (ascii_lower(n.name) == key) return n.stream;
  return std::nullopt;
}

Result<StringTable> StringTable::parse(const MsfFile& msf, std::uint32_t stream) {
  auto bytes = msf.read_stream(stream);
  if (!bytes)
    return Error{Errc::kMalformed, "/names string table: " + bytes.error().message};
  StringTable t;
  t.stream_ = stream;
  ByteCursor c(*bytes);
  StringTableHeader h;
  if (!c.read(h))
    return Error{Errc::kTruncated, format("/names string table %s: header needs %zu bytes, the "
                                          "stream has %zu", msf.where(stream, 0).c_str(), sizeof h,
                                          bytes->size())};
  if (h.signature != kStringTableSignature)
    return Error{Errc::kBadMagic, format("/names string table %s: signature 0x%08x, expected "
                                         "0xeffeeffe", msf.where(stream, 0).c_str(), h.signature)};
  if (h.hash_version != 1 && h.hash_version != 2)
    return Error{Errc::kBadVersion, format("/names string table %s: hash version %u (1 or 2 "
                                           "expected)", msf.where(stream, 4).c_str(),
                                           h.hash_version)};
  if (h.byte_size > c.remaining())
    return Error{Errc::kTruncated, format("/names string table %s: string buffer of 0x%x bytes "
                                          "runs past the 0x%zx-byte stream",
                                          msf.where(stream, 8).c_str(), h.byte_size,
                                          bytes->size())};
  // The hash buckets and the name count that follow are not needed: names are looked up by
  // offset.
  t.begin_ = c.pos();
  t.size_ = h.byte_size;
  t.bytes_ = std::move(*bytes);
  return t;
}

std::optional<std::string_view> StringTable::at(std::uint32_t offset) const {
  if (offset >= size_) return std::nullopt;
  const auto* p = reinterpret_cast<const char*>(bytes_.data() + begin_);
  const void* z = std::memchr(p + offset, 0, size_ - offset);
  if (!z) return std::nullopt;
  return std::string_view(p + offset, static_cast<std::size_t>(static_cast<const char*>(z) - (p + offset)));
}

}  // namespace ilmap::msf
