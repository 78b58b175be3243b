// CacheSourceFor.h - the identity fields of a cache (source name, size and hash, PDB key and
// debug id, the PE's identity) from a decoded input, so every writer of caches records them alike.
#pragma once

#include "compiler/CacheBuilder.h"
#include "decode/DebugInput.h"

namespace ilmap {

// Points into `in` (its PDB or MSF PDB): `in` must outlive the returned source. Names, embedded
// sources and build options are the caller's.
CacheSource cache_source_for(const DebugInput& in);

// The PE part of a cache's identity, for the PE at `path` (its file name gives the names).
CachePeIdentity cache_pe_identity(const std::string& path, const PeInfo& pe);

}  // namespace ilmap
