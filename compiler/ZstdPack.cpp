// ZstdPack.cpp - zstd_pack (ZstdPack.h).
#include "ZstdPack.h"

#include <zstd.h>

namespace ilmap {

bool zstd_pack(std::span<const std::uint8_t> bytes, std::vector<std::uint8_t>& out) {
  out.clear();
  if (bytes.empty()) return false;
  struct Ctx {
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ~Ctx() { ZSTD_freeCCtx(c); }
  };
  thread_local Ctx ctx;
  if (!ctx.c) return false;
  out.resize(ZSTD_compressBound(bytes.size()));
  const std::size_t n = ZSTD_compressCCtx(ctx.c, out.data(), out.size(), bytes.data(), bytes.size(), kPackZstdLevel);
  if (ZSTD_isError(n) || n >= bytes.size()) {
    out.clear();
    return false;
  }
  out.resize(n);
  return true;
}

}  // namespace ilmap
