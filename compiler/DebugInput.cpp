// DebugInput.cpp - INPUT sniffing and opening.
#include "DebugInput.h"

#include <cstring>

namespace ilmap {

InputKind sniff_input(std::span<const std::uint8_t> head) {
  if (head.size() >= 4 && std::memcmp(head.data(), "BSJB", 4) == 0) return InputKind::kPortablePdb;
  if (head.size() >= 2 && head[0] == 'M' && head[1] == 'Z') return InputKind::kPe;
  if (head.size() >= 8 && std::memcmp(head.data() + 4, "ILMP", 4) == 0) return InputKind::kCache;
  return InputKind::kUnknown;
}

Result<std::unique_ptr<DebugInput>> open_debug_input(const std::string& path) {
  auto file = FileBytes::open(path);
  if (!file) return file.error();
  auto in = std::make_unique<DebugInput>();
  in->path = path;
  in->file = std::move(*file);
  const auto bytes = in->file.bytes();
  switch (sniff_input(bytes)) {
    case InputKind::kPortablePdb: {
      auto pdb = PortablePdb::parse(bytes);
      if (!pdb) return Error{pdb.error().code, path + ": " + pdb.error().message};
      in->pdb.emplace(std::move(*pdb));
      in->pdb_path = path;
      return in;
    }
    case InputKind::kPe:
      return Error{Errc::kUnsupported, path + ": PE input is not supported yet"};
    case InputKind::kCache:
      return Error{Errc::kUsage, path + ": is an ilmap cache, not a PDB or PE"};
    case InputKind::kUnknown:
      break;
  }
  if (bytes.size() >= 32 && std::memcmp(bytes.data(), "Microsoft C/C++ MSF 7.00", 24) == 0)
    return Error{Errc::kUnsupported, path + ": is a Windows (MSF) PDB; only Portable PDBs are supported"};
  return Error{Errc::kBadMagic, format("%s: not a Portable PDB (BSJB), a PE (MZ) or an ilmap cache (first bytes %s)", path.c_str(), bytes.size() >= 4 ? "unrecognised" : "missing")};
}

}  // namespace ilmap
