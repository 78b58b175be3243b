// ZstdPack.cpp - zstd_pack and its scratch memory (ZstdPack.h).
#include "support/ZstdPack.h"

#include "support/HugePages.h"
#include "support/ThreadLocal.h"

#include <sys/mman.h>
// ZSTD_initStaticCCtx and ZSTD_estimateCCtxSize (zstd's "static linking only" API, exported by
// the shared library since zstd 1.3).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>

namespace ilmap {
namespace {

constexpr std::size_t kKeepBytes = std::size_t(4) << 20;

}  // namespace

PackScratch::~PackScratch() {
  for (Map& m : maps_)
    if (m.p) ::munmap(m.p, m.size);
}

std::uint8_t* PackScratch::get(int slot, std::size_t n) {
  Map& m = maps_[slot];
  if (m.p && m.size >= n) return m.p;
  if (m.p) ::munmap(m.p, m.size);
  m = {};
  // From kHugeMappingMin on, whole 2 MiB units with huge-page advice (HugePages.h): a short process
  // faults each page it touches once.
  const std::size_t page = 4096;
  std::size_t size = (std::max<std::size_t>(n, 1) + page - 1) / page * page;
  void* p = nullptr;
  if (size >= kHugeMappingMin) {
    size = huge_mapping_size(size);
    p = size ? map_huge(size) : nullptr;
    if (!p) return nullptr;
  } else {
    p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
  }
  m = {static_cast<std::uint8_t*>(p), size};
  return m.p;
}

void PackScratch::trim() {
  for (Map& m : maps_) {
    if (m.p && m.size > kKeepBytes) {
      ::munmap(m.p, m.size);
      m = {};
    }
  }
}

PackScratch& pack_scratch() { return per_thread<PackScratch>(); }

namespace {

// The thread's compression context (see compress_into).
ZSTD_CCtx* pack_context(PackTable table) {
  // One compression context per thread, kept between builds, in its own mapping: a context
  // created per call costs more than packing a few KB, and one kept in the malloc heap pins the
  // heap's top there, so that each later compile in the process gives the pages of its large
  // temporary buffers back to the system and faults them in again (+50% compile time on a
  // 100k-point PDB in a process that compiles many).
  struct Ctx {
    void* mem = nullptr;
    std::size_t size = ZSTD_estimateCCtxSize(kPackZstdLevel);
    ZSTD_CCtx* c = nullptr;
    Ctx() {
      mem = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mem == MAP_FAILED) mem = nullptr;
      if (mem) c = ZSTD_initStaticCCtx(mem, size);
      // The context is sized for level 1 (ZSTD_estimateCCtxSize), whose largest hash table is
      // PackTable::kLevelDefault's; each call sets its own (PackTable).
      // A static context starts with zeroed parameters (no content size in the frame header,
      // which SPEC.md 3.8 requires): reset them to zstd's defaults first.
      if (c && (ZSTD_isError(ZSTD_CCtx_reset(c, ZSTD_reset_parameters)) ||
                ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1)) ||
                ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, kPackZstdLevel))))
        c = nullptr;
    }
    ~Ctx() {
      if (mem) ::munmap(mem, size);
    }
  };
  Ctx& ctx = per_thread<Ctx>();
  if (!ctx.c || ZSTD_isError(ZSTD_CCtx_setParameter(ctx.c, ZSTD_c_hashLog, static_cast<int>(table)))) return nullptr;
  return ctx.c;
}

}  // namespace

std::size_t zstd_pack_bound(std::size_t n) { return ZSTD_compressBound(n); }

std::size_t zstd_pack_into(std::span<const std::uint8_t> bytes, std::uint8_t* out, PackTable table) {
  if (bytes.empty() || !out) return 0;
  ZSTD_CCtx* const c = pack_context(table);
  if (!c) return 0;
  const std::size_t n = ZSTD_compress2(c, out, ZSTD_compressBound(bytes.size()), bytes.data(), bytes.size());
  if (ZSTD_isError(n) || n >= bytes.size()) return 0;
  // Readers refuse a frame without its content size: never write one.
  if (ZSTD_getFrameContentSize(out, n) != bytes.size()) return 0;
  return n;
}

std::span<const std::uint8_t> zstd_pack(std::span<const std::uint8_t> bytes, PackTable table) {
  if (bytes.empty()) return {};
  std::uint8_t* const out = pack_scratch().get(1, ZSTD_compressBound(bytes.size()));
  const std::size_t n = zstd_pack_into(bytes, out, table);
  if (n == 0) return {};
  return {out, n};
}

}  // namespace ilmap
