// PackageReader.cpp - see PackageReader.h. libzip is resolved with dlopen on first use, like
// libcurl in HttpGet.cpp: linking it would load libcrypto.so.3 into every ilmap process. The
// win-x64 build links a static libzip over zlib instead (ILMAP_LIBZIP_LINKED:
// scripts/windows-deps.sh), through the same table.
#include "symbols/PackageReader.h"
#include "support/Platform.h"
#include "support/SharedLibrary.h"

#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>

#include "support/TextEscape.h"

namespace ilmap::symbols {
namespace {

constexpr std::size_t kMaxName = 1024;
constexpr std::size_t kMaxComponent = 255;
constexpr std::uint64_t kRatioFloor = std::uint64_t(1) << 20;
constexpr std::size_t kMaxNuspec = std::size_t(1) << 20;

struct Zip {
  zip_t* (*open)(const char*, int, int*);
  zip_int64_t (*get_num_entries)(zip_t*, zip_flags_t);
  int (*stat_index)(zip_t*, zip_uint64_t, zip_flags_t, zip_stat_t*);
  int (*get_external_attributes)(zip_t*, zip_uint64_t, zip_flags_t, zip_uint8_t*, zip_uint32_t*);
  zip_file_t* (*fopen_index)(zip_t*, zip_uint64_t, zip_flags_t);
  zip_int64_t (*fread)(zip_file_t*, void*, zip_uint64_t);
  int (*fclose)(zip_file_t*);
  void (*discard)(zip_t*);
  const char* (*strerror)(zip_t*);
  const char* (*file_strerror)(zip_file_t*);
  void (*error_init_with_code)(zip_error_t*, int);
  const char* (*error_strerror)(zip_error_t*);
  void (*error_fini)(zip_error_t*);
};

const Zip* load_zip(std::string& why) {
  static Zip z;
  static const Zip* loaded = nullptr;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
#ifdef ILMAP_LIBZIP_LINKED
    z = Zip{&zip_open,         &zip_get_num_entries, &zip_stat_index,      &zip_file_get_external_attributes,
            &zip_fopen_index,  &zip_fread,           &zip_fclose,          &zip_discard,
            &zip_strerror,     &zip_file_strerror,   &zip_error_init_with_code, &zip_error_strerror,
            &zip_error_fini};
#else
    void* lib = open_shared_library("libzip.so.4", "libzip", "libzip4", error);
    if (!lib) return;
    const bool ok = bind_symbol(lib, "zip_open", z.open) &&
                    bind_symbol(lib, "zip_get_num_entries", z.get_num_entries) &&
                    bind_symbol(lib, "zip_stat_index", z.stat_index) &&
                    bind_symbol(lib, "zip_file_get_external_attributes", z.get_external_attributes) &&
                    bind_symbol(lib, "zip_fopen_index", z.fopen_index) &&
                    bind_symbol(lib, "zip_fread", z.fread) && bind_symbol(lib, "zip_fclose", z.fclose) &&
                    bind_symbol(lib, "zip_discard", z.discard) &&
                    bind_symbol(lib, "zip_strerror", z.strerror) &&
                    bind_symbol(lib, "zip_file_strerror", z.file_strerror) &&
                    bind_symbol(lib, "zip_error_init_with_code", z.error_init_with_code) &&
                    bind_symbol(lib, "zip_error_strerror", z.error_strerror) &&
                    bind_symbol(lib, "zip_error_fini", z.error_fini);
    if (!ok) {
      error = "libzip.so.4 lacks a function ilmap needs";
      return;
    }
#endif
    loaded = &z;
  });
  why = error;
  return loaded;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ends_with_nocase(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

// A nuspec field is used as one path component of the source store and of URLs.
bool safe_component(const std::string& s, std::size_t max) {
  if (s.empty() || s.size() > max || s == "." || s == "..") return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_' || c == '+';
  });
}

// The text of the first <tag>...</tag> (or <prefix:tag>) inside `xml` from `from`.
std::optional<std::string> element_text(const std::string& xml, std::size_t from, std::size_t to, const std::string& tag) {
  std::size_t pos = from;
  while (pos < to) {
    std::size_t lt = xml.find('<', pos);
    if (lt == std::string::npos || lt >= to) return std::nullopt;
    std::size_t name_start = lt + 1;
    std::size_t name_end = xml.find_first_of(" \t\r\n/>", name_start);
    if (name_end == std::string::npos) return std::nullopt;
    std::string name = xml.substr(name_start, name_end - name_start);
    if (const std::size_t colon = name.find(':'); colon != std::string::npos) name = name.substr(colon + 1);
    const std::size_t gt = xml.find('>', name_end);
    if (gt == std::string::npos) return std::nullopt;
    if (name == tag && xml[gt - 1] != '/') {
      const std::size_t close = xml.find("</", gt);
      if (close == std::string::npos || close > to) return std::nullopt;
      return xml.substr(gt + 1, close - gt - 1);
    }
    pos = gt + 1;
  }
  return std::nullopt;
}

