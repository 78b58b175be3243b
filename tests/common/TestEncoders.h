// TestEncoders.h - tiny writers for unit tests: ECMA-335 II.23.2 compressed integers, a
// sequence-points blob builder, and a builder of minimal metadata images (BSJB root, stream
// headers, #Pdb, #~, heaps). Written independently of compiler/ so tests do not check the
// decoder against itself.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ilmap::test {

using Bytes = std::vector<std::uint8_t>;

inline void put_u8(Bytes& b, std::uint8_t v) { b.push_back(v); }
inline void put_u16(Bytes& b, std::uint16_t v) {
  b.push_back(std::uint8_t(v));
  b.push_back(std::uint8_t(v >> 8));
}
inline void put_u32(Bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(std::uint8_t(v >> (8 * i)));
}
inline void put_u64(Bytes& b, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(std::uint8_t(v >> (8 * i)));
}
inline void put_index(Bytes& b, unsigned width, std::uint32_t v) {
  if (width == 2) put_u16(b, std::uint16_t(v));
  else put_u32(b, v);
}
inline void pad4(Bytes& b) {
  while (b.size() % 4) b.push_back(0);
}

// ECMA-335 II.23.2 unsigned: 1 byte up to 0x7F, 2 bytes (10xxxxxx) up to 0x3FFF, 4 bytes
// (110xxxxx) up to 0x1FFFFFFF; payload big endian.
inline void put_compressed(Bytes& b, std::uint32_t v) {
  if (v <= 0x7F) {
    b.push_back(std::uint8_t(v));
  } else if (v <= 0x3FFF) {
    b.push_back(std::uint8_t(0x80 | (v >> 8)));
    b.push_back(std::uint8_t(v));
  } else if (v <= 0x1FFFFFFF) {
    b.push_back(std::uint8_t(0xC0 | (v >> 24)));
    b.push_back(std::uint8_t(v >> 16));
    b.push_back(std::uint8_t(v >> 8));
    b.push_back(std::uint8_t(v));
  } else {
    throw std::out_of_range("compressed unsigned > 0x1FFFFFFF");
  }
}

// ECMA-335 II.23.2 signed: pick the smallest width whose 6/13/28-bit two's complement range
// holds v, take those bits, rotate left by one (sign bit into bit 0), encode as unsigned.
inline void put_compressed_signed(Bytes& b, std::int32_t v) {
  unsigned bits;
  if (v >= -(1 << 6) && v < (1 << 6)) bits = 6;
  else if (v >= -(1 << 13) && v < (1 << 13)) bits = 13;
  else if (v >= -(1 << 28) && v < (1 << 28)) bits = 28;
  else throw std::out_of_range("compressed signed outside [-2^28, 2^28)");
  const std::uint32_t mask = (1u << bits) - 1;
  const std::uint32_t u = ((std::uint32_t(v) & mask) << 1) | (v < 0 ? 1u : 0u);
  // Force the width that matches `bits` (u may be small, e.g. -8192 -> u = 1 in 2 bytes).
  if (bits == 6) {
    b.push_back(std::uint8_t(u));
  } else if (bits == 13) {
    b.push_back(std::uint8_t(0x80 | (u >> 8)));
    b.push_back(std::uint8_t(u));
  } else {
    b.push_back(std::uint8_t(0xC0 | (u >> 24)));
    b.push_back(std::uint8_t(u >> 16));
    b.push_back(std::uint8_t(u >> 8));
    b.push_back(std::uint8_t(u));
  }
}

// Builds a sequence-points blob field by field; pos() is the offset the next field starts at.
struct SpBlob {
  Bytes b;
  SpBlob& u(std::uint32_t v) { put_compressed(b, v); return *this; }
  SpBlob& s(std::int32_t v) { put_compressed_signed(b, v); return *this; }
  SpBlob& raw(std::uint8_t v) { b.push_back(v); return *this; }
  std::size_t pos() const { return b.size(); }
};

// #Blob heap: offset 0 is the empty blob.
struct BlobHeap {
  Bytes b{0};
  std::uint32_t add(const Bytes& data) {
    const auto off = std::uint32_t(b.size());
    put_compressed(b, std::uint32_t(data.size()));
    b.insert(b.end(), data.begin(), data.end());
    return off;
  }
  std::uint32_t add(std::string_view s) { return add(Bytes(s.begin(), s.end())); }
};

// #GUID heap: 1-based 16-byte entries.
struct GuidHeap {
  Bytes b;
  std::uint32_t add(std::uint8_t fill) {
    b.insert(b.end(), 16, fill);
    return std::uint32_t(b.size() / 16);
  }
};

// #Pdb stream (PPDB "#Pdb stream"): id, entry point, referenced-tables mask, counts ascending.
struct PdbStream {
  std::uint8_t id_fill = 0xAB;
  std::uint32_t entry_point = 0;
  std::vector<std::pair<unsigned, std::uint32_t>> external;  // (table, rows), ascending
  Bytes build() const {
    Bytes b(20, id_fill);
    put_u32(b, entry_point);
    std::uint64_t mask = 0;
    for (auto& [t, n] : external) mask |= std::uint64_t(1) << t;
    put_u64(b, mask);
    for (auto& [t, n] : external) put_u32(b, n);
    return b;
  }
};

