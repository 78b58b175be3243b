// NamesSection.h - the method-names section of a cache (SPEC.md section 3.6): for every
// MethodDef row of the PE the frame text CoreCLR and Mono print, the name-index key and the
// state-machine kickoff. No name index is stored: readers derive it from the keys.
//
// The caller builds a NamesSection from the PE's metadata
// (a failure there is a warning, not a failed compile) and build_cache writes it at one place.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compiler/ScratchBuffers.h"
#include "decode/Guids.h"
#include "decode/Metadata.h"
#include "ilmap/status.h"
#include "ilmap_generated.h"

namespace ilmap {

struct NamesSection {
  Guid mvid{};
  std::string assembly_name, module_name;
  bool has_assembly = false;
  ScratchVector<fb::MethodNameRef> methods;  // MethodDef row order
  ScratchVector<std::uint8_t> strings;       // deduplicated texts
  std::size_t bytes() const {
    return methods.size() * sizeof(fb::MethodNameRef) + strings.size() + assembly_name.size() + module_name.size() + 64;
  }
};

// From a PE's own metadata (decode/names). Errors: the names library's (malformed tables,
// over its text budget) or a string pool beyond 4 GiB.
Result<NamesSection> build_names_section(const Metadata& md);
// From the bytes of a PE file: parses it, then build_names_section. kUnsupported when the PE
// has no CLI metadata.
Result<NamesSection> build_names_section_from_pe(std::span<const std::uint8_t> pe_bytes);

// The content of Names.methods_zstd (SPEC.md 3.6): the fields column by column, offsets as
// differences.
void method_columns(std::span<const fb::MethodNameRef> methods, std::uint8_t* out);  // 32 bytes per method

// Writes the Names table into `fbb` (SPEC.md 3.6), `methods` and `strings` packed when smaller.
flatbuffers::Offset<fb::Names> write_names_section(flatbuffers::FlatBufferBuilder& fbb, const NamesSection& names);

}  // namespace ilmap
