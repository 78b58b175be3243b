// gen_pdb.cpp - ilmap_gen_pdb: writes a synthetic, valid standalone Portable PDB for benchmarks.
//
//   ilmap_gen_pdb (--points N | --size-mb M) [--seed S] [--docs D] [--pad-to BYTES] -o FILE
//
// --pad-to adds one unreferenced blob so that the file is about BYTES long: it stands in for
// what compilers write besides sequence points (e.g. 100,000 points in a 1.4 MB PDB).
//
// Layout (ECMA-335 II.24 + PortablePdb-Metadata.md): metadata root "PDB v1.0" with the streams
// #Pdb, #~, #Strings, #US, #GUID, #Blob. #Pdb: a 20-byte id from the seed, entry point 0, and
// referenced type-system tables Module (1 row), TypeDef and MethodDef (= the method count).
// #~ holds Document and MethodDebugInformation only; Document indices are 4 bytes when there
// are 65536+ documents, #Blob indices 4 bytes (HeapSizes 0x04) when the blob heap is 64 KiB+.
// Document names use the document-name blob grammar ('/' separator, parts shared as blobs).
// Methods have 1..64 sequence points (skewed to small ones), realistic line/column deltas, about
// 4% hidden points, 2% of methods change document inside the body (MDI.Document = 0 with an
// InitialDocument in the header, or a document record), 3% of methods have no points, and some
// methods start at IL offset > 0 (so lookups before the first point miss).
//
// The whole file is assembled in memory: the #Blob heap is ~95% of it and is written straight
// from its buffer, so memory is about the output size plus 4 bytes per method.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "splitmix.h"

