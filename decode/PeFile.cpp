// PeFile.cpp - DOS/NT/optional headers, sections, debug directory, CLI header and metadata.
//
// PE/COFF as read by System.Reflection.Metadata (PEHeaders.cs, PEReader.cs, CorHeader.cs);
// debug-directory entry data per dotnet/runtime docs/design/specs/PE-COFF.md. Every offset and
// size taken from the file is checked before use; entry data are read at PointerToRawData (the
// on-disk view, as SRM does for files). NumberOfRvaAndSizes is respected, unlike SRM.
#include "decode/PeFile.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace ilmap {
namespace {

constexpr std::size_t kDosHeaderSize = 64;
constexpr std::size_t kLfanewOffset = 0x3C;
constexpr std::size_t kSizeOfImageOffset = 56;  // in the optional header, PE32 and PE32+
constexpr std::size_t kCodeViewFixedSize = 24;  // RSDS, GUID, age
constexpr std::size_t kMpdbHeaderSize = 8;      // MPDB, u32 uncompressed size
constexpr unsigned kMaxDirectories = 16;
// Deflate's densest code is a 258-byte match in 2 bits (1-bit length and distance codes), so
// n compressed bytes inflate to at most 1032 * n bytes; a larger declared size is impossible.
constexpr std::uint64_t kMaxDeflateRatio = 1032;

}  // namespace

Result<PeFile> PeFile::parse(std::span<const std::uint8_t> bytes, const PeOptions& options) {
  PeFile f;
  f.bytes_ = bytes;
  f.options_ = options;
  ByteCursor c(bytes);
  if (Status s = f.parse_headers(c); !s) return s.error();
  if (Status s = f.parse_debug_directory(); !s) return s.error();
  if (Status s = f.parse_cli(); !s) return s.error();
  return f;
}

Status PeFile::parse_headers(ByteCursor& c) {
  if (bytes_.size() < 2 || bytes_[0] != 'M' || bytes_[1] != 'Z')
    return {Errc::kBadMagic, "DOS header at file offset 0x0: signature is not MZ"};
  if (bytes_.size() < kDosHeaderSize)
    return {Errc::kTruncated, format("DOS header at file offset 0x0: %zu bytes, needs %zu", bytes_.size(), kDosHeaderSize)};
  std::uint32_t lfanew = 0;
  (void)c.seek(kLfanewOffset);
  (void)c.read(lfanew);
  if (lfanew > bytes_.size() || bytes_.size() - lfanew < 4)
    return {Errc::kMalformed, format("DOS header at file offset 0x3c: e_lfanew 0x%x points outside the file (size 0x%zx)", lfanew, bytes_.size())};
  (void)c.seek(lfanew);
  char sig[4];
  (void)c.read(sig);
  if (std::memcmp(sig, "PE\0\0", 4) != 0)
    return {Errc::kBadMagic, format("NT headers at file offset 0x%x: signature is not PE\\0\\0", lfanew)};
  pe::CoffFileHeader coff{};
  const std::size_t coff_at = c.abs();
  if (!c.read(coff))
    return {Errc::kTruncated, format("COFF header at file offset 0x%zx: truncated (file size 0x%zx)", coff_at, bytes_.size())};
  info_.machine = coff.machine;
  info_.timestamp = coff.time_date_stamp;

  const std::size_t opt_at = c.abs();
  ByteCursor opt;
  if (!c.sub(coff.size_of_optional_header, opt))
    return {Errc::kTruncated, format("optional header at file offset 0x%zx: SizeOfOptionalHeader 0x%x exceeds the file", opt_at, coff.size_of_optional_header)};
  std::uint16_t magic = 0;
  if (!opt.read(magic))
    return {Errc::kTruncated, format("optional header at file offset 0x%zx: magic truncated", opt_at)};
  if (magic != pe::kPe32Magic && magic != pe::kPe32PlusMagic)
    return {Errc::kBadMagic, format("optional header at file offset 0x%zx: magic 0x%x is neither PE32 (0x10b) nor PE32+ (0x20b)", opt_at, magic)};
  info_.pe32_plus = magic == pe::kPe32PlusMagic;
  const std::size_t count_at = info_.pe32_plus ? 108 : 92;
  std::uint32_t dir_count = 0;
  if (!opt.seek(kSizeOfImageOffset) || !opt.read(info_.size_of_image) || !opt.seek(count_at) ||
      !opt.read(dir_count))
    return {Errc::kTruncated, format("optional header at file offset 0x%zx: SizeOfOptionalHeader 0x%x too small for a %s header", opt_at, coff.size_of_optional_header, info_.pe32_plus ? "PE32+" : "PE32")};
  if (std::uint64_t(dir_count) * sizeof(pe::DataDirectory) > opt.remaining())
    return {Errc::kMalformed, format("optional header at file offset 0x%zx: NumberOfRvaAndSizes %u does not fit in SizeOfOptionalHeader 0x%x", opt_at, dir_count, coff.size_of_optional_header)};
  for (unsigned i = 0; i < std::min(dir_count, kMaxDirectories); ++i) {
    pe::DataDirectory d{};
    (void)opt.read(d);
    directories_.push_back(d);
  }

  const std::size_t sec_at = c.abs();
  const std::uint64_t sec_bytes = std::uint64_t(coff.number_of_sections) * sizeof(pe::SectionHeader);
  if (sec_bytes > c.remaining())
    return {Errc::kTruncated, format("section table at file offset 0x%zx: %u sections of 40 bytes extend past the end of the file (size 0x%zx)", sec_at, coff.number_of_sections, bytes_.size())};
  sections_.resize(coff.number_of_sections);
  for (pe::SectionHeader& s : sections_) (void)c.read(s);
  return {};
}