// #~ stream: header, row counts of the valid tables in table order, then `data` verbatim.
struct TableStream {
  std::uint8_t heap_sizes = 0;
  std::uint64_t sorted = 0;
  std::vector<std::pair<unsigned, std::uint32_t>> rows;  // (table, rows), ascending
  Bytes data;
  Bytes build() const {
    Bytes b;
    put_u32(b, 0);
    put_u8(b, 2);
    put_u8(b, 0);
    put_u8(b, heap_sizes);
    put_u8(b, 1);
    std::uint64_t valid = 0;
    for (auto& [t, n] : rows) valid |= std::uint64_t(1) << t;
    put_u64(b, valid);
    put_u64(b, sorted);
    for (auto& [t, n] : rows) put_u32(b, n);
    if (heap_sizes & 0x40) put_u32(b, 0);
    b.insert(b.end(), data.begin(), data.end());
    return b;
  }
};

// Metadata root (ECMA-335 II.24.2.1) with stream headers; streams laid out after the headers
// in order, each padded to 4 bytes. A stream's declared offset/size can be overridden.
struct MetadataImage {
  struct Stream {
    std::string name;
    Bytes data;
    std::optional<std::uint32_t> declared_offset, declared_size;
  };
  std::uint32_t signature = 0x424A5342;
  std::string version = "PDB v1.0";
  std::vector<Stream> streams;

  MetadataImage& add(std::string name, Bytes data) {
    streams.push_back({std::move(name), std::move(data), {}, {}});
    return *this;
  }
  Stream& stream(std::string_view name) {
    for (auto& s : streams)
      if (s.name == name) return s;
    throw std::logic_error("no such stream");
  }

  Bytes build() const {
    Bytes b;
    put_u32(b, signature);
    put_u16(b, 1);
    put_u16(b, 1);
    put_u32(b, 0);
    Bytes ver(version.begin(), version.end());
    ver.push_back(0);
    pad4(ver);
    put_u32(b, std::uint32_t(ver.size()));
    b.insert(b.end(), ver.begin(), ver.end());
    put_u16(b, 0);
    put_u16(b, std::uint16_t(streams.size()));
    std::size_t headers = 0;
    for (auto& s : streams) headers += 8 + ((s.name.size() + 1 + 3) & ~std::size_t(3));
    std::size_t off = b.size() + headers;
    std::vector<std::size_t> offs;
    for (auto& s : streams) {
      offs.push_back(off);
      off += (s.data.size() + 3) & ~std::size_t(3);
    }
    for (std::size_t i = 0; i < streams.size(); ++i) {
      const Stream& s = streams[i];
      put_u32(b, s.declared_offset.value_or(std::uint32_t(offs[i])));
      put_u32(b, s.declared_size.value_or(std::uint32_t(s.data.size())));
      b.insert(b.end(), s.name.begin(), s.name.end());
      b.push_back(0);
      pad4(b);
    }
    for (auto& s : streams) {
      b.insert(b.end(), s.data.begin(), s.data.end());
      pad4(b);
    }
    return b;
  }
};

// A minimal standalone Portable PDB: #Pdb, #~, #Strings, #GUID, #Blob, with 2-byte indices
// (small heaps). Tests fill documents and methods, then call image().
struct MiniPdb {
  PdbStream pdb;
  TableStream tables;
  BlobHeap blobs;
  GuidHeap guids;
  Bytes strings{0};
  std::uint32_t documents = 0, methods = 0;
  Bytes document_rows, method_rows;

  // Document row: Name (blob), HashAlgorithm (guid), Hash (blob), Language (guid).
  std::uint32_t add_document(std::uint32_t name_blob, std::uint32_t hash_alg = 0,
                             std::uint32_t hash = 0, std::uint32_t lang = 0) {
    put_u16(document_rows, std::uint16_t(name_blob));
    put_u16(document_rows, std::uint16_t(hash_alg));
    put_u16(document_rows, std::uint16_t(hash));
    put_u16(document_rows, std::uint16_t(lang));
    return ++documents;
  }
  // Document-name blob: separator byte, then compressed #Blob offsets of the parts.
  std::uint32_t add_name(std::uint8_t sep, const std::vector<std::string>& parts) {
    Bytes nb{sep};
    for (auto& p : parts) put_compressed(nb, p.empty() ? 0 : blobs.add(p));
    return blobs.add(nb);
  }
  // MethodDebugInformation row: Document (table index), SequencePoints (blob).
  std::uint32_t add_method(std::uint32_t document, std::uint32_t sp_blob) {
    put_u16(method_rows, std::uint16_t(document));
    put_u16(method_rows, std::uint16_t(sp_blob));
    return ++methods;
  }

  MetadataImage image() const {
    PdbStream p = pdb;
    if (p.external.empty()) p.external = {{0x06, methods}};  // MethodDef rows = MDI rows
    TableStream t = tables;
    t.rows.clear();
    t.data.clear();
    if (documents) t.rows.push_back({0x30, documents});
    if (methods) t.rows.push_back({0x31, methods});
    t.data = document_rows;
    t.data.insert(t.data.end(), method_rows.begin(), method_rows.end());
    MetadataImage img;
    img.add("#Pdb", p.build()).add("#~", t.build()).add("#Strings", strings);
    img.add("#GUID", guids.b).add("#Blob", blobs.b);
    return img;
  }
};

}  // namespace ilmap::test
