// RawCache.h - the generated FlatBuffers view of an open cache, for the tools that print raw
// sections (dump, info). Everything else uses the API of include/ilmap/cache.h; the layering
// check (tests/meta/check-layers.sh) lets only tools/ include this header.
#pragma once

#include "ilmap/cache.h"
#include "ilmap_generated.h"

namespace ilmap {

struct CacheRaw {
  // The verified payload root.
  static const fb::Cache* root(const Cache& cache) noexcept;
  // The nested details buffer, unpacked if packed and verified on each call (not at open).
  static Result<const fb::Details*> details(const Cache& cache);
};

inline const fb::Cache* raw_root(const Cache& cache) noexcept { return CacheRaw::root(cache); }
inline Result<const fb::Details*> raw_details(const Cache& cache) { return CacheRaw::details(cache); }

}  // namespace ilmap
