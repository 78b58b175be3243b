// CompileModule.cpp - the one compile path (see CompileModule.h).
#include "compiler/CompileModule.h"

#include "decode/EmbeddedSources.h"
#include "decode/Guids.h"
#include "decode/PeFile.h"

namespace ilmap {

bool has_embedded_sources(const PortablePdb& pdb) {
  for (std::uint32_t rid = 1; rid <= pdb.document_count(); ++rid)
    if (pdb.find_cdi(kHcdiDocument, rid, guids::kCdiEmbeddedSource)) return true;
  return false;
}

bool pe_names_pdb(const PeInfo& pe, const PortablePdb& pdb) {
  if (!pdb.has_pdb_stream()) return false;
  for (const CodeViewEntry& cv : pe.codeview)
    if (cv.portable() && cv.guid == pdb.id().guid() && cv.stamp == pdb.id().stamp()) return true;
  return false;
}

ModuleSource module_source(const DebugInput& in) {
  ModuleSource m;
  m.source = cache_source_for(in);
  return m;
}

void add_method_names(ModuleSource& m, std::span<const std::uint8_t> pe_bytes, const std::string& pe_path) {
  auto n = build_names_section_from_pe(pe_bytes);
  if (n) m.names = std::move(*n);
  else m.warnings.push_back(pe_path + ": method names not stored: " + n.error().message);
}

Result<CacheBytes> compile_module(const ModuleSource& m, const CacheBuildOptions& options, CacheStats* stats) {
  CacheSource src = m.source;
  src.names = m.names ? &*m.names : nullptr;
  return build_cache(src, options, stats);
}

}  // namespace ilmap
