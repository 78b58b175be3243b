// MsfWriter.h - builds small MSF 7.00 PDBs for tests: the container (superblock, free block
// map, streams, directory, block map) and the streams a managed PDB has (PDB info with its
// named-stream map, /names, DBI with module records, module streams with S_*MANPROC records and
// C13 subsections). The layout is fixed and reported (Layout), so hostile tests can patch a
// known byte. Written from the same documents as the decoder (decode/msf/MsfFormat.h), and
// checked against real PDBs by the corpus test, which the decoder must pass first.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "decode/msf/MsfFormat.h"

namespace ilmap::msf::test {

using Bytes = std::vector<std::uint8_t>;

template <class T>
void put(Bytes& b, const T& v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  b.insert(b.end(), p, p + sizeof(T));
}
inline void put_u16(Bytes& b, std::uint16_t v) { put(b, v); }
inline void put_u32(Bytes& b, std::uint32_t v) { put(b, v); }
inline void put_str(Bytes& b, const std::string& s) {
  b.insert(b.end(), s.begin(), s.end());
  b.push_back(0);
}
inline void align4(Bytes& b) {
  while (b.size() % 4) b.push_back(0);
}
inline void patch_u32(Bytes& b, std::size_t at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }
inline std::uint32_t get_u32(const Bytes& b, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

// ---- the container --------------------------------------------------------------------------
struct Layout {
  std::uint32_t block_size = 0;
  std::vector<std::vector<std::uint32_t>> stream_blocks;
  std::vector<std::uint32_t> directory_blocks;
  std::vector<std::uint32_t> map_blocks;
  std::uint32_t num_blocks = 0;
  // File offset of the directory's byte `pos`.
  std::size_t directory_offset(std::size_t pos) const {
    return std::size_t(directory_blocks[pos / block_size]) * block_size + pos % block_size;
  }
  std::size_t stream_offset(std::size_t stream, std::size_t pos) const {
    return std::size_t(stream_blocks[stream][pos / block_size]) * block_size + pos % block_size;
  }
};

struct MsfStream {
  Bytes bytes;
  bool nil = false;
};

// Blocks: 0 superblock, 1-2 free block maps, every stream in order, the directory, the block map.
inline Bytes write_msf(const std::vector<MsfStream>& streams, std::uint32_t bs = 512,
                       Layout* layout = nullptr) {
  Layout l;
  l.block_size = bs;
  std::uint32_t next = 3;
  auto blocks_for = [&](std::size_t n) { return static_cast<std::uint32_t>((n + bs - 1) / bs); };
  Bytes dir;
  put_u32(dir, static_cast<std::uint32_t>(streams.size()));
  for (const auto& s : streams) put_u32(dir, s.nil ? kNilStreamSize : static_cast<std::uint32_t>(s.bytes.size()));
  for (const auto& s : streams) {
    std::vector<std::uint32_t> bl;
    if (!s.nil)
      for (std::uint32_t i = 0; i < blocks_for(s.bytes.size()); ++i) bl.push_back(next++);
    for (auto b : bl) put_u32(dir, b);
    l.stream_blocks.push_back(bl);
  }
  for (std::uint32_t i = 0; i < blocks_for(dir.size()); ++i) l.directory_blocks.push_back(next++);
  Bytes map;
  for (auto b : l.directory_blocks) put_u32(map, b);
  for (std::uint32_t i = 0; i < blocks_for(map.size()); ++i) l.map_blocks.push_back(next++);
  l.num_blocks = next;

  Bytes f(std::size_t(next) * bs, 0);
  SuperBlock sb{};
  std::memcpy(sb.magic, kMagic.data(), kMagic.size());
  sb.block_size = bs;
  sb.free_block_map_block = 1;
  sb.num_blocks = next;
  sb.num_directory_bytes = static_cast<std::uint32_t>(dir.size());
  std::memcpy(f.data(), &sb, sizeof sb - 4);
  for (std::size_t i = 0; i < l.map_blocks.size(); ++i) patch_u32(f, kBlockMapArrayOffset + 4 * i, l.map_blocks[i]);
  auto scatter = [&](const Bytes& data, const std::vector<std::uint32_t>& bl) {
    for (std::size_t i = 0; i < data.size(); ++i) f[std::size_t(bl[i / bs]) * bs + i % bs] = data[i];
  };
  for (std::size_t i = 0; i < streams.size(); ++i) scatter(streams[i].bytes, l.stream_blocks[i]);
  scatter(dir, l.directory_blocks);
  scatter(map, l.map_blocks);
  if (layout) *layout = l;
  return f;
}

// ---- PDB streams ----------------------------------------------------------------------------
struct Line {
  std::uint32_t offset;
  std::uint32_t start, end;
  std::uint16_t col_start = 0, col_end = 0;
  bool statement = true;
};
struct FileBlock {
  std::uint32_t file;  // index into Module::files (converted to the checksum entry's offset)
  std::vector<Line> lines;
  std::uint32_t file_id_override = 0xFFFFFFFFu;  // raw file id when set
};
struct Lines {
  std::uint32_t offset;
  std::uint16_t segment = 1;
  bool columns = true;
  std::uint32_t code_size = 0;
  std::vector<FileBlock> blocks;
};
struct Proc {
  std::uint32_t token;
  std::uint32_t offset;
  std::uint32_t length;
  std::uint16_t segment = 1;
  std::uint16_t kind = kSymGManProc;  // 0x1110 (S_GPROC32) makes a native procedure
  std::string name = "M";
};
struct Module {
  std::string name = "C";
  std::vector<Proc> procs;
  std::vector<std::string> files;  // checksum entries (names go to /names)
  std::vector<Lines> lines;
  std::vector<std::uint8_t> checksum;  // bytes given to every checksum entry (kind SHA-1 when 20)
};
struct Pdb {
  std::uint8_t guid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  std::uint32_t info_age = 3;
  std::uint32_t dbi_age = 3;
  std::vector<Module> modules;
  std::vector<std::uint32_t> rid_map;  // non-empty: a token rid map stream
  std::uint32_t block_size = 512;
  std::uint32_t extra_nil_streams = 0;  // appended after everything (large directories)
  // More named streams ("/src/files/...", "srcsrv", "sourcelink"), after the module streams.
  std::vector<std::pair<std::string, Bytes>> named;
};

// A /src/files/<name> stream: language, vendor, document type, checksum algorithm, sizes, checksum.
inline Bytes source_file_info(const std::uint8_t (&language)[16], const std::uint8_t (&algorithm)[16],
                              const Bytes& checksum) {
  SourceFileInfoHeader h{};
  std::memcpy(h.language, language, 16);
  std::memcpy(h.checksum_algorithm, algorithm, 16);
  h.checksum_size = static_cast<std::int32_t>(checksum.size());
  Bytes b;
  put(b, h);
  b.insert(b.end(), checksum.begin(), checksum.end());
  return b;
}

// The stream numbers write_pdb uses.
inline constexpr std::uint32_t kNamesStream = 5;
inline constexpr std::uint32_t kFirstModuleStream = 6;

// Offsets of the checksum entries of names laid out as write_pdb does.
inline std::uint32_t checksum_entry_size(const Module& m) {
  return static_cast<std::uint32_t>((sizeof(FileChecksumHeader) + m.checksum.size() + 3) / 4 * 4);
}

inline Bytes module_stream(const Module& m, const std::vector<std::uint32_t>& name_offsets,
                           std::uint32_t* sym_bytes, std::uint32_t* c13_bytes) {
  Bytes s;
  put_u32(s, kCvSignatureC13);
  for (const Proc& p : m.procs) {
    Bytes rec;
    put_u16(rec, p.kind);
    ManProcSym ps{};
    ps.len = p.length;
    ps.token = p.token;
    ps.off = p.offset;
    ps.seg = p.segment;
    put(rec, ps);
    put_str(rec, p.name);
    while ((rec.size() + 2) % 4) rec.push_back(0);
    put_u16(s, static_cast<std::uint16_t>(rec.size()));
    s.insert(s.end(), rec.begin(), rec.end());
  }
  *sym_bytes = static_cast<std::uint32_t>(s.size());
  const std::size_t c13_start = s.size();
  if (!m.files.empty()) {
    Bytes d;
    for (std::size_t i = 0; i < m.files.size(); ++i) {
      FileChecksumHeader h{name_offsets[i], static_cast<std::uint8_t>(m.checksum.size()),
                           m.checksum.empty() ? kChecksumNone : kChecksumSha1};
      put(d, h);
      d.insert(d.end(), m.checksum.begin(), m.checksum.end());
      align4(d);
    }
    put_u32(s, kDebugSFileChecksums);
    put_u32(s, static_cast<std::uint32_t>(d.size()));
    s.insert(s.end(), d.begin(), d.end());
  }
  for (const Lines& l : m.lines) {
    Bytes d;
    LinesHeader h{l.offset, l.segment, static_cast<std::uint16_t>(l.columns ? kLinesHaveColumns : 0),
                  l.code_size};
    put(d, h);
    for (const FileBlock& b : l.blocks) {
      const auto n = static_cast<std::uint32_t>(b.lines.size());
      const std::uint32_t id =
          b.file_id_override != 0xFFFFFFFFu ? b.file_id_override : b.file * checksum_entry_size(m);
      put_u32(d, id);
      put_u32(d, n);
      put_u32(d, 12 + n * (l.columns ? 12 : 8));
      for (const Line& x : b.lines) {
        put_u32(d, x.offset);
        put_u32(d, (x.start & kLineStartMask) | ((x.end - x.start) & kLineDeltaMask) << kLineDeltaShift |
                       (x.statement ? 0x80000000u : 0));
      }
      if (l.columns)
        for (const Line& x : b.lines) {
          put_u16(d, x.col_start);
          put_u16(d, x.col_end);
        }
    }
    put_u32(s, kDebugSLines);
    put_u32(s, static_cast<std::uint32_t>(d.size()));
    s.insert(s.end(), d.begin(), d.end());
  }
  *c13_bytes = static_cast<std::uint32_t>(s.size() - c13_start);
  put_u32(s, 0);  // global refs size
  return s;
}

// Streams: 0 old directory (nil), 1 PDB info, 2 TPI (empty), 3 DBI, 4 IPI (empty), 5 /names,
// 6.. one per module, then the rid map, Pdb::named's streams, extra nil streams.
inline Bytes write_pdb(const Pdb& pdb, Layout* layout = nullptr) {
  std::vector<MsfStream> st(6);
  st[0].nil = true;
  // /names: every module's file names, each once.
  Bytes strings{0};
  std::vector<std::vector<std::uint32_t>> name_offsets;
  for (const Module& m : pdb.modules) {
    auto& offs = name_offsets.emplace_back();
    for (const std::string& f : m.files) {
      offs.push_back(static_cast<std::uint32_t>(strings.size()));
      put_str(strings, f);
    }
  }
  Bytes names;
  put_u32(names, kStringTableSignature);
  put_u32(names, 1);
  put_u32(names, static_cast<std::uint32_t>(strings.size()));
  names.insert(names.end(), strings.begin(), strings.end());
  put_u32(names, 0);  // buckets
  put_u32(names, 0);  // name count
  st[kNamesStream].bytes = names;

  Bytes mods;
  for (std::size_t i = 0; i < pdb.modules.size(); ++i) {
    std::uint32_t sym = 0, c13 = 0;
    st.push_back({module_stream(pdb.modules[i], name_offsets[i], &sym, &c13), false});
    ModInfoHeader h{};
    h.module_sym_stream = static_cast<std::uint16_t>(kFirstModuleStream + i);
    h.sym_byte_size = sym;
    h.c13_byte_size = c13;
    put(mods, h);
    put_str(mods, pdb.modules[i].name);
    put_str(mods, pdb.modules[i].name + ".obj");
    align4(mods);
  }
  std::uint16_t rid_stream = kNoStream16;
  if (!pdb.rid_map.empty()) {
    rid_stream = static_cast<std::uint16_t>(st.size());
    Bytes r;
    for (auto v : pdb.rid_map) put_u32(r, v);
    st.push_back({r, false});
  }
  Bytes dbg;
  for (unsigned i = 0; i < 11; ++i) put_u16(dbg, i == kDbgHeaderTokenRidMap ? rid_stream : kNoStream16);
  DbiStreamHeader dh{};
  dh.version_signature = -1;
  dh.version_header = kDbiVersionV70;
  dh.age = pdb.dbi_age;
  dh.mod_info_size = static_cast<std::int32_t>(mods.size());
  dh.optional_dbg_header_size = static_cast<std::int32_t>(dbg.size());
  Bytes dbi;
  put(dbi, dh);
  dbi.insert(dbi.end(), mods.begin(), mods.end());
  dbi.insert(dbi.end(), dbg.begin(), dbg.end());
  st[3].bytes = dbi;

  // PDB info stream with the named-stream map: "/names" -> 5, then Pdb::named.
  std::vector<std::pair<std::string, std::uint32_t>> map{{"/names", kNamesStream}};
  for (const auto& [name, bytes] : pdb.named) {
    map.emplace_back(name, static_cast<std::uint32_t>(st.size()));
    st.push_back({bytes, false});
  }
  Bytes info;
  PdbStreamHeader ih{kPdbVersionVc70, 0x12345678, pdb.info_age, {}};
  std::memcpy(ih.guid, pdb.guid, 16);
  put(info, ih);
  Bytes map_strings;
  std::vector<std::uint32_t> keys;
  for (const auto& e : map) {
    keys.push_back(static_cast<std::uint32_t>(map_strings.size()));
    put_str(map_strings, e.first);
  }
  put_u32(info, static_cast<std::uint32_t>(map_strings.size()));
  info.insert(info.end(), map_strings.begin(), map_strings.end());
  const auto n = static_cast<std::uint32_t>(map.size());
  put_u32(info, n);      // size
  put_u32(info, 2 * n);  // capacity
  const std::uint32_t words = (2 * n + 31) / 32;
  put_u32(info, words);  // present: buckets 0 .. n-1
  for (std::uint32_t w = 0; w < words; ++w) {
    std::uint32_t bits = 0;
    for (std::uint32_t i = 0; i < 32; ++i)
      if (w * 32 + i < n) bits |= 1u << i;
    put_u32(info, bits);
  }
  put_u32(info, 0);  // deleted: 0 words
  for (std::uint32_t i = 0; i < n; ++i) {
    put_u32(info, keys[i]);
    put_u32(info, map[i].second);
  }
  put_u32(info, 0);  // niMac
  put_u32(info, 20140508);  // feature code VC140
  st[1].bytes = info;
  for (std::uint32_t i = 0; i < pdb.extra_nil_streams; ++i) st.push_back({{}, true});
  return write_msf(st, pdb.block_size, layout);
}

}  // namespace ilmap::msf::test