std::optional<pe::DataDirectory> PeFile::directory(unsigned index) const {
  if (index >= directories_.size()) return std::nullopt;
  return directories_[index];
}

std::optional<std::size_t> PeFile::rva_to_offset(std::uint32_t rva, std::uint32_t size) const {
  for (const pe::SectionHeader& s : sections_) {
    if (rva < s.virtual_address || std::uint64_t(rva) >= std::uint64_t(s.virtual_address) + s.virtual_size)
      continue;
    // Only min(VirtualSize, SizeOfRawData) bytes of a section come from the file.
    const std::uint64_t backed = std::min(s.virtual_size, s.size_of_raw_data);
    const std::uint64_t in = rva - s.virtual_address;
    if (in + size > backed) return std::nullopt;
    const std::uint64_t off = std::uint64_t(s.pointer_to_raw_data) + in;
    if (off + size > bytes_.size()) return std::nullopt;
    return static_cast<std::size_t>(off);
  }
  return std::nullopt;
}

std::span<const std::uint8_t> PeFile::rva_bytes(std::uint32_t rva) const {
  for (const pe::SectionHeader& s : sections_) {
    if (rva < s.virtual_address || std::uint64_t(rva) >= std::uint64_t(s.virtual_address) + s.virtual_size)
      continue;
    const std::uint64_t backed = std::min(s.virtual_size, s.size_of_raw_data);
    const std::uint64_t in = rva - s.virtual_address;
    if (in >= backed) return {};
    const std::uint64_t off = std::uint64_t(s.pointer_to_raw_data) + in;
    if (off >= bytes_.size()) return {};
    const std::uint64_t end = std::min<std::uint64_t>(std::uint64_t(s.pointer_to_raw_data) + backed, bytes_.size());
    return bytes_.subspan(static_cast<std::size_t>(off), static_cast<std::size_t>(end - off));
  }
  return {};
}

Status PeFile::parse_debug_directory() {
  const auto dir = directory(pe::kDirDebug);
  if (!dir || dir->size == 0) return {};
  if (dir->size % sizeof(pe::DebugDirectoryEntry) != 0)
    return {Errc::kMalformed, format("debug directory (RVA 0x%x): size 0x%x is not a multiple of 28", dir->rva, dir->size)};
  const auto off = rva_to_offset(dir->rva, dir->size);
  if (!off)
    return {Errc::kTruncated, format("debug directory (RVA 0x%x, size 0x%x) is not inside the file-backed part of a section", dir->rva, dir->size)};
  ByteCursor c(bytes_.subspan(*off, dir->size), *off);
  for (unsigned i = 0; !c.empty(); ++i) {
    const std::size_t at = c.abs();
    pe::DebugDirectoryEntry e{};
    (void)c.read(e);  // the size is a multiple of 28
    debug_.push_back(e);
    if (Status s = parse_debug_entry(i, e, at); !s) {
      // `ilmap info` still describes a PE whose embedded PDB entry it cannot use.
      if (e.type != pe::kDebugEmbeddedPortablePdb || options_.embedded_pdb_errors_fatal) return s;
      if (info_.embedded_pdb_error.empty()) info_.embedded_pdb_error = s.message();
    }
  }
  return {};
}

