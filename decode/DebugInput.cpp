// DebugInput.cpp - INPUT sniffing and opening; matching a PE with its Portable PDB.
#include "decode/DebugInput.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "decode/SymstoreKeys.h"
#include "support/Platform.h"

namespace ilmap {
namespace {

Error prefixed(const std::string& path, const Error& e) {
  return Error{e.code, path + ": " + e.message};
}

Status open_standalone_msf(DebugInput& in) {
  auto pdb = msf::MsfPdb::parse(in.file.bytes());
  if (!pdb) return prefixed(in.path, pdb.error());
  in.msf.emplace(std::move(*pdb));
  in.pdb_path = in.path;
  return {};
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

// <dir of PE>/<PE file name with its extension replaced by .pdb>.
std::string same_name_pdb(const std::string& pe_path) {
  const std::size_t slash = pe_path.find_last_of('/');
  const std::size_t dot = pe_path.find_last_of('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
  return (has_ext ? pe_path.substr(0, dot) : pe_path) + ".pdb";
}

// "Foo.pdz" for "Foo.pdb" (the extension's case kept); "" for another name. The same Windows
// PDB in an MSFZ container, kept by users and tools under the .pdb's stem.
std::string pdz_of(const std::string& pdb_path) {
  const std::size_t n = pdb_path.size();
  if (n < 5 || pdb_path[n - 4] != '.' || pdb_path[n - 5] == '/') return {};
  const std::string ext = pdb_path.substr(n - 3);
  if (ext != "pdb" && ext != "PDB" && ext != "Pdb") return {};
  return pdb_path.substr(0, n - 1) + (ext.back() == 'B' ? "Z" : "z");
}

bool id_equals(const PdbId& id, const CodeViewEntry& cv) {
  return id.guid() == cv.guid && id.stamp() == cv.stamp;
}

// The search for a PE's PDB: every file tried, why it was rejected, and the worst class.
struct Search {
  std::vector<std::string> tried;   // "PATH (why)"
  MissingPdb worst = MissingPdb::kNotPresent;
  Status bad;                       // first corrupt candidate's error
  void reject(const std::string& path, const std::string& why, MissingPdb cls) {
    tried.push_back(path + " (" + why + ")");
    if (cls == MissingPdb::kMismatch) worst = MissingPdb::kMismatch;
    else if (cls == MissingPdb::kBad && worst != MissingPdb::kMismatch) worst = MissingPdb::kBad;
  }
};

// A Windows PDB candidate: accepted when its GUID and DBI age equal a CodeView entry's. A
// Portable entry counts too: a PDB converted from Portable to Windows (Pdb2Pdb, symbol servers
// serving old debuggers) keeps the GUID, has age 1, and the PE still says Portable.
bool try_msf_candidate(DebugInput& in, const std::string& p, FileBytes& file, Search& search) {
  auto pdb = msf::MsfPdb::parse(file.bytes());
  if (!pdb) {
    search.reject(p, "corrupt Windows PDB: " + pdb.error().message, MissingPdb::kBad);
    if (search.bad.ok()) search.bad = prefixed(p, pdb.error());
    return false;
  }
  const std::vector<CodeViewEntry>& cvs = in.pe->codeview;
  int match = -1;
  for (std::size_t i = 0; i < cvs.size() && match < 0; ++i)
    if (cvs[i].guid == pdb->guid() && cvs[i].age == pdb->age()) match = static_cast<int>(i);
  if (match < 0) {
    const std::string have = windows_debug_id(pdb->guid(), pdb->age());
    std::string want;
    for (const CodeViewEntry& cv : cvs) {
      want = format("CodeView entry %u wants %s", cv.index, windows_debug_id(cv.guid, cv.age).c_str());
      if (!cv.portable()) break;
    }
    if (want.empty()) want = "the PE has no CodeView entry";
    search.reject(p, "has Windows PDB id " + have + ", " + want, MissingPdb::kMismatch);
    in.notes.push_back(p + " has Windows PDB id " + have + "; " + want);
    return false;
  }
  in.sibling = std::move(file);
  in.msf.emplace(std::move(*pdb));  // views the mmap, which the move kept in place
  in.pdb_path = p;
  in.source = PdbSource::kSibling;
  in.matched_codeview_index = match;
  return true;
}

// Tries the PDB file `p`: accepted when its id equals a Portable CodeView entry's GUID and stamp
// (or, with `windows`, set when windows_pdbs is on and the PE has a CodeView entry, any entry's:
// a Windows PDB by GUID + age, a Portable PDB by GUID + stamp, whatever kind the entry names).
// Returns true on a match (in.sibling/in.pdb or in.msf/in.matched_codeview_index set).
bool try_candidate(DebugInput& in, const std::string& p, Search& search, bool windows) {
  std::error_code ec;
  if (!std::filesystem::exists(platform::fs_path(p), ec)) {
    search.reject(p, "missing", MissingPdb::kNotPresent);
    return false;
  }
  if (!std::filesystem::is_regular_file(platform::fs_path(p), ec)) {
    search.reject(p, "not a regular file", MissingPdb::kNotPresent);
    return false;
  }
  auto file = FileBytes::open(p);
  if (!file && file.error().code == Errc::kBadMagic) {  // FileBytes checks the first bytes
    search.reject(p, "not a Portable PDB", MissingPdb::kNotPresent);
    return false;
  }
  if (!file) {
    search.reject(p, file.error().message, MissingPdb::kBad);
    if (search.bad.ok()) search.bad = file.error();
    return false;
  }
  const auto bytes = file->bytes();
  if (windows && is_windows_pdb(bytes)) return try_msf_candidate(in, p, *file, search);
  if (sniff_input(bytes) != InputKind::kPortablePdb) {
    search.reject(p, is_windows_pdb(bytes) ? "a Windows (MSF) PDB, not a Portable PDB" : "not a Portable PDB",
                  MissingPdb::kNotPresent);
    return false;
  }
  auto pdb = PortablePdb::parse(bytes);
  if (!pdb) {
    search.reject(p, "corrupt Portable PDB: " + pdb.error().message, MissingPdb::kBad);
    if (search.bad.ok()) search.bad = prefixed(p, pdb.error());
    return false;
  }
  // Portable entries first; then, with `windows`, the others: a Portable PDB converted from a
  // Windows one (Pdb2Pdb) takes the entry's GUID and stamp as its id, and the PE still names a
  // Windows PDB.
  const std::vector<CodeViewEntry>& cvs = in.pe->codeview;
  int match = -1;
  for (int pass = 0; pass < (windows ? 2 : 1) && match < 0 && pdb->has_pdb_stream(); ++pass)
    for (std::size_t i = 0; i < cvs.size() && match < 0; ++i)
      if (cvs[i].portable() == (pass == 0) && id_equals(pdb->id(), cvs[i])) match = static_cast<int>(i);
  if (match < 0) {
    const std::string have = pdb->has_pdb_stream()
        ? portable_debug_id(pdb->id().guid(), pdb->id().stamp()) : std::string("none (no #Pdb stream)");
    std::string want;  // a Portable entry's id, else (with `windows`) another entry's as a Portable id
    for (const CodeViewEntry& cv : cvs) {
      if (!cv.portable() && !windows) continue;
      want = format("CodeView entry %u wants %s", cv.index, portable_debug_id(cv.guid, cv.stamp).c_str());
      if (cv.portable()) break;
    }
    if (want.empty()) want = "the PE has no Portable CodeView entry";
    search.reject(p, "has PDB id " + have + ", " + want, MissingPdb::kMismatch);
    in.notes.push_back(p + " has PDB id " + have + "; " + want);
    return false;
  }
  in.sibling = std::move(*file);
  in.pdb.emplace(std::move(*pdb));  // views the mmap, which the move kept in place
  in.pdb_path = p;
  in.source = PdbSource::kSibling;
  in.matched_codeview_index = match;
  return true;
}

Status open_pe(DebugInput& in, const DebugInputOptions& options) {
  auto pe = PeFile::parse(in.file.bytes(), options.pe);
  if (!pe) return prefixed(in.path, pe.error());
  in.pe = pe->info();
  const PeInfo& info = *in.pe;
  bool any_portable = false, any_windows = false;
  for (const CodeViewEntry& cv : info.codeview) {
    any_portable |= cv.portable();
    any_windows |= options.windows_pdbs && !cv.portable();
  }
  // Windows PDBs are candidates for every CodeView entry, Portable ones included (converted PDBs).
  const bool msf_candidates = options.windows_pdbs && !info.codeview.empty();
  Search search;
  bool found = false;
  if (!options.pdb.empty()) {
    found = try_candidate(in, options.pdb, search, msf_candidates);
  } else {
    if (info.embedded_pdb) {
      auto bytes = pe->inflate_embedded_pdb();
      if (!bytes) return prefixed(in.path, bytes.error());
      in.inflated = std::move(*bytes);
      auto pdb = PortablePdb::parse(in.inflated);
      if (!pdb) return prefixed(in.path, Error{pdb.error().code, "embedded PDB: " + pdb.error().message});
      in.pdb.emplace(std::move(*pdb));
      in.source = PdbSource::kEmbedded;
      found = true;
    } else if (any_portable) {
      search.tried.push_back("embedded PDB (none)");
    }
    // Candidate files, each tried once, in order.
    std::vector<std::string> candidates;
    auto add = [&](const std::string& p) {
      if (!p.empty() && std::find(candidates.begin(), candidates.end(), p) == candidates.end()) candidates.push_back(p);
    };
    if (any_portable || any_windows) {
      for (const CodeViewEntry& cv : info.codeview) {
        if (!cv.portable() && !any_windows) continue;
        if (cv.path.starts_with('/')) add(cv.path);
        add(sibling_path(in.path, cv.path));
      }
      add(same_name_pdb(in.path));
    }
    for (std::size_t i = 0; i < candidates.size() && !found; ++i) {
      found = try_candidate(in, candidates[i], search, msf_candidates);
      // With Windows PDBs, Foo.pdz stands in for Foo.pdb when one is there and Foo.pdb did not
      // match (absent, or another id); an absent .pdz is not listed among the files tried.
      std::error_code ec;
      const std::string pdz = msf_candidates && !found ? pdz_of(candidates[i]) : std::string();
      if (!pdz.empty() && std::filesystem::exists(platform::fs_path(pdz), ec) &&
          std::find(candidates.begin(), candidates.end(), pdz) == candidates.end())
        found = try_candidate(in, pdz, search, true);
    }
  }
  if (!found) {
    in.source = PdbSource::kNone;
    Error e;
    if (!options.pdb.empty() || any_portable || any_windows || info.embedded_pdb) {
      in.missing = search.worst;
      std::string tried;
      for (const std::string& t : search.tried) tried += (tried.empty() ? "" : ", ") + t;
      const Errc code = search.worst == MissingPdb::kMismatch ? Errc::kMismatch
                        : search.worst == MissingPdb::kBad    ? search.bad.code()
                                                              : Errc::kNotFound;
      e = Error{code, in.path + ": no matching debug information; tried: " + tried};
    } else {
      in.missing = MissingPdb::kNoDebugInfo;
      bool windows = false;
      for (const CodeViewEntry& cv : info.codeview) windows |= !cv.portable();
      e = Error{Errc::kNotFound,
                in.path + ": no matching debug information" +
                    std::string(windows ? " (the PE names a Windows PDB only)"
                                        : info.managed ? " (no CodeView entry and no embedded PDB)"
                                                       : " (a native PE without a CLI header)")};
    }
    if (!options.allow_missing_pdb) return e;
    in.pdb_status = e;
    return {};
  }
  if (in.pdb && in.pdb->has_pdb_stream()) {
    const PdbId id = in.pdb->id();
    for (const CodeViewEntry& cv : info.codeview) {
      if (cv.portable()) {
        in.embedded_id_matches_codeview = in.source == PdbSource::kEmbedded && id_equals(id, cv);
        break;
      }
    }
    in.pe->checksum_verdict = verify_pdb_checksums(info.checksums, in.pdb->bytes(),
                                                   in.pdb->metadata().pdb_stream_offset(),
                                                   &in.pe->checksum_each, &in.pdb_sha256);
    if (in.pe->checksum_verdict == ChecksumVerdict::kMismatch)
      in.checksum_status = Error{Errc::kChecksum, in.path + ": no PdbChecksum entry matches the " +
                                                      pdb_source_name(in.source) + " PDB"};
  }
  return {};
}

}  // namespace

bool is_windows_pdb(std::span<const std::uint8_t> head) {
  return msf::MsfFile::has_magic(head);  // MSF 7.00, or MSFZ (a .pdz)
}

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

namespace {

// A decode error of a file that was truncated while mapped (the guard gave zeros) is reported
// as the change, which is its cause.
Error changed_or(const DebugInput& in, const Status& s) {
  if (Status c = in.file.check(); !c) return c.error();
  if (Status c = in.sibling.check(); !c) return c.error();
  return s.error();
}

}  // namespace

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
      if (Status s = open_standalone(*in); !s) return changed_or(*in, s);
      return in;
    case InputKind::kPe:
      if (Status s = open_pe(*in, options); !s) return changed_or(*in, s);
      return in;
    case InputKind::kCache:
      return Error{Errc::kUnsupported, path + ": is an ilmap cache, not a PDB or PE (compile the .pdb, .dll or .exe it was made from; `ilmap info` and `ilmap verify` read caches)"};
    case InputKind::kUnknown:
      break;
  }
  if (options.windows_pdbs && is_windows_pdb(bytes)) {
    if (Status s = open_standalone_msf(*in); !s) return changed_or(*in, s);
    return in;
  }
  if (is_windows_pdb(bytes))
    return Error{Errc::kUnsupported, path + ": is a Windows (MSF) PDB; only Portable PDBs are supported"};
  return Error{Errc::kBadMagic, format("%s: not a Portable PDB (BSJB), a Windows PDB (MSF 7.00, MSFZ), a PE (MZ) or an ilmap cache (first bytes %s)", path.c_str(), bytes.size() >= 4 ? "unrecognised" : "missing")};
}

}  // namespace ilmap
