// CApiHandle.h - what an ilmap_cache handle of the C API (include/ilmap/ilmap.h) holds: a cache
// of its own (ilmap_open*, freed by ilmap_close) or one it borrows from a symbolicator's module
// index (ilmap_find_module: ilmap_close leaves it alone; it lives as long as the symbolicator).
// Shared by reader/ReaderCApi.cpp and capi/.
#pragma once

#include <optional>
#include <utility>

#include "ilmap/cache.h"

struct ilmap_cache {
  explicit ilmap_cache(ilmap::Cache c) : owned(std::move(c)), cache(&*owned) {}
  explicit ilmap_cache(const ilmap::Cache* borrowed) : cache(borrowed) {}
  ilmap_cache(const ilmap_cache&) = delete;
  ilmap_cache& operator=(const ilmap_cache&) = delete;

  std::optional<ilmap::Cache> owned;
  const ilmap::Cache* cache;  // &*owned, or the borrowed cache
};