namespace {

using Rng = ilmap::bench::Splitmix;

using Bytes = std::vector<std::uint8_t>;

void put_u16(Bytes& b, std::uint32_t v) {
  b.push_back(std::uint8_t(v));
  b.push_back(std::uint8_t(v >> 8));
}
void put_u32(Bytes& b, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(std::uint8_t(v >> (8 * i)));
}
void put_u64(Bytes& b, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(std::uint8_t(v >> (8 * i)));
}
void put_index(Bytes& b, std::uint32_t v, bool wide) { wide ? put_u32(b, v) : put_u16(b, v); }
void pad4(Bytes& b) {
  while (b.size() % 4) b.push_back(0);
}

// ECMA-335 II.23.2 compressed unsigned integer (v < 0x20000000).
void put_cu(Bytes& b, std::uint32_t v) {
  if (v < 0x80) {
    b.push_back(std::uint8_t(v));
  } else if (v < 0x4000) {
    b.push_back(std::uint8_t(0x80 | (v >> 8)));
    b.push_back(std::uint8_t(v));
  } else {
    if (v >= 0x20000000) {
      std::fprintf(stderr, "gen_pdb: compressed integer out of range\n");
      std::exit(2);
    }
    b.push_back(std::uint8_t(0xC0 | (v >> 24)));
    b.push_back(std::uint8_t(v >> 16));
    b.push_back(std::uint8_t(v >> 8));
    b.push_back(std::uint8_t(v));
  }
}
// Compressed signed integer (as System.Reflection.Metadata's BlobWriter writes it).
void put_cs(Bytes& b, std::int32_t value) {
  const std::uint32_t sign = static_cast<std::uint32_t>(value) >> 31;
  if (value >= -0x40 && value < 0x40) {
    b.push_back(std::uint8_t(((static_cast<std::uint32_t>(value) & 0x3F) << 1) | sign));
  } else if (value >= -0x2000 && value < 0x2000) {
    const std::uint32_t v = ((static_cast<std::uint32_t>(value) & 0x1FFF) << 1) | sign;
    b.push_back(std::uint8_t(0x80 | (v >> 8)));
    b.push_back(std::uint8_t(v));
  } else {
    const std::uint32_t v = ((static_cast<std::uint32_t>(value) & 0x0FFFFFFF) << 1) | sign;
    b.push_back(std::uint8_t(0xC0 | (v >> 24)));
    b.push_back(std::uint8_t(v >> 16));
    b.push_back(std::uint8_t(v >> 8));
    b.push_back(std::uint8_t(v));
  }
}

// The #Blob heap. Offset 0 is the empty blob.
struct BlobHeap {
  Bytes data{0};
  Bytes scratch;
  std::unordered_map<std::string, std::uint32_t> interned;
  std::uint32_t add(const std::uint8_t* p, std::size_t n) {
    if (n == 0) return 0;
    const std::size_t at = data.size();
    put_cu(data, static_cast<std::uint32_t>(n));
    data.insert(data.end(), p, p + n);
    if (data.size() > 0xFFFFFFF0u) {
      std::fprintf(stderr, "gen_pdb: blob heap over 4 GiB\n");
      std::exit(2);
    }
    return static_cast<std::uint32_t>(at);
  }
  std::uint32_t add(const Bytes& b) { return add(b.data(), b.size()); }
  std::uint32_t intern(const std::string& s) {
    if (s.empty()) return 0;
    auto it = interned.find(s);
    if (it != interned.end()) return it->second;
    const std::uint32_t off = add(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
    interned.emplace(s, off);
    return off;
  }
};

struct DocState {
  std::uint32_t next_line = 1;
};

struct Options {
  std::uint64_t points = 0;
  double size_mb = 0;
  std::uint64_t seed = 1;
  std::uint32_t docs = 0;
  std::uint64_t pad_to = 0;  // --pad-to BYTES
  std::string out;
};

[[noreturn]] void usage(const char* msg) {
  std::fprintf(stderr,
               "gen_pdb: %s\nusage: ilmap_gen_pdb (--points N | --size-mb M) [--seed S] [--docs D] [--pad-to BYTES] -o FILE\n",
               msg);
  std::exit(1);
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--points") o.points = std::strtoull(value(), nullptr, 10);
    else if (a == "--size-mb") o.size_mb = std::strtod(value(), nullptr);
    else if (a == "--seed") o.seed = std::strtoull(value(), nullptr, 10);
    else if (a == "--docs") o.docs = static_cast<std::uint32_t>(std::strtoul(value(), nullptr, 10));
    else if (a == "--pad-to") o.pad_to = std::strtoull(value(), nullptr, 10);
    else if (a == "-o" || a == "--out") o.out = value();
    else if (a == "-h" || a == "--help") usage("help");
    else usage(("unknown argument " + a).c_str());
  }
  if (o.out.empty()) usage("-o FILE is required");
  if ((o.points == 0) == (o.size_mb <= 0)) usage("give exactly one of --points N or --size-mb M");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);
  Rng rng{opt.seed * 0x2545F4914F6CDD1Dull + 12345};

  // ~5.3 bytes of blob per point plus ~4 bytes of header and 4..6 bytes of MDI row per method
  // (~22 points): ~5.8 bytes per point overall. Only used to size the document set; the loop
  // below stops on the real size.
  const std::uint64_t target_bytes = opt.size_mb > 0 ? static_cast<std::uint64_t>(opt.size_mb * 1048576.0) : 0;
  const double est_points = opt.points ? double(opt.points) : double(target_bytes) / 5.8;
  std::uint32_t doc_count = opt.docs;
  if (doc_count == 0) doc_count = static_cast<std::uint32_t>(std::clamp(est_points / 300.0, 1.0, 2000000.0));
  const double est_methods = std::max(1.0, est_points / 22.0);

  BlobHeap blob;
  if (target_bytes) blob.data.reserve(target_bytes + (1u << 20));

