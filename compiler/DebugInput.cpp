// DebugInput.cpp - INPUT sniffing and opening; matching a PE with its Portable PDB.
#include "DebugInput.h"

#include <cstring>
#include <filesystem>

#include "Identity.h"

namespace ilmap {
namespace {

Error prefixed(const std::string& path, const Error& e) {
  return Error{e.code, path + ": " + e.message};
}

Status open_standalone(DebugInput& in) {
  auto pdb = PortablePdb::parse(in.file.bytes());
  if (!pdb) return prefixed(in.path, pdb.error());
  in.pdb.emplace(std::move(*pdb));
  in.pdb_path = in.path;
  return {};
}

std::string sibling_path(const std::string& pe_path, const std::string& codeview_path) {
  const std::size_t cut = codeview_path.find_last_of("/\\");
  const std::string name = cut == std::string::npos ? codeview_path : codeview_path.substr(cut + 1);
  if (name.empty()) return {};
  const std::size_t dir = pe_path.find_last_of('/');
  return dir == std::string::npos ? name : pe_path.substr(0, dir + 1) + name;
}

bool id_equals(const PdbId& id, const CodeViewEntry& cv) {
  return id.guid() == cv.guid && id.stamp() == cv.stamp;
}

// Tries the sibling named by `cv`. Returns true on a match (in.sibling/in.pdb set). Records
// a mismatch or the first error for the final message.
bool try_sibling(DebugInput& in, const CodeViewEntry& cv, bool& mismatched, Status& first_error) {
  const std::string p = sibling_path(in.path, cv.path);
  std::error_code ec;
  if (p.empty() || !std::filesystem::is_regular_file(p, ec)) return false;
  auto file = FileBytes::open(p);
  if (!file) {
    if (first_error.ok()) first_error = prefixed(p, file.error());
    return false;
  }
  const auto bytes = file->bytes();
  if (sniff_input(bytes) != InputKind::kPortablePdb) {
    const bool msf = bytes.size() >= 24 && std::memcmp(bytes.data(), "Microsoft C/C++ MSF 7.00", 24) == 0;
    if (first_error.ok())
      first_error = Error{msf ? Errc::kUnsupported : Errc::kBadMagic,
                          p + (msf ? ": is a Windows (MSF) PDB; only Portable PDBs are supported"
                                   : ": sibling PDB is not a Portable PDB (no BSJB signature)")};
    return false;
  }
  auto pdb = PortablePdb::parse(bytes);
  if (!pdb) {
    if (first_error.ok()) first_error = prefixed(p, pdb.error());
    return false;
  }
  if (!pdb->has_pdb_stream() || !id_equals(pdb->id(), cv)) {
    mismatched = true;
    const std::string have = pdb->has_pdb_stream()
        ? portable_debug_id(pdb->id().guid(), pdb->id().stamp()) : std::string("none (no #Pdb stream)");
    in.notes.push_back(format("sibling %s has PDB id %s; CodeView entry %u wants %s", p.c_str(),
                              have.c_str(), cv.index, portable_debug_id(cv.guid, cv.stamp).c_str()));
    return false;
  }
  in.sibling = std::move(*file);
  in.pdb.emplace(std::move(*pdb));  // views the mmap, which the move kept in place
  in.pdb_path = p;
  in.source = PdbSource::kSibling;
  return true;
}

Status open_pe(DebugInput& in, const DebugInputOptions& options) {
  auto pe = PeFile::parse(in.file.bytes(), options.pe);
  if (!pe) return prefixed(in.path, pe.error());
  in.pe = pe->info();
  const PeInfo& info = *in.pe;
  bool mismatched = false;
  Status first_error;
  bool found = false;
  for (std::size_t i = 0; i < info.codeview.size() && !found; ++i) {
    if (!info.codeview[i].portable()) continue;
    if (try_sibling(in, info.codeview[i], mismatched, first_error)) {
      in.matched_codeview_index = static_cast<int>(i);
      found = true;
    }
  }
  if (!found && info.embedded_pdb) {
    auto bytes = pe->inflate_embedded_pdb();
    if (!bytes) return prefixed(in.path, bytes.error());
    in.inflated = std::move(*bytes);
    auto pdb = PortablePdb::parse(in.inflated);
    if (!pdb) return prefixed(in.path, Error{pdb.error().code, "embedded PDB: " + pdb.error().message});
    in.pdb.emplace(std::move(*pdb));
    in.source = PdbSource::kEmbedded;
    found = true;
  }
  if (!found) {
    in.source = PdbSource::kNone;
    Error e;
    if (mismatched) {
      e = Error{Errc::kMismatch, in.path + ": no matching debug information: " + in.notes.front()};
    } else if (!first_error.ok()) {
      e = first_error.error();
    } else {
      bool windows = false;
      for (const CodeViewEntry& cv : info.codeview) windows |= !cv.portable();
      e = Error{Errc::kNotFound, in.path + ": no matching debug information" +
                                     std::string(windows ? " (the PE names a Windows PDB only)" : "")};
    }
    if (!options.allow_missing_pdb) return e;
    in.pdb_status = e;
    return {};
  }
  if (in.pdb->has_pdb_stream()) {
    const PdbId id = in.pdb->id();
    for (const CodeViewEntry& cv : info.codeview) {
      if (cv.portable()) {
        in.embedded_id_matches_codeview = in.source == PdbSource::kEmbedded && id_equals(id, cv);
        break;
      }
    }
    in.pe->checksum_verdict = verify_pdb_checksums(info.checksums, in.pdb->bytes(),
                                                   in.pdb->metadata().pdb_stream_offset(),
                                                   &in.pe->checksum_each);
    if (in.pe->checksum_verdict == ChecksumVerdict::kMismatch)
      in.checksum_status = Error{Errc::kChecksum, in.path + ": no PdbChecksum entry matches the " +
                                                      pdb_source_name(in.source) + " PDB"};
  }
  return {};
}

}  // namespace

InputKind sniff_input(std::span<const std::uint8_t> head) {
  if (head.size() >= 4 && std::memcmp(head.data(), "BSJB", 4) == 0) return InputKind::kPortablePdb;
  if (head.size() >= 2 && head[0] == 'M' && head[1] == 'Z') return InputKind::kPe;
  if (head.size() >= 8 && std::memcmp(head.data() + 4, "ILMP", 4) == 0) return InputKind::kCache;
  return InputKind::kUnknown;
}

const char* pdb_source_name(PdbSource s) noexcept {
  switch (s) {
    case PdbSource::kStandalone: return "standalone";
    case PdbSource::kSibling: return "sibling";
    case PdbSource::kEmbedded: return "embedded";
    case PdbSource::kNone: return "none";
  }
  return "unknown";
}

const CodeViewEntry* DebugInput::matched_codeview() const {
  if (!pe) return nullptr;
  if (matched_codeview_index >= 0) return &pe->codeview[static_cast<std::size_t>(matched_codeview_index)];
  for (const CodeViewEntry& cv : pe->codeview)
    if (cv.portable()) return &cv;
  return nullptr;
}

Result<std::unique_ptr<DebugInput>> open_debug_input(const std::string& path) {
  return open_debug_input(path, DebugInputOptions{});
}

Result<std::unique_ptr<DebugInput>> open_debug_input(const std::string& path,
                                                     const DebugInputOptions& options) {
  auto file = FileBytes::open(path);
  if (!file) return file.error();
  auto in = std::make_unique<DebugInput>();
  in->path = path;
  in->file = std::move(*file);
  const auto bytes = in->file.bytes();
  switch (sniff_input(bytes)) {
    case InputKind::kPortablePdb:
      if (Status s = open_standalone(*in); !s) return s.error();
      return in;
    case InputKind::kPe:
      if (Status s = open_pe(*in, options); !s) return s.error();
      return in;
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
