// SymstoreKeys.cpp - SSQP keys, debug/code ids and the SymbolChecksum header (see SymstoreKeys.h).
#include "decode/SymstoreKeys.h"

#include "ilmap/status.h"

namespace ilmap {

std::string hex_lower(std::span<const std::uint8_t> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    s.push_back(kHex[b >> 4]);
    s.push_back(kHex[b & 15]);
  }
  return s;
}

std::string symstore_file_name(std::string_view path) {
  const std::size_t cut = path.find_last_of("/\\");
  std::string name(cut == std::string_view::npos ? path : path.substr(cut + 1));
  for (char& c : name)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return name;
}

std::string ssqp_portable_pdb_key(std::string_view pdb_path, const Guid& guid) {
  const std::string file = symstore_file_name(pdb_path);
  return file + '/' + guid_to_n(guid) + "FFFFFFFF/" + file;
}

std::string ssqp_windows_pdb_key(std::string_view pdb_path, const Guid& guid, std::uint32_t age) {
  const std::string file = symstore_file_name(pdb_path);
  return file + '/' + guid_to_n(guid) + format("%x", age) + '/' + file;
}

std::string msfz_pdb_file_name(std::string_view pdb_path) {
  std::string file = symstore_file_name(pdb_path);
  if (file.size() > 4 && file.ends_with(".pdz")) file.back() = 'b';
  return file;
}

std::string ssqp_msfz_pdb_key(std::string_view pdb_path, const Guid& guid, std::uint32_t age) {
  const std::string file = msfz_pdb_file_name(pdb_path);
  return file + '/' + guid_to_n(guid) + format("%x", age) + "/" + kMsfzKeyKind + "/" + file;
}

std::string ssqp_msym_key(std::string_view msym_path, std::string_view aot_id) {
  const std::string file = symstore_file_name(msym_path);
  return file + '/' + symstore_file_name(aot_id) + '/' + file;
}

std::string windows_debug_id(const Guid& guid, std::uint32_t age) {
  return guid_to_text(guid) + format("-%x", age);
}

std::string pe_code_id(std::uint32_t timestamp, std::uint32_t size_of_image) {
  return format("%08X%x", timestamp, size_of_image);
}

std::string ssqp_pe_key(std::string_view pe_path, std::uint32_t timestamp,
                        std::uint32_t size_of_image) {
  const std::string file = symstore_file_name(pe_path);
  return file + '/' + pe_code_id(timestamp, size_of_image) + '/' + file;
}

std::string portable_debug_id(const Guid& guid, std::uint32_t stamp) {
  return guid_to_text(guid) + format("-%08x", stamp);
}

bool is_header_token(std::string_view s) noexcept {
  if (s.empty() || s.size() > kMaxHeaderToken) return false;
  for (unsigned char c : s) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos) return false;
  }
  return true;
}

std::string symbol_checksum_header(std::span<const PdbChecksum> sums) {
  std::string out;
  for (const PdbChecksum& s : sums) {
    // The algorithm name comes from the PE and goes into a request header: only a token.
    if (!is_header_token(s.algorithm)) continue;
    if (!out.empty()) out.push_back(';');
    out += s.algorithm;
    out.push_back(':');
    out += hex_lower(s.hash);
  }
  return out;
}

}  // namespace ilmap