  // Documents: /_/src/Project<p>/<Folder>/File<i>.cs, parts interned as blobs.
  struct DocRow {
    std::uint32_t name, hash;
  };
  std::vector<DocRow> docs(doc_count);
  static const char* kFolders[] = {"Models", "Services", "Controllers", "Views", "Data", "Util", "Internal", "Api"};
  for (std::uint32_t d = 0; d < doc_count; ++d) {
    const std::string parts[] = {"", "_", "src", "Project" + std::to_string(d / 400),
                                 kFolders[(d / 23) % 8], "File" + std::to_string(d) + ".cs"};
    Bytes name{static_cast<std::uint8_t>('/')};
    for (const std::string& p : parts) put_cu(name, blob.intern(p));
    docs[d].name = blob.add(name);
    Bytes h(32);
    for (auto& x : h) x = static_cast<std::uint8_t>(rng.next());
    docs[d].hash = blob.add(h);
  }
  blob.interned.clear();

  // Methods.
  std::vector<DocState> dstate(doc_count);
  struct MdiRow {
    std::uint32_t doc, sp;
  };
  std::vector<MdiRow> methods;
  if (!target_bytes) methods.reserve(static_cast<std::size_t>(est_methods * 1.1));
  std::uint64_t points = 0, hidden = 0;
  Bytes& b = blob.scratch;
  std::uint64_t method_index = 0;
  auto done = [&]() {
    if (opt.points) return points >= opt.points;
    // Tables (rows of 4+4 / 8+8 bytes at most) + heaps; headers are < 300 bytes.
    const std::uint64_t tables = std::uint64_t(methods.size()) * 8 + std::uint64_t(doc_count) * 16;
    return blob.data.size() + tables + 300 >= target_bytes;
  };
  while (!done()) {
    ++method_index;
    if (rng.chance(0.03)) {  // no body / no points
      methods.push_back({0, 0});
      continue;
    }
    // Documents are visited in order as methods progress (a class per file).
    std::uint32_t doc = static_cast<std::uint32_t>(std::min<double>(doc_count - 1, double(method_index - 1) / est_methods * doc_count));
    if (doc >= doc_count) doc = doc_count - 1;
    std::uint32_t n = 1 + static_cast<std::uint32_t>(64.0 * std::pow(rng.unit(), 2.0));
    if (opt.points && points + n > opt.points) n = static_cast<std::uint32_t>(opt.points - points);
    const bool multi_doc = doc_count > 1 && n >= 4 && rng.chance(0.02);
    const bool initial_doc_in_header = multi_doc && rng.chance(0.5);
    b.clear();
    put_cu(b, 0);  // LocalSignature: none
    std::uint32_t cur_doc = doc;
    if (initial_doc_in_header) put_cu(b, cur_doc + 1);
    DocState* ds = &dstate[cur_doc];
    if (ds->next_line > 900000) ds->next_line = 1;
    std::uint32_t line = ds->next_line + 1 + rng.below(4);
    std::uint32_t col = 9 + 4 * rng.below(4);
    bool have_prev = false;
    std::int64_t prev_line = 0, prev_col = 0;
    std::uint32_t il = rng.chance(0.2) ? 1 + rng.below(6) : 0;
    const std::uint32_t switch_at = multi_doc ? 1 + rng.below(n - 1) : 0xFFFFFFFF;
    for (std::uint32_t k = 0; k < n; ++k) {
      if (k == switch_at) {
        std::uint32_t other = rng.below(doc_count);
        if (other == cur_doc) other = (other + 1) % doc_count;
        if (!initial_doc_in_header || rng.chance(0.5)) {
          put_cu(b, 0);  // document record
          put_cu(b, other + 1);
          cur_doc = other;
          ds->next_line = std::max(ds->next_line, line + 2);
          ds = &dstate[cur_doc];
          if (ds->next_line > 900000) ds->next_line = 1;
          line = ds->next_line + 1 + rng.below(3);
        }
      }
      // IL offset: the first is absolute, the rest strictly increasing.
      if (k == 0) {
        put_cu(b, il);
      } else {
        std::uint32_t d = 1 + rng.below(rng.chance(0.9) ? 8 : 64);
        if (rng.chance(0.01)) d += rng.below(2000);
        il += d;
        put_cu(b, d);
      }
      const bool is_hidden = rng.chance(0.04);
      if (is_hidden) {
        put_cu(b, 0);
        put_cu(b, 0);
        ++hidden;
        ++points;
        continue;
      }
      // Next statement position: mostly the next line(s), sometimes back (loops).
      if (have_prev) {
        const double u = rng.unit();
        if (u < 0.12) {
          // same line, later column
        } else if (u < 0.85) {
          line += 1 + rng.below(3);
        } else if (u < 0.95) {
          line += 4 + rng.below(20);
        } else {
          const std::uint32_t back = 1 + rng.below(8);
          line = line > back + 1 ? line - back : line;
        }
        col = rng.chance(0.7) ? 9 + 4 * rng.below(5) : 5 + rng.below(60);
      }
      std::uint32_t dlines = rng.chance(0.06) ? 1 + rng.below(6) : 0;
      std::uint32_t end_col;
      if (dlines == 0) end_col = col + 1 + rng.below(rng.chance(0.8) ? 40 : 120);
      else end_col = 2 + rng.below(60);
      put_cu(b, dlines);
      if (dlines == 0) put_cu(b, end_col - col);
      else put_cs(b, static_cast<std::int32_t>(end_col) - static_cast<std::int32_t>(col));
      if (!have_prev) {
        put_cu(b, line);
        put_cu(b, col);
        have_prev = true;
      } else {
        put_cs(b, static_cast<std::int32_t>(line - prev_line));
        put_cs(b, static_cast<std::int32_t>(col - prev_col));
      }
      prev_line = line;
      prev_col = col;
      line += dlines;
      ++points;
    }
    ds->next_line = std::max(ds->next_line, line + 2);
    if (n == 0) {
      methods.push_back({0, 0});
      continue;
    }
    methods.push_back({initial_doc_in_header ? 0u : doc + 1, blob.add(b)});
  }
  pad4(blob.data);

