// MsfFormat.h - on-disk structures of MSF 7.00 PDB files, as far as managed line info needs them.
//
// Sources (read, not copied): LLVM docs/PDB/{MsfFile,PdbStream,DbiStream,ModiStream,
// CodeViewSymbols,HashTable,StringTable}.rst; microsoft/microsoft-pdb PDB/msf/msf.cpp (BIGMSF_HDR),
// PDB/include/dbicommon.h and langapi/include/cvinfo.h (MANPROCSYM, CV_DebugSSubsectionHeader_t,
// CV_DebugSLinesHeader_t, CV_Line_t, CV_Column_t). All little endian, no implicit padding: every
// struct below has the size the format gives, checked by static_assert, and is read with memcpy
// through ByteCursor. Fields named as in those sources, in lower_snake.
#pragma once

#include <array>
#include <cstdint>

namespace ilmap::msf {

// ---- the container (MsfFile.rst; msf.cpp BIGMSF_HDR) -------------------------------------------
// "Microsoft C/C++ MSF 7.00\r\n" 0x1a "DS" 0 0 0 (32 bytes).
inline constexpr std::array<std::uint8_t, 32> kMagic = {
    'M', 'i', 'c', 'r', 'o', 's', 'o', 'f', 't', ' ', 'C', '/', 'C', '+', '+', ' ',
    'M', 'S', 'F', ' ', '7', '.', '0', '0', '\r', '\n', 0x1a, 'D', 'S', 0, 0, 0};

// Block 0. The directory's block numbers are listed on "block map" blocks, whose own numbers
// follow this header (msf.cpp's mpspnpn[]: LLVM reads only the first, which limits the directory
// to block_size / 4 blocks; the array lifts that limit and ilmap reads it whole).
struct SuperBlock {
  std::uint8_t magic[32];
  std::uint32_t block_size;           // 512, 1024, 2048 or 4096
  std::uint32_t free_block_map_block; // 1 or 2: which of the two alternating FPM copies is live
  std::uint32_t num_blocks;           // blocks in the file
  std::uint32_t num_directory_bytes;  // size of the stream directory
  std::uint32_t unknown;              // reserved (a pointer in memory)
  std::uint32_t block_map_addr;       // first block-map block (more follow in the array)
};
static_assert(sizeof(SuperBlock) == 56);
inline constexpr std::uint32_t kBlockMapArrayOffset = 52;  // offset of block_map_addr
inline constexpr std::uint32_t kNilStreamSize = 0xFFFFFFFFu;  // a stream that does not exist

// Fixed stream indices (PdbStream.rst, "Stream indices").
inline constexpr std::uint32_t kStreamOldDirectory = 0;
inline constexpr std::uint32_t kStreamPdbInfo = 1;
inline constexpr std::uint32_t kStreamTpi = 2;
inline constexpr std::uint32_t kStreamDbi = 3;
inline constexpr std::uint32_t kStreamIpi = 4;

// ---- PDB info stream (PdbStream.rst) -----------------------------------------------------------
struct PdbStreamHeader {
  std::uint32_t version;    // 20000404 (VC70) for every PDB written since 2000
  std::uint32_t signature;  // time stamp of creation
  std::uint32_t age;
  std::uint8_t guid[16];    // on-disk GUID byte order, as in the PE's RSDS record
};
static_assert(sizeof(PdbStreamHeader) == 28);
inline constexpr std::uint32_t kPdbVersionVc70 = 20000404;

// ---- /names string table (StringTable.rst) -----------------------------------------------------
struct StringTableHeader {
  std::uint32_t signature;     // 0xEFFEEFFE
  std::uint32_t hash_version;  // 1 or 2
  std::uint32_t byte_size;     // of the string buffer that follows
};
static_assert(sizeof(StringTableHeader) == 12);
inline constexpr std::uint32_t kStringTableSignature = 0xEFFEEFFEu;

// ---- DBI stream (DbiStream.rst; dbicommon.h NewDBIHdr) -----------------------------------------
struct DbiStreamHeader {
  std::int32_t version_signature;  // -1
  std::uint32_t version_header;    // 19990903 (V70) and later
  std::uint32_t age;               // the age the PE's CodeView record must carry
  std::uint16_t global_stream_index;
  std::uint16_t build_number;
  std::uint16_t public_stream_index;
  std::uint16_t pdb_dll_version;
  std::uint16_t sym_record_stream;
  std::uint16_t pdb_dll_rbld;
  std::int32_t mod_info_size;
  std::int32_t section_contribution_size;
  std::int32_t section_map_size;
  std::int32_t source_info_size;
  std::int32_t type_server_map_size;
  std::uint32_t mfc_type_server_index;
  std::int32_t optional_dbg_header_size;
  std::int32_t ec_substream_size;
  std::uint16_t flags;
  std::uint16_t machine;
  std::uint32_t padding;
};
static_assert(sizeof(DbiStreamHeader) == 64);
inline constexpr std::uint32_t kDbiVersionV70 = 19990903;

// Section contribution inside a module record (DbiStream.rst SectionContribEntry).
struct SectionContribEntry {
  std::uint16_t section;
  std::uint8_t padding1[2];
  std::int32_t offset;
  std::int32_t size;
  std::uint32_t characteristics;
  std::uint16_t module_index;
  std::uint8_t padding2[2];
  std::uint32_t data_crc;
  std::uint32_t reloc_crc;
};
static_assert(sizeof(SectionContribEntry) == 28);

// The fixed part of a module record; two NUL-terminated names follow, then padding to 4.
struct ModInfoHeader {
  std::uint32_t unused1;
  SectionContribEntry section_contr;
  std::uint16_t flags;
  std::uint16_t module_sym_stream;  // 0xFFFF: the module has no symbol stream
  std::uint32_t sym_byte_size;      // symbols, including the 4-byte signature
  std::uint32_t c11_byte_size;      // old-style line info (not read: managed PDBs use C13)
  std::uint32_t c13_byte_size;      // C13 debug subsections
  std::uint16_t source_file_count;
  std::uint8_t padding[2];
  std::uint32_t unused2;
  std::uint32_t source_file_name_index;
  std::uint32_t pdb_file_path_name_index;
};
static_assert(sizeof(ModInfoHeader) == 64);
inline constexpr std::uint16_t kNoStream16 = 0xFFFF;

// Optional debug header: 11 stream indices; index 6 names the token -> rid map (CCI
// PdbFile.LoadFunctions applies it to every method token when present).
inline constexpr unsigned kDbgHeaderTokenRidMap = 6;

// ---- module symbol stream (ModiStream.rst, CodeViewSymbols.rst) --------------------------------
inline constexpr std::uint32_t kCvSignatureC13 = 4;

struct SymbolRecordHeader {
  std::uint16_t record_len;  // bytes after this field (kind + data)
  std::uint16_t record_kind;
};
static_assert(sizeof(SymbolRecordHeader) == 4);

inline constexpr std::uint16_t kSymGManProc = 0x112A;  // S_GMANPROC
inline constexpr std::uint16_t kSymLManProc = 0x112B;  // S_LMANPROC

// cvinfo.h MANPROCSYM after rectyp: packed (the 1-byte flags put ret_reg at an odd offset);
// the method's name (NUL-terminated) follows.
#pragma pack(push, 1)
struct ManProcSym {
  std::uint32_t parent;
  std::uint32_t end;
  std::uint32_t next;
  std::uint32_t len;        // IL code length
  std::uint32_t dbg_start;
  std::uint32_t dbg_end;
  std::uint32_t token;      // the MethodDef token
  std::uint32_t off;        // the method's start in the line blocks' address space
  std::uint16_t seg;
  std::uint8_t flags;
  std::uint16_t ret_reg;
};
#pragma pack(pop)
static_assert(sizeof(ManProcSym) == 37);

// ---- C13 debug subsections (cvinfo.h DEBUG_S_SUBSECTION_TYPE) ----------------------------------
struct SubsectionHeader {
  std::uint32_t kind;
  std::uint32_t length;  // bytes of data after this header; the next header is 4-aligned
};
static_assert(sizeof(SubsectionHeader) == 8);
inline constexpr std::uint32_t kDebugSIgnore = 0x80000000u;  // flag: skip this subsection
inline constexpr std::uint32_t kDebugSLines = 0xF2;
inline constexpr std::uint32_t kDebugSFileChecksums = 0xF4;

// DEBUG_S_LINES: one header, then file blocks.
struct LinesHeader {
  std::uint32_t off_con;  // start of the covered code (matched against ManProcSym::off)
  std::uint16_t seg_con;
  std::uint16_t flags;    // kLinesHaveColumns
  std::uint32_t cb_con;   // bytes of code covered
};
static_assert(sizeof(LinesHeader) == 12);
inline constexpr std::uint16_t kLinesHaveColumns = 0x0001;  // CV_LINES_HAVE_COLUMNS

struct LinesFileBlockHeader {
  std::uint32_t file_id;    // byte offset of the entry in the DEBUG_S_FILECHKSMS subsection
  std::uint32_t num_lines;
  std::uint32_t block_size; // this header + lines + columns
};
static_assert(sizeof(LinesFileBlockHeader) == 12);

struct CvLine {
  std::uint32_t offset;  // relative to LinesHeader::off_con
  std::uint32_t flags;   // bits 0-23 start line, 24-30 end-line delta, 31 is-statement
};
static_assert(sizeof(CvLine) == 8);
inline constexpr std::uint32_t kLineStartMask = 0x00FFFFFFu;
inline constexpr unsigned kLineDeltaShift = 24;
inline constexpr std::uint32_t kLineDeltaMask = 0x7Fu;

struct CvColumn {
  std::uint16_t start;
  std::uint16_t end;
};
static_assert(sizeof(CvColumn) == 4);

// DEBUG_S_FILECHKSMS entry; `size` checksum bytes follow, then padding to 4.
#pragma pack(push, 1)
struct FileChecksumHeader {
  std::uint32_t name_offset;  // into /names
  std::uint8_t size;
  std::uint8_t kind;          // kChecksum*
};
#pragma pack(pop)
static_assert(sizeof(FileChecksumHeader) == 6);
inline constexpr std::uint8_t kChecksumNone = 0;
inline constexpr std::uint8_t kChecksumMd5 = 1;
inline constexpr std::uint8_t kChecksumSha1 = 2;
inline constexpr std::uint8_t kChecksumSha256 = 3;

// ---- /src/files/<name> named streams (CCI PdbFile.LoadInjectedSourceInformation) ----------------
// Written by the managed PDB writer for each document: language, vendor, document type and
// checksum algorithm GUIDs, then the checksum's size, the injected source's size, the checksum.
struct SourceFileInfoHeader {
  std::uint8_t language[16];
  std::uint8_t vendor[16];
  std::uint8_t document_type[16];
  std::uint8_t checksum_algorithm[16];
  std::int32_t checksum_size;
  std::int32_t injected_source_size;
};
static_assert(sizeof(SourceFileInfoHeader) == 72);

}  // namespace ilmap::msf
