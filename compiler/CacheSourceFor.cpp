// CacheSourceFor.cpp - the identity fields of a cache from its decoded input (one place for
// `ilmap compile`, the module index of symbols/ and `store add`).
#include "compiler/CacheSourceFor.h"

#include <xxhash.h>

#include <filesystem>

#include "decode/SymstoreKeys.h"
#include "support/Platform.h"

namespace ilmap {

namespace fs = std::filesystem;

namespace {

std::uint64_t hash_combine(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t v[2] = {a, b};
  return XXH3_64bits(v, sizeof v);
}

}  // namespace

CacheSource cache_source_for(const DebugInput& in) {
  CacheSource src;
  if (in.msf) src.msf = &*in.msf;
  else src.pdb = &*in.pdb;
  // The file the PDB is read from (an embedded PDB is inflated into memory: nothing to give back).
  if (in.source == PdbSource::kStandalone) src.pdb_file = &in.file;
  else if (in.source == PdbSource::kSibling) src.pdb_file = &in.sibling;
  src.source_name = platform::fs_string(platform::fs_path(in.path).filename());
  src.source_size = in.file.bytes().size();
  src.source_xxh3 = XXH3_64bits(in.file.bytes().data(), in.file.bytes().size());
  if (in.source == PdbSource::kSibling)
    src.source_xxh3 = hash_combine(src.source_xxh3, XXH3_64bits(in.sibling.bytes().data(), in.sibling.bytes().size()));
  std::string pdb_name = in.pdb_path.empty() ? std::string() : in.pdb_path;
  if (pdb_name.empty() && in.pe) {
    if (const CodeViewEntry* cv = in.matched_codeview()) pdb_name = cv->path;
  }
  if (pdb_name.empty()) pdb_name = platform::fs_string(platform::fs_path(in.path).replace_extension(".pdb"));
  if (!in.msf && !in.pdb_sha256.empty()) src.pdb_sha256 = in.pdb_sha256;
  if (in.msf) {
    // A .pdz's cache is the PDB's (the same streams): keyed as the .pdb a client asks for, so it
    // sits where a cache of the .pdb would (docs/store-layout.md).
    if (in.msf->msf().is_msfz()) pdb_name = msfz_pdb_file_name(pdb_name);
    src.pdb_key = ssqp_windows_pdb_key(pdb_name, in.msf->guid(), in.msf->age());
    src.debug_id = windows_debug_id(in.msf->guid(), in.msf->age());
  } else {
    const PdbId id = in.pdb->id();
    src.pdb_key = ssqp_portable_pdb_key(pdb_name, id.guid());
    src.debug_id = portable_debug_id(id.guid(), id.stamp());
  }
  if (in.pe) src.pe = cache_pe_identity(in.path, *in.pe);
  return src;
}

CachePeIdentity cache_pe_identity(const std::string& path, const PeInfo& info) {
  CachePeIdentity pe;
  pe.name = platform::fs_string(platform::fs_path(path).filename());
  pe.timestamp = info.timestamp;
  pe.size_of_image = info.size_of_image;
  pe.pe_key = ssqp_pe_key(path, info.timestamp, info.size_of_image);
  pe.code_id = pe_code_id(info.timestamp, info.size_of_image);
  if (info.mvid != Guid{}) pe.mvid = info.mvid;
  for (const CodeViewEntry& cv : info.codeview)
    pe.codeview.push_back({cv.guid, cv.age, cv.stamp, cv.path, cv.portable()});
  for (const PdbChecksum& c : info.checksums) pe.pdb_checksums.push_back(c.algorithm + ":" + hex_lower(c.hash));
  return pe;
}

}  // namespace ilmap
