// MsfzWriter.h - builds MSFZ files (.pdz) for tests from the streams of an MSF file, in the
// layout MsfzFile.h describes, with every shape the reader must take: streams stored plain,
// streams in zstd chunks (running on across chunk boundaries, several streams sharing a chunk),
// streams cut into a plain and a compressed fragment, nil and empty streams.
#pragma once

#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "MsfWriter.h"
#include "decode/msf/MsfFile.h"

namespace ilmap::msf::test {

struct MsfzLayout {
  std::size_t dir_offset = 0, dir_size = 0;
  std::size_t table_offset = 0;
  std::vector<std::size_t> chunk_offsets, chunk_sizes;  // packed, in the file
};

struct MsfzOptions {
  std::uint32_t chunk_size = 64;  // unpacked bytes per chunk: small, so streams span chunks
  bool compress_directory = false;
};

inline void put_u64(Bytes& b, std::uint64_t v) { put(b, v); }

inline Bytes write_msfz(const MsfFile& msf, const MsfzOptions& o = {}, MsfzLayout* layout = nullptr) {
  Bytes out(80, 0);
  Bytes dir, space;  // the directory; the unpacked chunk space
  struct Pending { std::size_t dir_at; std::uint64_t space_at; };
  std::vector<Pending> compressed;  // locations patched once the chunks are known
  for (std::uint32_t i = 0; i < msf.stream_count(); ++i) {
    if (!msf.has_stream(i)) {
      put_u32(dir, 0xFFFFFFFFu);
      continue;
    }
    auto s = msf.read_stream(i);
    const Bytes bytes = s ? *s : Bytes{};
    // Stream 1 mod 3: stored plain; 2 mod 3: half plain, half compressed; 0 mod 3: compressed.
    std::size_t plain = i % 3 == 1 ? bytes.size() : i % 3 == 2 ? bytes.size() / 2 : 0;
    if (plain) {
      put_u32(dir, static_cast<std::uint32_t>(plain));
      put_u64(dir, out.size());
      out.insert(out.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(plain));
    }
    if (bytes.size() > plain) {
      put_u32(dir, static_cast<std::uint32_t>(bytes.size() - plain));
      compressed.push_back({dir.size(), space.size()});
      put_u64(dir, 0);
      space.insert(space.end(), bytes.begin() + static_cast<std::ptrdiff_t>(plain), bytes.end());
    }
    put_u32(dir, 0);
  }
  // Chunks of o.chunk_size unpacked bytes each, written after the plain fragments.
  struct Entry { std::uint64_t off; std::uint32_t packed, size; };
  std::vector<Entry> chunks;
  for (std::size_t at = 0; at < space.size(); at += o.chunk_size) {
    const std::size_t n = std::min<std::size_t>(o.chunk_size, space.size() - at);
    Bytes packed(ZSTD_compressBound(n));
    packed.resize(ZSTD_compress(packed.data(), packed.size(), space.data() + at, n, 3));
    chunks.push_back({out.size(), static_cast<std::uint32_t>(packed.size()), static_cast<std::uint32_t>(n)});
    if (layout) {
      layout->chunk_offsets.push_back(out.size());
      layout->chunk_sizes.push_back(packed.size());
    }
    out.insert(out.end(), packed.begin(), packed.end());
  }
  for (const Pending& p : compressed) {
    const std::uint64_t chunk = p.space_at / o.chunk_size, within = p.space_at % o.chunk_size;
    const std::uint64_t loc = (1ull << 63) | (chunk << 32) | within;
    std::memcpy(dir.data() + p.dir_at, &loc, 8);
  }
  Bytes dir_disk = dir;
  if (o.compress_directory) {
    dir_disk.resize(ZSTD_compressBound(dir.size()));
    dir_disk.resize(ZSTD_compress(dir_disk.data(), dir_disk.size(), dir.data(), dir.size(), 3));
  }
  const std::size_t dir_offset = out.size();
  out.insert(out.end(), dir_disk.begin(), dir_disk.end());
  const std::size_t table_offset = out.size();
  for (const Entry& e : chunks) {
    put_u64(out, e.off);
    put_u32(out, 1);
    put_u32(out, e.packed);
    put_u32(out, e.size);
  }
  Bytes h;
  const char sig[] = "Microsoft MSFZ Container\r\n\x1a" "ALD";
  h.insert(h.end(), sig, sig + 30);
  h.push_back(0);
  h.push_back(0);
  put_u64(h, 0);
  put_u64(h, dir_offset);
  put_u64(h, table_offset);
  put_u32(h, msf.stream_count());
  put_u32(h, o.compress_directory ? 1 : 0);
  put_u32(h, static_cast<std::uint32_t>(dir_disk.size()));
  put_u32(h, static_cast<std::uint32_t>(dir.size()));
  put_u32(h, static_cast<std::uint32_t>(chunks.size()));
  put_u32(h, static_cast<std::uint32_t>(chunks.size() * 20));
  std::memcpy(out.data(), h.data(), 80);
  if (layout) {
    layout->dir_offset = dir_offset;
    layout->dir_size = dir_disk.size();
    layout->table_offset = table_offset;
  }
  return out;
}

}  // namespace ilmap::msf::test