  const std::uint32_t method_count = static_cast<std::uint32_t>(methods.size());
  // --pad-to: one unreferenced blob brings the file to about BYTES. Compilers write local
  // scopes, variables, imports and custom debug information besides the sequence points (real
  // PDBs hold ~10-14 bytes per point, these ~5.6); neither ilmap nor SRM's decode loop reads
  // them, so a filler of the same size stands in for them (it is hashed and mapped, not parsed).
  if (opt.pad_to) {
    const std::uint64_t now = blob.data.size() + std::uint64_t(doc_count) * 12 + std::uint64_t(method_count) * 8 + 512;
    if (opt.pad_to > now + 8) {
      Bytes filler(static_cast<std::size_t>(opt.pad_to - now - 8));
      for (auto& x : filler) x = static_cast<std::uint8_t>(rng.next());
      blob.add(filler);
      pad4(blob.data);
    }
  }
  if (methods.size() > 0xFFFFFF || doc_count > 0xFFFFFF) {
    std::fprintf(stderr, "gen_pdb: too many rows\n");
    return 2;
  }
  const bool wide_blob = blob.data.size() >= 0x10000;
  const bool wide_doc = doc_count >= 0x10000;

  // #Pdb
  Bytes pdb;
  for (int i = 0; i < 20; ++i) pdb.push_back(static_cast<std::uint8_t>(rng.next()));
  put_u32(pdb, 0);  // entry point
  put_u64(pdb, (1ull << 0x00) | (1ull << 0x02) | (1ull << 0x06));  // Module, TypeDef, MethodDef
  put_u32(pdb, 1);
  put_u32(pdb, std::max<std::uint32_t>(1, method_count / 12));
  put_u32(pdb, method_count);
  pad4(pdb);

