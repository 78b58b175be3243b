// ModuleIdentity.cpp - SSQP keys of files and of the PDBs a PE names (see ModuleIdentity.h).
#include "symbols/ModuleIdentity.h"

#include <algorithm>
#include <cstring>

#include "decode/SymstoreKeys.h"
#include "decode/PortablePdb.h"
#include "decode/msf/DbiStream.h"
#include "decode/msf/MsfFile.h"
#include "decode/msf/PdbInfoStream.h"
#include "decode/msf/MsfPdb.h"

namespace ilmap::symbols {

Result<ModuleIdentity> identify_file(std::string_view path, std::span<const std::uint8_t> bytes) {
  ModuleIdentity id;
  id.file_name = symstore_file_name(path);
  if (bytes.size() >= 2 && bytes[0] == 'M' && bytes[1] == 'Z') {
    PeOptions po;
    po.embedded_pdb_errors_fatal = false;  // the PE's own identity does not depend on it
    auto pe = PeFile::parse(bytes, po);
    if (!pe) return pe.error();
    id.kind = ModuleKind::kPe;
    id.key = ssqp_pe_key(path, pe->info().timestamp, pe->info().size_of_image);
    return id;
  }
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "BSJB", 4) == 0) {
    auto pdb = PortablePdb::parse(bytes);
    if (!pdb) return pdb.error();
    const PdbId pid = pdb->id();
    id.kind = ModuleKind::kPortablePdb;
    id.key = ssqp_portable_pdb_key(path, pid.guid());
    id.pdb_id = pid.bytes;
    return id;
  }
  if (msf::MsfFile::has_magic(bytes)) {
    auto pdb = msf::MsfPdb::parse(bytes);
    if (!pdb) return pdb.error();
    id.kind = ModuleKind::kWindowsPdb;
    if (pdb->msf().is_msfz()) {
      id.file_name = msfz_pdb_file_name(path);
      id.key = ssqp_msfz_pdb_key(path, pdb->guid(), pdb->age());
    } else {
      id.key = ssqp_windows_pdb_key(path, pdb->guid(), pdb->age());
    }
    return id;
  }
  return Error{Errc::kBadMagic, std::string(path) + ": not a PE (MZ), a Portable PDB (BSJB) or a Windows PDB (MSF 7.00 or MSFZ)"};
}

Result<PdbFileId> read_pdb_id(std::span<const std::uint8_t> bytes) {
  PdbFileId out;
  if (msf::MsfFile::has_magic(bytes)) {
    auto msf = msf::MsfFile::parse(bytes);
    if (!msf) return msf.error();
    auto info = msf::PdbInfoStream::parse(*msf);
    if (!info) return info.error();
    auto dbi = msf::DbiStream::parse(*msf);
    if (!dbi) return dbi.error();
    out.id = PdbId::of(info->guid(), dbi->age()).bytes;
    out.windows = true;
    return out;
  }
  auto pdb = PortablePdb::parse(bytes);
  if (!pdb) return pdb.error();
  if (!pdb->has_pdb_stream()) return Error{Errc::kMalformed, "no #Pdb stream"};
  out.id = pdb->id().bytes;
  return out;
}

ModuleIdentity msym_identity(std::string_view pe_file_name, std::string_view aot_id) {
  ModuleIdentity id;
  id.kind = ModuleKind::kMsym;
  id.file_name = symstore_file_name(std::string(pe_file_name) + ".msym");
  id.key = ssqp_msym_key(id.file_name, aot_id);
  return id;
}

std::vector<ModuleIdentity> pdbs_wanted_by(const PeInfo& pe) {
  std::vector<ModuleIdentity> out;
  for (const CodeViewEntry& cv : pe.codeview) {
    ModuleIdentity id;
    id.file_name = symstore_file_name(cv.path);
    if (id.file_name.empty()) continue;
    if (cv.portable()) {
      id.kind = ModuleKind::kPortablePdb;
      id.key = ssqp_portable_pdb_key(cv.path, cv.guid);
      id.pdb_id = PdbId::of(cv.guid, cv.stamp).bytes;
      id.checksums = pe.checksums;
      id.symbol_checksum = symbol_checksum_header(pe.checksums);
    } else {
      id.kind = ModuleKind::kWindowsPdb;
      id.key = ssqp_windows_pdb_key(cv.path, cv.guid, cv.age);
    }
    if (std::none_of(out.begin(), out.end(), [&](const ModuleIdentity& o) { return o.key == id.key; }))
      out.push_back(std::move(id));
  }
  return out;
}

// "msfz" and a version number, as dotnet/diagnostics names the MSFZ container in keys ("msfz0").
bool is_container_kind(std::string_view part) {
  if (part.size() < 5 || part.size() > 8) return false;
  if (!(part.substr(0, 4) == "msfz" || part.substr(0, 4) == "MSFZ")) return false;
  return std::all_of(part.begin() + 4, part.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Status validate_key(std::string_view key) {
  auto bad = [&](const char* why) {
    return Status(Errc::kUsage, format("invalid symbol-store key '%.*s': %s", static_cast<int>(std::min<std::size_t>(key.size(), 1024)), key.data(), why));
  };
  if (key.empty()) return bad("empty");
  if (key.size() > 1024) return bad("longer than 1024 bytes");
  for (unsigned char c : key) {
    if (c < 0x20 || c == 0x7f) return bad("control character");
    if (c == '\\') return bad("backslash (keys use '/')");
  }
  std::size_t parts = 0, start = 0;
  bool third_is_kind = false;
  while (true) {
    const std::size_t slash = key.find('/', start);
    const std::string_view part = key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty()) return bad("empty component");
    if (part == "." || part == "..") return bad("'.' or '..' component");
    ++parts;
    if (parts == 3) third_is_kind = is_container_kind(part);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  // A PDB in another container than MSF has its kind as a third component (SymstoreKeys.h).
  if (parts != 3 && !(parts == 4 && third_is_kind)) return bad("not of the form file/id/file or file/id/msfzN/file");
  return {};
}

std::string cache_key_for(std::string_view pdb_key) {
  const std::size_t slash = pdb_key.rfind('/');
  std::string dir(pdb_key.substr(0, slash + 1));
  std::string name(pdb_key.substr(slash + 1));
  const std::size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name.resize(dot);
  return dir + name + ".ilmap";
}

bool key_equal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

}  // namespace ilmap::symbols