std::string trim(std::string s) {
  const auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && ws(s.back())) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && ws(s[i])) ++i;
  return s.substr(i);
}

}  // namespace

std::string percent_decode(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string entry_name_problem(const std::string& name) {
  if (name.empty()) return "an empty name";
  if (name.size() > kMaxName) return "a name over 1024 bytes";
  if (name.front() == '/') return "an absolute path";
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) return "a control character in the name";
    if (c == '\\') return "a backslash in the name";
    if (c == ':') return "a ':' in the name (a drive or stream name)";
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string comp = name.substr(start, end - start);
    const bool last = end == name.size();
    if (comp.empty() && !(last && start > 0)) return "an empty path component";
    if (comp == "." || comp == "..") return "a '" + comp + "' path component";
    if (comp.size() > kMaxComponent) return "a path component over 255 bytes";
    start = end + 1;
  }
  return {};
}

Status parse_nuspec(const std::string& xml, std::string& id, std::string& version) {
  const std::size_t meta = xml.find("metadata");
  if (meta == std::string::npos) return {Errc::kMalformed, "the .nuspec has no <metadata>"};
  auto i = element_text(xml, meta, xml.size(), "id");
  auto v = element_text(xml, meta, xml.size(), "version");
  if (!i || !v) return {Errc::kMalformed, "the .nuspec has no <id> or <version> in <metadata>"};
  id = trim(*i);
  version = trim(*v);
  if (!safe_component(id, 100))
    return {Errc::kMalformed, "the .nuspec <id> \"" + escape_text(id) + "\" is not a package id (letters, digits, '.', '-', '_', at most 100)"};
  if (!safe_component(version, 64))
    return {Errc::kMalformed, "the .nuspec <version> \"" + escape_text(version) + "\" is not a version (letters, digits, '.', '-', '+', at most 64)"};
  return {};
}

struct PackageReader::Handle {
  const Zip* z = nullptr;
  zip_t* archive = nullptr;
  ~Handle() {
    if (archive) z->discard(archive);
  }
};

PackageReader::PackageReader(PackageReader&&) noexcept = default;
PackageReader& PackageReader::operator=(PackageReader&&) noexcept = default;
PackageReader::~PackageReader() = default;

// A Unix zip entry's file type, the st_mode bits of its external attributes' high half (the
// zip's own encoding, the same on every system that reads it).
constexpr zip_uint32_t kUnixFileType = 0170000, kUnixSymlink = 0120000;