  // #~
  Bytes tables;
  put_u32(tables, 0);
  tables.push_back(2);  // major
  tables.push_back(0);  // minor
  tables.push_back(wide_blob ? 0x04 : 0x00);
  tables.push_back(1);
  put_u64(tables, (1ull << 0x30) | (1ull << 0x31));
  put_u64(tables, (1ull << 0x32) | (1ull << 0x33) | (1ull << 0x34) | (1ull << 0x35) | (1ull << 0x36) | (1ull << 0x37));
  put_u32(tables, doc_count);
  put_u32(tables, method_count);
  for (const DocRow& d : docs) {
    put_index(tables, d.name, wide_blob);
    put_u16(tables, 2);  // HashAlgorithm: #GUID index 2 (SHA-256)
    put_index(tables, d.hash, wide_blob);
    put_u16(tables, 1);  // Language: #GUID index 1 (C#)
  }
  for (const MdiRow& m : methods) {
    put_index(tables, m.doc, wide_doc);
    put_index(tables, m.sp, wide_blob);
  }
  pad4(tables);

  const Bytes strings{0, 0, 0, 0};
  const Bytes us{0, 0, 0, 0};
  const Bytes guids{0xf8, 0x62, 0x51, 0x3f, 0xc6, 0x07, 0xd3, 0x11, 0x90, 0x53, 0x00, 0xc0, 0x4f, 0xa3, 0x02, 0xa1,
                    0x0f, 0xd0, 0x29, 0x88, 0xb8, 0x11, 0x13, 0x42, 0x87, 0x8b, 0x77, 0x0e, 0x85, 0x97, 0xac, 0x16};

  // Metadata root + stream headers.
  struct Stream {
    const char* name;
    const Bytes* data;
  };
  const Stream streams[] = {{"#Pdb", &pdb}, {"#~", &tables}, {"#Strings", &strings},
                            {"#US", &us},   {"#GUID", &guids}, {"#Blob", &blob.data}};
  const char version[12] = "PDB v1.0";
  std::size_t header_size = 16 + 12 + 4;
  for (const Stream& s : streams) header_size += 8 + ((std::strlen(s.name) + 1 + 3) & ~std::size_t(3));
  Bytes root;
  put_u32(root, 0x424A5342);
  put_u16(root, 1);
  put_u16(root, 1);
  put_u32(root, 0);
  put_u32(root, 12);
  root.insert(root.end(), version, version + 12);
  put_u16(root, 0);
  put_u16(root, static_cast<std::uint32_t>(std::size(streams)));
  std::uint64_t off = header_size;
  for (const Stream& s : streams) {
    put_u32(root, static_cast<std::uint32_t>(off));
    put_u32(root, static_cast<std::uint32_t>(s.data->size()));
    root.insert(root.end(), s.name, s.name + std::strlen(s.name) + 1);
    pad4(root);
    off += s.data->size();
  }
  if (root.size() != header_size) {
    std::fprintf(stderr, "gen_pdb: internal error: header size\n");
    return 2;
  }
  if (off > 0xFFFFFFFFull) {
    std::fprintf(stderr, "gen_pdb: output over 4 GiB\n");
    return 2;
  }

  std::FILE* f = std::fopen(opt.out.c_str(), "wb");
  if (!f) {
    std::perror(opt.out.c_str());
    return 2;
  }
  bool ok = std::fwrite(root.data(), 1, root.size(), f) == root.size();
  for (const Stream& s : streams) ok = ok && std::fwrite(s.data->data(), 1, s.data->size(), f) == s.data->size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    std::perror(opt.out.c_str());
    return 2;
  }
  std::printf("%s: %llu bytes, %u documents, %u methods, %llu points (%llu hidden), blob indices %d bytes, document indices %d bytes\n",
              opt.out.c_str(), static_cast<unsigned long long>(off), doc_count, method_count,
              static_cast<unsigned long long>(points), static_cast<unsigned long long>(hidden), wide_blob ? 4 : 2,
              wide_doc ? 4 : 2);
  return 0;
}
