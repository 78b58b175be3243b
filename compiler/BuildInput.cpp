// BuildInput.cpp - a Portable or Windows PDB as the cache builder reads it (see BuildInput.h).
//
// SPEC.md 3.2 (pdb_id of a Windows PDB: its GUID, then the DBI age) and section 4 (method rows:
// a Windows PDB's methods by the MethodDef row of their token).
#include "compiler/BuildInput.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "decode/msf/MsfPdb.h"
#include "decode/msf/SrcSrv.h"

namespace ilmap {
namespace {

// The highest MethodDef row a Windows PDB may name (a token's 24-bit row).
constexpr std::uint32_t kMaxMethodRow = 0xFFFFFF;

Result<BuildInput> portable_input(const PortablePdb& pdb) {
  BuildInput in;
  in.portable = &pdb;
  auto docs = pdb.documents();
  if (!docs) return docs.error();
  in.docs = std::move(*docs);
  auto sl = pdb.source_link();
  if (!sl) return sl.error();
  in.sourcelink_json = std::move(*sl);
  in.methods = pdb.method_count();
  in.parallel_bytes = pdb.metadata().stream_size("#Blob");
  in.name_budget = pdb.name_budget();
  in.id = pdb.id().bytes;
  in.entry_point = pdb.entry_point();
  return in;
}

Result<BuildInput> msf_input(const msf::MsfPdb& pdb, std::uint64_t source_size) {
  BuildInput in;
  for (const msf::MsfDocument& d : pdb.documents())
    in.docs.push_back({d.name, d.language, d.hash_algorithm, d.hash});
  if (const auto& sl = pdb.source_link())
    in.sourcelink_json.emplace(reinterpret_cast<const char*>(sl->data()), sl->size());
  // A srcsrv stream that is not srcsrv text gives no URLs (it is advice for debuggers; the
  // points do not depend on it).
  if (const auto& ss = pdb.source_server()) {
    if (auto srv = msf::SrcSrv::parse(*ss)) {
      for (const msf::MsfDocument& d : pdb.documents()) in.srcsrv_urls.push_back(srv->url(d.name).value_or(""));
    }
  }
  for (const msf::MsfMethod& m : pdb.methods()) {
    const std::uint32_t row = m.token & kMaxMethodRow;
    if ((m.token >> 24) != 0x06 || row == 0)
      return Error{Errc::kMalformed, format("Windows PDB: method token 0x%08x is not a MethodDef token", m.token)};
    if (row > in.methods) in.methods = row;
  }
  in.msf_by_row.assign(in.methods, nullptr);
  for (const msf::MsfMethod& m : pdb.methods()) in.msf_by_row[(m.token & kMaxMethodRow) - 1] = &m;
  in.parallel_bytes = pdb.point_count() * 8;
  in.name_budget = std::max<std::size_t>(PortablePdb::kMinNameBudget,
                                         PortablePdb::kNameBudgetPerInputByte * static_cast<std::size_t>(source_size));
  // pdb_id: the info stream's GUID, then the age a PE's CodeView entry carries (the DBI age),
  // little-endian (SPEC.md section 3.2).
  std::memcpy(in.id.data(), pdb.guid().data(), 16);
  const std::uint32_t age = pdb.age();
  for (int i = 0; i < 4; ++i) in.id[16 + i] = static_cast<std::uint8_t>(age >> (8 * i));
  return in;
}

}  // namespace

Result<BuildInput> read_build_input(const CacheSource& src) {
  auto in = src.msf ? msf_input(*src.msf, src.source_size) : portable_input(*src.pdb);
  if (in && in->portable) in->file = src.pdb_file;
  return in;
}

}  // namespace ilmap