Status PeFile::parse_debug_entry(unsigned index, const pe::DebugDirectoryEntry& e,
                                 std::size_t at) {
  if (e.type == pe::kDebugReproducible) {
    info_.reproducible = true;
    return {};
  }
  if (e.type != pe::kDebugCodeView && e.type != pe::kDebugEmbeddedPortablePdb &&
      e.type != pe::kDebugPdbChecksum)
    return {};  // other kinds (R2R perf map, POGO, ...) are not needed
  if (e.pointer_to_raw_data > bytes_.size() || e.size_of_data > bytes_.size() - e.pointer_to_raw_data)
    return {Errc::kTruncated, format("debug directory entry %u at file offset 0x%zx: data at 0x%x with SizeOfData 0x%x exceeds the file (size 0x%zx)", index, at, e.pointer_to_raw_data, e.size_of_data, bytes_.size())};
  ByteCursor d(bytes_.subspan(e.pointer_to_raw_data, e.size_of_data), e.pointer_to_raw_data);

  if (e.type == pe::kDebugCodeView) {
    char magic[4] = {};
    if (e.size_of_data >= 4) (void)d.read(magic);
    if (e.size_of_data >= 4 && std::memcmp(magic, "RSDS", 4) != 0)
      return {};  // an older CodeView form (NB10): names no PDB 7.0 / Portable PDB
    CodeViewEntry cv;
    cv.index = index;
    cv.stamp = e.time_date_stamp;
    cv.major = e.major_version;
    cv.minor = e.minor_version;
    if (e.size_of_data < kCodeViewFixedSize)
      return {Errc::kTruncated, format("debug directory entry %u at file offset 0x%zx: CodeView data of 0x%x bytes is shorter than RSDS+GUID+age (24)", index, at, e.size_of_data)};
    (void)d.read(cv.guid);
    (void)d.read(cv.age);
    std::string_view path;
    if (!d.read_cstring(path))
      return {Errc::kMalformed, format("debug directory entry %u at file offset 0x%zx: CodeView path at 0x%zx is not NUL-terminated", index, at, d.abs())};
    cv.path.assign(path);
    info_.codeview.push_back(std::move(cv));
    return {};
  }

  if (e.type == pe::kDebugEmbeddedPortablePdb) {
    if (info_.embedded_pdb) return {};  // SRM reads the first one only
    if (e.minor_version != pe::kEmbeddedPdbMinor || e.major_version < 0x0100)
      return {Errc::kBadVersion, format("debug directory entry %u at file offset 0x%zx: embedded Portable PDB version %u.%u is not supported (needs >= 0x100.0x100)", index, at, e.major_version, e.minor_version)};
    char magic[4] = {};
    std::uint32_t size = 0;
    if (!d.read(magic) || !d.read(size))
      return {Errc::kTruncated, format("debug directory entry %u at file offset 0x%zx: embedded PDB data of 0x%x bytes is shorter than its 8-byte header", index, at, e.size_of_data)};
    if (std::memcmp(magic, "MPDB", 4) != 0)
      return {Errc::kBadMagic, format("debug directory entry %u at file offset 0x%zx: embedded PDB data at 0x%x does not start with MPDB", index, at, e.pointer_to_raw_data)};
    if (size == 0)
      return {Errc::kMalformed, format("debug directory entry %u at file offset 0x%zx: embedded PDB declares an uncompressed size of 0", index, at)};
    if (size > options_.max_embedded_pdb)
      return {Errc::kTooLarge, format("debug directory entry %u at file offset 0x%zx: embedded PDB declares 0x%x bytes, over the limit of 0x%x", index, at, size, options_.max_embedded_pdb)};
    if (size & 0x80000000u)
      return {Errc::kUnsupported, format("debug directory entry %u at file offset 0x%zx: embedded PDB size 0x%x has the reserved high bit set", index, at, size)};
    // Checked before inflate_embedded_pdb allocates the declared size: a few bytes of PE must
    // not make the reader allocate (and zero) up to the cap.
    if (size > (std::uint64_t(e.size_of_data) - kMpdbHeaderSize) * kMaxDeflateRatio)
      return {Errc::kMalformed, format("debug directory entry %u at file offset 0x%zx: embedded PDB declares 0x%x bytes but 0x%x bytes of deflate data cannot inflate to more than %llu:1", index, at, size, static_cast<unsigned>(e.size_of_data - kMpdbHeaderSize), static_cast<unsigned long long>(kMaxDeflateRatio))};
    info_.embedded_pdb = EmbeddedPdbEntry{index, e.pointer_to_raw_data + kMpdbHeaderSize,
                                          static_cast<std::uint32_t>(e.size_of_data - kMpdbHeaderSize), size};
    return {};
  }

  // PdbChecksum: AlgorithmName NUL, then the checksum (both non-empty, as SRM requires).
  std::string_view name;
  if (!d.read_cstring(name) || name.empty() || d.empty())
    return {Errc::kMalformed, format("debug directory entry %u at file offset 0x%zx: PdbChecksum data at 0x%x needs a NUL-terminated algorithm name and a checksum", index, at, e.pointer_to_raw_data)};
  PdbChecksum sum;
  sum.algorithm.assign(name);
  sum.hash.assign(d.ptr(), d.ptr() + d.remaining());
  info_.checksums.push_back(std::move(sum));
  return {};
}

