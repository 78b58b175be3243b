// DbiStream.h - stream 3: the DBI header (the age the PE must match), the module list, and the
// optional debug header (for the token -> rid map).
//
// Sources: LLVM docs/PDB/DbiStream.rst (header, "Module Info Substream", "Optional Debug Header
// Stream"); microsoft-pdb PDB/dbi/dbi.h. Substreams follow the header in this order: module info,
// section contributions, section map, file info, type server map, EC, optional debug header; their
// sizes must add up to the stream (leftover or missing bytes are corruption).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::msf {

class MsfFile;

struct DbiModule {
  std::string name;                    // module name (for managed PDBs the assembly's module)
  std::string object_file;
  std::uint16_t symbol_stream = 0xFFFF;  // 0xFFFF: none
  std::uint32_t symbol_bytes = 0;        // including the 4-byte signature
  std::uint32_t c11_bytes = 0;
  std::uint32_t c13_bytes = 0;
  std::size_t record_offset = 0;         // offset of the record in the DBI stream
};

class DbiStream {
 public:
  static Result<DbiStream> parse(const MsfFile& msf);

  std::uint32_t version() const { return version_; }
  std::uint32_t age() const { return age_; }
  std::uint16_t machine() const { return machine_; }
  const std::vector<DbiModule>& modules() const { return modules_; }
  // Stream index of the token -> rid map, 0xFFFF when there is none.
  std::uint16_t token_rid_map_stream() const { return token_rid_map_; }

 private:
  std::uint32_t version_ = 0, age_ = 0;
  std::uint16_t machine_ = 0;
  std::uint16_t token_rid_map_ = 0xFFFF;
  std::vector<DbiModule> modules_;
};

}  // namespace ilmap::msf
