// CacheBuilder.h - build_cache: a decoded Portable PDB or Windows (MSF) PDB, plus the identity
// of the PE it came from, to the bytes of an ilmap cache.
//
// The cache is the file SPEC.md describes (header, FlatBuffers payload, point blocks); the
// bytes depend only on the input and the compiler version (SPEC.md section 8), never on the
// thread count. The steps and the file that makes each section are in CacheBuilder.cpp.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "decode/Guids.h"
#include "decode/PortablePdb.h"
#include "support/FileBytes.h"
#include "ilmap/status.h"

namespace ilmap {

namespace msf {
class MsfPdb;
}

struct CacheCodeView {
  Guid guid{};
  std::uint32_t age = 0;
  std::uint32_t stamp = 0;
  std::string path;
  bool portable = false;
};

struct CachePeIdentity {
  std::string name;  // file name of the PE
  std::uint32_t timestamp = 0;
  std::uint32_t size_of_image = 0;
  std::string pe_key;
  std::string code_id;
  std::optional<Guid> mvid;
  std::vector<CacheCodeView> codeview;
  std::vector<std::string> pdb_checksums;  // "SHA256:<hex>"
};

struct NamesSection;  // NamesSection.h

// Exactly one of `pdb` and `msf` is set. A Windows PDB gives documents, points (methods keyed
// by MethodDef row of their token), SourceLink JSON from its "sourcelink" stream, the pdb_id
// GUID + age (SPEC.md section 3.2), entry point 0, and no embedded sources.
struct CacheSource {
  const PortablePdb* pdb = nullptr;
  const msf::MsfPdb* msf = nullptr;
  std::string source_name;        // file name of the input (no directories)
  std::uint64_t source_xxh3 = 0;  // XXH3-64 of the input file
  std::uint64_t source_size = 0;
  std::string pdb_key;            // SSQP key of the PDB
  std::string debug_id;
  std::optional<CachePeIdentity> pe;
  const NamesSection* names = nullptr;  // method names of the PE (SPEC.md 3.6), when known
  // Each document's URL by document index ("" for none), used where SourceLink (and a Windows
  // PDB's srcsrv stream) gives none: the source-store URLs `store add` of a NuGet package with
  // sources assigns (symbols/PackageIngest.h). Stored like any resolved document URL.
  const std::vector<std::string>* document_urls = nullptr;
  // SHA-256 of the Portable PDB with its id zeroed (Identity.pdb_sha256), when the caller has
  // it already (DebugInput computes it to check the PE's PdbChecksum); otherwise build_cache
  // computes it from `pdb`. Not recorded for a Windows PDB.
  std::optional<std::vector<std::uint8_t>> pdb_sha256;
  // The mapped file `pdb` (or `msf`) reads from, when build_cache may give its pages back once
  // the points are encoded (docs/architecture.md, "Memory of a compile"); what the later steps
  // read (document names, custom debug information) is faulted in again. Null: kept.
  const FileBytes* pdb_file = nullptr;
};

struct CacheBuildOptions {
  bool embed_sources = false;
  int zstd_level = 19;
  // Cap on one embedded source, and on the sum of the distinct embedded sources of the PDB
  // (0: the same value as max_embedded_source). Documents sharing one blob count it once.
  std::size_t max_embedded_source = PortablePdb::kDefaultMaxEmbeddedSource;
  std::size_t max_embedded_total = 0;
  // Threads that encode the point blocks of this one PDB, used only when the PDB has at least
  // parallel_min_methods methods and a #Blob heap of at least parallel_min_blob_bytes (starting
  // a thread costs tens of microseconds). The output does not depend on any of the three.
  unsigned threads = 1;
  std::uint32_t parallel_min_methods = 1024;
  std::size_t parallel_min_blob_bytes = std::size_t(4) << 20;
  // Block profiles (SPEC.md 5.1): false (the default) writes every block in a profile of the
  // table; true keeps the table to profiles used twice or more and every other profile in
  // front of its block (tests use it to make caches with both kinds of block).
  bool rare_profiles_in_blocks = false;
  // Entries of the profile table, at most 255 (the format's limit; 1 to 255, clamped). Fewer
  // make more blocks take a wider profile of the table (tests use it on small PDBs).
  unsigned profile_table_entries = 255;
};

struct CacheStats {
  std::uint64_t points = 0;
  std::uint64_t hidden = 0;
  std::uint64_t point_bytes = 0;  // method directory + point blocks
  std::uint64_t total_bytes = 0;
  std::uint64_t embedded_source_inflations = 0;  // distinct embedded source blobs decoded
  std::uint64_t embedded_source_bytes = 0;       // their decompressed total
  // What was left out of the cache and why (a SourceLink JSON that cannot be read gives a
  // cache without its URLs: the points never depend on it).
  std::vector<std::string> warnings;
};

// The bytes of a cache file (header + payload), in memory build_cache allocated: the buffer the
// FlatBuffer was built in, so no copy is made of it. Move-only.
class CacheBytes {
 public:
  CacheBytes() = default;
  // `block`: a scratch block (ScratchBuffers.h) of `block_size` bytes that holds the bytes.
  CacheBytes(std::uint8_t* block, std::size_t block_size, const std::uint8_t* data, std::size_t size)
      : block_(block), block_size_(block_size), data_(data), size_(size) {}
  CacheBytes(CacheBytes&& o) noexcept
      : block_(std::exchange(o.block_, nullptr)),
        block_size_(std::exchange(o.block_size_, 0)),
        data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)) {}
  CacheBytes& operator=(CacheBytes&& o) noexcept {
    if (this != &o) {
      release();
      block_ = std::exchange(o.block_, nullptr);
      block_size_ = std::exchange(o.block_size_, 0);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  CacheBytes(const CacheBytes&) = delete;
  CacheBytes& operator=(const CacheBytes&) = delete;
  ~CacheBytes() { release(); }

  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::uint8_t* begin() const { return data_; }
  const std::uint8_t* end() const { return data_ + size_; }
  std::span<const std::uint8_t> span() const { return {data_, size_}; }
  operator std::span<const std::uint8_t>() const { return span(); }
  std::vector<std::uint8_t> to_vector() const { return {begin(), end()}; }
  friend bool operator==(const CacheBytes& a, const CacheBytes& b) {
    return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_) == 0);
  }

 private:
  void release() noexcept;
  std::uint8_t* block_ = nullptr;  // a scratch block; data_ points into it
  std::size_t block_size_ = 0;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

// The version string recorded in caches ("ilmap <major>.<minor>.<patch>/format <v>").
std::string compiler_version();

Result<CacheBytes> build_cache(const CacheSource& src, const CacheBuildOptions& opt, CacheStats* stats = nullptr);

}  // namespace ilmap