Status PeFile::parse_cli() {
  const auto dir = directory(pe::kDirCli);
  if (!dir || dir->size == 0) return {};
  if (dir->size < sizeof(pe::CliHeader))
    return {Errc::kMalformed, format("CLI header (RVA 0x%x): size 0x%x is smaller than 72", dir->rva, dir->size)};
  const auto off = rva_to_offset(dir->rva, sizeof(pe::CliHeader));
  if (!off)
    return {Errc::kTruncated, format("CLI header (RVA 0x%x) is not inside the file-backed part of a section", dir->rva)};
  pe::CliHeader cli{};
  std::memcpy(&cli, bytes_.data() + *off, sizeof cli);
  info_.managed = true;
  info_.cli_entry_point = cli.entry_point_token;
  const auto md_off = rva_to_offset(cli.metadata.rva, cli.metadata.size);
  if (!md_off || cli.metadata.size == 0)
    return {Errc::kTruncated, format("CLI header at file offset 0x%zx: metadata (RVA 0x%x, size 0x%x) is not inside the file-backed part of a section", *off, cli.metadata.rva, cli.metadata.size)};
  auto md = Metadata::parse(bytes_.subspan(*md_off, cli.metadata.size), *md_off);
  if (!md) return {md.error().code, "PE metadata: " + md.error().message};
  metadata_.emplace(std::move(*md));
  info_.methoddef_rows = metadata_->rows(kMethodDef);
  info_.debug_tables_in_metadata = (metadata_->valid_tables() >> kFirstDebugTable) != 0;
  if (metadata_->rows(kModule) >= 1) {
    auto mvid = metadata_->guid(metadata_->column(kModule, 1, 2));
    if (!mvid) return {mvid.error().code, "PE metadata: Module row 1 Mvid: " + mvid.error().message};
    info_.mvid = *mvid;
  }
  return {};
}

Result<std::vector<std::uint8_t>> PeFile::inflate_embedded_pdb() const {
  if (!info_.embedded_pdb) return Error{Errc::kNotFound, "the PE has no embedded Portable PDB"};
  const EmbeddedPdbEntry& e = *info_.embedded_pdb;
  const std::string where = format("embedded PDB (debug directory entry %u, deflate data at file offset 0x%zx)", e.index, e.data_offset);
  std::unique_ptr<libdeflate_decompressor, decltype(&libdeflate_free_decompressor)> z(
      libdeflate_alloc_decompressor(), &libdeflate_free_decompressor);
  if (!z) return Error{Errc::kIo, where + ": out of memory for the inflater"};
  std::vector<std::uint8_t> out(e.uncompressed_size);
  std::size_t in_used = 0, out_used = 0;
  const libdeflate_result r = libdeflate_deflate_decompress_ex(
      z.get(), bytes_.data() + e.data_offset, e.compressed_size, out.data(), out.size(), &in_used,
      &out_used);
  if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
    return Error{Errc::kMalformed, format("%s: inflates to more than the declared 0x%x bytes", where.c_str(), e.uncompressed_size)};
  if (r != LIBDEFLATE_SUCCESS)
    return Error{Errc::kMalformed, where + ": deflate data are corrupt"};
  if (out_used != out.size())
    return Error{Errc::kMalformed, format("%s: inflates to 0x%zx bytes, declared 0x%x", where.c_str(), out_used, e.uncompressed_size)};
  if (in_used != e.compressed_size)
    return Error{Errc::kMalformed, format("%s: 0x%zx bytes remain after the deflate stream", where.c_str(), e.compressed_size - in_used)};
  return out;
}

}  // namespace ilmap
