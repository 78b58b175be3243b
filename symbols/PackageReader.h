// PackageReader.h - a NuGet package (.nupkg, .snupkg, .symbols.nupkg: a zip archive) opened for
// `ilmap store add` / `store watch`, with every entry checked before anything is read from it,
// because packages come from outside (a pipeline's inbox) and are written into a store.
//
// Refused (the whole package; nothing is extracted), naming the entry:
//   - names that are absolute ("/x", "C:x"), hold '\', ':', a control character, an empty, "."
//     or ".." component (after OPC percent-decoding, so "%2e%2e/" is "../"), or are over 1024
//     bytes (a component over 255);
//   - symbolic links (Unix mode S_IFLNK in the external attributes), encrypted entries;
//   - more than PackageLimits::max_entries entries; an entry declaring more than
//     max_entry_size bytes, entries declaring more than max_total_size together, or an entry
//     over 1 MiB whose declared size is more than max_ratio times its compressed size.
// Reading an entry allocates its declared size at most; libzip stops there and checks the CRC,
// so an entry whose data inflates to more (or less) than declared is an error, not a bomb.
// libzip is loaded with dlopen on first use (see symbols/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ilmap/status.h"

namespace ilmap::symbols {

struct PackageLimits {
  std::uint64_t max_entries = 20000;
  std::uint64_t max_entry_size = std::uint64_t(1) << 30;  // 1 GiB
  std::uint64_t max_total_size = std::uint64_t(4) << 30;  // 4 GiB
  std::uint64_t max_ratio = 100;                          // for entries over 1 MiB
};

struct PackageEntry {
  std::string name;  // percent-decoded, validated, '/'-separated, relative
  std::uint64_t index = 0;
  std::uint64_t size = 0;  // declared uncompressed size
};

class PackageReader {
 public:
  // Opens and checks `path`. Errors: kIo (cannot open), kMalformed (not a zip, a refused
  // entry, no or a bad .nuspec), kTooLarge (a cap).
  static Result<PackageReader> open(const std::string& path, const PackageLimits& limits = {});

  PackageReader(PackageReader&&) noexcept;
  PackageReader& operator=(PackageReader&&) noexcept;
  ~PackageReader();

  const std::string& path() const { return path_; }
  // From the root .nuspec's <metadata>: checked to be safe as one path component each.
  const std::string& id() const { return id_; }
  const std::string& version() const { return version_; }
  // File entries (directories left out), in archive order.
  const std::vector<PackageEntry>& entries() const { return entries_; }

  // The bytes of `e` (exactly its declared size, CRC-checked).
  Result<std::vector<std::uint8_t>> read(const PackageEntry& e) const;

 private:
  PackageReader() = default;
  struct Handle;
  std::unique_ptr<Handle> zip_;
  std::string path_, id_, version_;
  std::vector<PackageEntry> entries_;
};

// Exposed for tests: the checks applied to one decoded entry name ("" when acceptable, else
// why not), OPC percent-decoding, and the .nuspec fields.
std::string entry_name_problem(const std::string& name);
std::string percent_decode(const std::string& s);
Status parse_nuspec(const std::string& xml, std::string& id, std::string& version);

}  // namespace ilmap::symbols
