// cpp_lookup.cpp - the C++ API (ilmap/cache.h) from a user's CMake project:
// cpp_lookup CACHE TOKEN IL_OFFSET prints "FILE:LINE:COLUMN" of the answer (exit 0), or the
// reason there is none (exit 1).
#include <cstdio>
#include <cstdlib>

#include "ilmap/cache.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: cpp_lookup CACHE TOKEN IL_OFFSET\n");
    return 2;
  }
  auto cache = ilmap::Cache::open(argv[1]);
  if (!cache.ok()) {
    std::fprintf(stderr, "cpp_lookup: %s\n", cache.error().message.c_str());
    return 1;
  }
  const auto token = static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 0));
  const auto il = static_cast<std::uint32_t>(std::strtoul(argv[3], nullptr, 0));
  const auto r = cache->lookup(token, il);
  if (!r) {
    std::fprintf(stderr, "cpp_lookup: no answer\n");
    return 1;
  }
  std::printf("%.*s:%u:%u\n", static_cast<int>(r->file.size()), r->file.data(), r->line, r->column);
  return 0;
}