Result<PackageReader> PackageReader::open(const std::string& path, const PackageLimits& limits) {
  std::string why;
  const Zip* z = load_zip(why);
  if (!z) return Error{Errc::kIo, path + ": " + why};
  platform::FileInfo st;
  if (!platform::stat_path(path, st)) return Error{Errc::kIo, path + ": cannot open: " + std::strerror(errno)};
  if (!st.regular()) return Error{Errc::kIo, path + ": not a regular file"};
  int code = 0;
  zip_t* za = z->open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!za) {
    zip_error_t err;
    z->error_init_with_code(&err, code);
    std::string msg = z->error_strerror(&err);
    z->error_fini(&err);
    const Errc ec = (code == ZIP_ER_OPEN || code == ZIP_ER_READ || code == ZIP_ER_NOENT) ? Errc::kIo : Errc::kMalformed;
    return Error{ec, path + ": not a readable zip archive (NuGet package): " + msg};
  }
  PackageReader r;
  r.path_ = path;
  r.zip_ = std::make_unique<Handle>();
  r.zip_->z = z;
  r.zip_->archive = za;
  const zip_int64_t n = z->get_num_entries(za, 0);
  if (n < 0) return Error{Errc::kMalformed, path + ": cannot count the entries: " + z->strerror(za)};
  if (static_cast<std::uint64_t>(n) > limits.max_entries)
    return Error{Errc::kTooLarge, format("%s: %lld entries, more than the cap of %llu", path.c_str(), static_cast<long long>(n),
                                         static_cast<unsigned long long>(limits.max_entries))};
  std::uint64_t total = 0;
  std::size_t nuspec = 0;
  std::size_t nuspecs = 0;
  for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(n); ++i) {
    zip_stat_t sb;
    if (z->stat_index(za, i, 0, &sb) != 0 || !(sb.valid & ZIP_STAT_NAME))
      return Error{Errc::kMalformed, format("%s: entry %llu: cannot read its header: %s", path.c_str(), static_cast<unsigned long long>(i), z->strerror(za))};
    const std::string raw = sb.name;
    const std::string name = percent_decode(raw);
    const auto where = [&] { return format("%s: entry %llu (\"%s\")", path.c_str(), static_cast<unsigned long long>(i), escape_text(raw).c_str()); };
    if (std::string p = entry_name_problem(name); !p.empty()) return Error{Errc::kMalformed, where() + ": refused: " + p};
    zip_uint8_t opsys = 0;
    zip_uint32_t attr = 0;
    if (z->get_external_attributes(za, i, 0, &opsys, &attr) == 0 && opsys == ZIP_OPSYS_UNIX &&
        ((attr >> 16) & kUnixFileType) == kUnixSymlink)
      return Error{Errc::kMalformed, where() + ": refused: a symbolic link"};
    if ((sb.valid & ZIP_STAT_ENCRYPTION_METHOD) && sb.encryption_method != ZIP_EM_NONE)
      return Error{Errc::kMalformed, where() + ": refused: an encrypted entry"};
    if (name.back() == '/') continue;  // a directory
    const std::uint64_t size = (sb.valid & ZIP_STAT_SIZE) ? sb.size : 0;
    const std::uint64_t comp = (sb.valid & ZIP_STAT_COMP_SIZE) ? sb.comp_size : 0;
    if (size > limits.max_entry_size)
      return Error{Errc::kTooLarge, where() + format(": declares %llu bytes, more than the cap of %llu", static_cast<unsigned long long>(size),
                                                     static_cast<unsigned long long>(limits.max_entry_size))};
    if (size > kRatioFloor && size / std::max<std::uint64_t>(comp, 1) > limits.max_ratio)
      return Error{Errc::kTooLarge, where() + format(": declares %llu bytes compressed into %llu, a ratio over the cap of %llu",
                                                     static_cast<unsigned long long>(size), static_cast<unsigned long long>(comp),
                                                     static_cast<unsigned long long>(limits.max_ratio))};
    total += size;
    if (total > limits.max_total_size)
      return Error{Errc::kTooLarge, format("%s: the entries declare more than the cap of %llu bytes together", path.c_str(),
                                           static_cast<unsigned long long>(limits.max_total_size))};
    r.entries_.push_back({name, i, size});
    if (name.find('/') == std::string::npos && ends_with_nocase(name, ".nuspec")) {
      ++nuspecs;
      nuspec = r.entries_.size() - 1;
    }
  }
  if (nuspecs != 1) return Error{Errc::kMalformed, path + (nuspecs ? ": more than one .nuspec at the root" : ": no .nuspec at the root (not a NuGet package)")};
  if (r.entries_[nuspec].size > kMaxNuspec) return Error{Errc::kTooLarge, path + ": the .nuspec is over 1 MiB"};
  const PackageEntry spec = r.entries_[nuspec];
  auto xml = r.read(spec);
  if (!xml) return xml.error();
  if (Status s = parse_nuspec(std::string(xml->begin(), xml->end()), r.id_, r.version_); !s)
    return Error{s.error().code, path + ": " + s.error().message};
  return r;
}

Result<std::vector<std::uint8_t>> PackageReader::read(const PackageEntry& e) const {
  const Zip* z = zip_->z;
  const auto where = [&] { return path_ + ": " + escape_text(e.name); };
  zip_file_t* f = z->fopen_index(zip_->archive, e.index, 0);
  if (!f) return Error{Errc::kMalformed, where() + ": cannot open: " + z->strerror(zip_->archive)};
  std::vector<std::uint8_t> out(static_cast<std::size_t>(e.size));
  std::uint64_t got = 0;
  std::string error;
  while (got < e.size) {
    const zip_int64_t k = z->fread(f, out.data() + got, e.size - got);
    if (k < 0) {
      error = z->file_strerror(f);
      break;
    }
    if (k == 0) break;
    got += static_cast<std::uint64_t>(k);
  }
  if (error.empty() && got == e.size) {
    // One more read reaches the end of the data, where libzip checks the CRC.
    std::uint8_t extra = 0;
    const zip_int64_t k = z->fread(f, &extra, 1);
    if (k < 0) error = z->file_strerror(f);
    else if (k > 0) error = "more data than its declared size";
  } else if (error.empty()) {
    error = format("%llu bytes where %llu are declared", static_cast<unsigned long long>(got), static_cast<unsigned long long>(e.size));
  }
  z->fclose(f);
  if (!error.empty()) return Error{Errc::kMalformed, where() + ": cannot read: " + error};
  return out;
}

}  // namespace ilmap::symbols
