// ilmap/status.h - the one error/result type shared by the compiler, the reader and the CLI.
//
// Library APIs never throw: they return Status or Result<T>. An Error carries a pinned code
// (stable across versions, also used by the C API) and a message that says what and where.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <variant>

namespace ilmap {

// Pinned error codes: values never change; new codes are appended.
enum class Errc : std::uint8_t {
  kOk = 0,
  kUsage = 1,        // bad argument from the caller
  kIo = 2,           // file could not be opened, read or written
  kTruncated = 3,    // a structure extends past the end of its container
  kBadMagic = 4,     // a signature / file identifier does not match
  kBadVersion = 5,   // unsupported format version
  kMalformed = 6,    // a value violates the format's grammar or constraints
  kUnsupported = 7,  // valid but not handled (e.g. a cache given as a PDB); the C API returns none
  kNotFound = 8,     // the thing asked for does not exist (no matching PDB, ...)
  kMismatch = 9,     // identities disagree (PDB id vs CodeView, checksum)
  kTooLarge = 10,    // input or output exceeds a limit of the format or a configured cap
  kChecksum = 11,    // payload checksum does not match
};

inline const char* errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::kOk: return "ok";
    case Errc::kUsage: return "usage";
    case Errc::kIo: return "io";
    case Errc::kTruncated: return "truncated";
    case Errc::kBadMagic: return "bad-magic";
    case Errc::kBadVersion: return "bad-version";
    case Errc::kMalformed: return "malformed";
    case Errc::kUnsupported: return "unsupported";
    case Errc::kNotFound: return "not-found";
    case Errc::kMismatch: return "mismatch";
    case Errc::kTooLarge: return "too-large";
    case Errc::kChecksum: return "checksum";
  }
  return "unknown";
}

// Pinned: the structure of a cache (SPEC.md section 7) that a failing check of open, verify,
// points() or lines_in is about, so that a program can tell "the line index is damaged" from
// "the documents table is damaged" without parsing the message. kNone: the error is not about
// one structure of a cache (I/O, usage, not found, or not a reader error). Values never change
// (the C API and the .NET reader return the same numbers); new ones are appended.
enum class CacheStructure : std::uint8_t {
  kNone = 0,
  kHeader = 1,           // the 32-byte file header (open steps 2-9)
  kPayload = 2,          // the FlatBuffers payload as a whole: identifier, verification, checksum
  kMethodDirectory = 3,  // method_groups, block_ends, block_ends_high (section 4)
  kBlockProfiles = 4,    // block_profiles, block_profile_index (5.1)
  kPointBlocks = 5,      // point_blocks and the point counts (5.1-5.3)
  kHiddenPoints = 6,     // hidden_points (5.5)
  kDocuments = 7,        // the document table (3.3)
  kStrings = 8,          // the document strings: strings or strings_zstd (3.3, 3.8)
  kDetails = 9,          // details or details_zstd, embedded sources (3.4)
  kIdentity = 10,        // identity (3.2)
  kNames = 11,           // names (3.6)
  kLineIndex = 12,       // lines (3.7)
};

inline const char* cache_structure_name(CacheStructure s) noexcept {
  switch (s) {
    case CacheStructure::kNone: return "none";
    case CacheStructure::kHeader: return "header";
    case CacheStructure::kPayload: return "payload";
    case CacheStructure::kMethodDirectory: return "method-directory";
    case CacheStructure::kBlockProfiles: return "block-profiles";
    case CacheStructure::kPointBlocks: return "point-blocks";
    case CacheStructure::kHiddenPoints: return "hidden-points";
    case CacheStructure::kDocuments: return "documents";
    case CacheStructure::kStrings: return "strings";
    case CacheStructure::kDetails: return "details";
    case CacheStructure::kIdentity: return "identity";
    case CacheStructure::kNames: return "names";
    case CacheStructure::kLineIndex: return "line-index";
  }
  return "unknown";
}

// Process exit code for an error, as documented in README "Exit codes": 1 usage, 2 bad or
// corrupt input (and I/O), 3 not found or mismatched.
inline int exit_code_for(Errc code) noexcept {
  switch (code) {
    case Errc::kOk: return 0;
    case Errc::kUsage: return 1;
    case Errc::kNotFound:
    case Errc::kMismatch: return 3;
    default: return 2;
  }
}

struct Error {
  Errc code = Errc::kOk;
  std::string message;
  CacheStructure structure = CacheStructure::kNone;  // which cache structure failed, if any
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : error_(std::move(e)) {}  // NOLINT: implicit by design
  Status(Errc code, std::string message) : error_{code, std::move(message)} {}
  Status(Errc code, CacheStructure where, std::string message) : error_{code, std::move(message), where} {}

  bool ok() const noexcept { return error_.code == Errc::kOk; }
  explicit operator bool() const noexcept { return ok(); }
  const Error& error() const noexcept { return error_; }
  Errc code() const noexcept { return error_.code; }
  const std::string& message() const noexcept { return error_.message; }
  CacheStructure structure() const noexcept { return error_.structure; }

 private:
  Error error_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error e) : v_(std::move(e)) {}      // NOLINT
  Result(Errc code, std::string message) : v_(Error{code, std::move(message)}) {}
  Result(Errc code, CacheStructure where, std::string message) : v_(Error{code, std::move(message), where}) {}
  Result(Status s) : v_(s.error()) {}        // NOLINT: s must not be ok

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }
  Status status() const { return ok() ? Status() : Status(error()); }

 private:
  std::variant<T, Error> v_;
};

// `s` with its structure set to `where` when it names none yet (an ok status stays ok): for a
// check whose every failure is about one structure, or a message prefixed with a path.
inline Status in_structure(Status s, CacheStructure where) {
  if (s.ok() || s.structure() != CacheStructure::kNone) return s;
  Error e = s.error();
  e.structure = where;
  return e;
}

// printf-style checking of format strings: mingw-w64's `printf` archetype is Microsoft's (no
// %zu); ilmap's Windows build uses mingw's C99 printf (__USE_MINGW_ANSI_STDIO), which is GNU's.
#if defined(__MINGW32__)
#define ILMAP_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#else
#define ILMAP_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#endif

// Formats like snprintf into a std::string (for error messages).
ILMAP_PRINTF(1, 2) inline std::string format(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<size_t>(n));
    std::vsnprintf(out.data(), out.size() + 1, fmt, ap2);
  }
  va_end(ap2);
  return out;
}

}  // namespace ilmap
