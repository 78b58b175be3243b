// CacheFields.h - small conversions from the cache's FlatBuffers fields for the CLI.
#pragma once

#include <algorithm>
#include <span>
#include <string>

#include "decode/Guids.h"
#include "decode/SymstoreKeys.h"
#include "reader/RawCache.h"

namespace ilmap::cli {

// A schema Guid struct as on-disk GUID bytes (nil when absent).
inline Guid guid_of(const fb::Guid* g) {
  Guid out{};
  if (g) std::copy(g->bytes()->begin(), g->bytes()->end(), out.begin());
  return out;
}

// A byte vector as lowercase hex (empty when absent).
inline std::string hex_of(const flatbuffers::Vector<std::uint8_t>* v) {
  return v ? hex_lower(std::span<const std::uint8_t>(v->data(), v->size())) : std::string();
}

// A document language as lookup names it: "C#", "VB", "F#", "unknown" (nil GUID) or "other".
inline const char* language_text(const Guid& g) {
  if (const char* n = language_name(g)) return n;
  return g == Guid{} ? "unknown" : "other";
}

}  // namespace ilmap::cli
