// BuildInput.h - what the cache builder reads from its input, whatever kind of PDB it is.
//
// A Portable PDB or a Windows (MSF) PDB becomes one neutral BuildInput, so that the rest of the
// builder never asks which kind it has: documents, SourceLink JSON, per-document srcsrv URLs,
// the method rows, the 20-byte pdb_id (SPEC.md section 3.2) and the entry point. A Windows
// PDB's methods are placed at the MethodDef row of their token (section 4); the point encoder
// (PointEncoder.cpp) checks their points against what a block can hold.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/CacheBuilder.h"
#include "decode/PortablePdb.h"
#include "ilmap/status.h"

namespace ilmap {

namespace msf {
struct MsfMethod;
}

// A Portable PDB, or a Windows PDB whose methods are placed at the MethodDef row of their token
// (rows without a method have no points).
struct BuildInput {
  const PortablePdb* portable = nullptr;
  std::vector<const msf::MsfMethod*> msf_by_row;  // index rid - 1; null: no points
  std::vector<Document> docs;
  std::optional<std::string> sourcelink_json;
  // Windows PDBs: each document's URL from the srcsrv stream ("" for none), used where
  // SourceLink gives none.
  std::vector<std::string> srcsrv_urls;
  std::uint32_t methods = 0;
  std::size_t parallel_bytes = 0;  // compared with parallel_min_blob_bytes
  std::size_t name_budget = 0;
  std::array<std::uint8_t, 20> id{};
  std::uint32_t entry_point = 0;
  // The mapped file of `portable` (CacheSource::pdb_file): the point encoder gives back the
  // pages of the blobs it has read as it goes. Null: kept.
  const FileBytes* file = nullptr;
};

// The input of `src` (its Portable PDB or its Windows PDB). Points into it: `src` must outlive
// the result.
Result<BuildInput> read_build_input(const CacheSource& src);

}  // namespace ilmap
