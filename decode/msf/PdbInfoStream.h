// PdbInfoStream.h - stream 1 (version, signature, age, GUID, named-stream map) and the /names
// string table.
//
// Sources: LLVM docs/PDB/PdbStream.rst ("Named Stream Map"), HashTable.rst (the serialized hash
// table: size, capacity, present and deleted bit vectors, then one key/value pair per present
// bucket), StringTable.rst (/names). Named-stream lookups ignore ASCII case, as the managed
// reader of Microsoft.Cci.Pdb does (it upper-cases both sides).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "decode/Guids.h"
#include "ilmap/status.h"

namespace ilmap::msf {

class MsfFile;



struct NamedStream {
  std::string name;       // verbatim bytes of the map's string buffer
  std::uint32_t stream = 0;
};

class PdbInfoStream {
 public:
  static Result<PdbInfoStream> parse(const MsfFile& msf);

  std::uint32_t version() const { return version_; }
  std::uint32_t signature() const { return signature_; }
  std::uint32_t age() const { return age_; }
  const Guid& guid() const { return guid_; }
  // In the order of the hash table's buckets.
  const std::vector<NamedStream>& named_streams() const { return named_; }
  // Stream index of `name` (ASCII case ignored), nullopt when absent.
  std::optional<std::uint32_t> find(std::string_view name) const;

 private:
  std::uint32_t version_ = 0, signature_ = 0, age_ = 0;
  Guid guid_{};
  std::vector<NamedStream> named_;
};

// /names: a string buffer addressed by byte offset (DEBUG_S_FILECHKSMS names point into it).
class StringTable {
 public:
  // `stream` is the index of /names in `msf`; the bytes are kept.
  static Result<StringTable> parse(const MsfFile& msf, std::uint32_t stream);
  // The NUL-terminated string at `offset`; nullopt when the offset is outside the buffer or the
  // string has no terminator inside it.
  std::optional<std::string_view> at(std::uint32_t offset) const;
  std::uint32_t stream() const { return stream_; }

 private:
  std::uint32_t stream_ = 0;
  std::vector<std::uint8_t> bytes_;  // the whole stream
  std::size_t begin_ = 0, size_ = 0; // the string buffer within it
};

}  // namespace ilmap::msf
