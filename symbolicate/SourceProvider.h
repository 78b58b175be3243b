// SourceProvider.h - the source text of a frame's document, for source context around it
// (`ilmap symbolicate --context`, Sentry's pre_context/context_line/post_context).
//
// Three sources, asked in this order: the text embedded in the cache (caches compiled with
// --embed-sources; it is what the PDB holds), then a local checkout named by a source root
// (`PREFIX=DIR`: a document path that starts with PREFIX maps to DIR plus the rest of the path),
// then, when the caller gives a fetcher, the document's SourceLink URL. A file or download is
// used only when its SHA-1 or SHA-256 equals the checksum the PDB records for the document: a
// checkout or server of another revision must never show wrong code beside a frame. The
// mapped path is refused when its rest is absolute or has `.`, `..` or empty components, and
// when it resolves (symlinks followed) to anything outside DIR or to anything but a regular
// file; files larger than max_source_bytes are not read.
//
// Each (cache, document) is read, checked and split into lines once; what has no source is
// remembered as such, with why (SourceMiss), so that a run can say once why frames got no
// context instead of staying silent (docs/symbolicate.md "Why a frame has no context").
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ilmap/cache.h"
#include "ilmap/status.h"

namespace ilmap {

// A document prefix and the directory it maps to.
struct SourceRoot {
  std::string prefix;
  std::string dir;  // canonical (symlinks resolved), no trailing '/'
};

// Reads "PREFIX=DIR" (split at the first '='; PREFIX and DIR not empty, DIR an existing
// directory). kUsage naming what is wrong ("'/_/=src': src is not a directory").
Result<SourceRoot> parse_source_root(std::string_view spec);

// The lines of one source text: split at LF, CR LF or CR as the compilers count lines, a
// UTF-8 byte order mark skipped.
struct SourceLines {
  std::string bytes;
  std::vector<std::pair<std::size_t, std::size_t>> lines;  // [begin, end) without the line end
  std::size_t count() const { return lines.size(); }
  std::string_view line(std::size_t index) const {  // 0-based
    return std::string_view(bytes).substr(lines[index].first, lines[index].second - lines[index].first);
  }
  static SourceLines split(std::string text);
};

struct SourceOptions {
  std::vector<SourceRoot> roots;
  std::uint64_t max_source_bytes = std::uint64_t{64} << 20;  // one source, embedded (inflated) or read
  // Told why a local file was not used (checksum differs, path refused, too large); may be empty.
  std::function<void(const std::string&)> note;
  // SourceLink, last: the document's http(s) URL is given to `fetch` (none: never fetched) and
  // the body used only when its hash is the PDB's checksum. Kept in `download_dir` (when not
  // empty) under the checksum, sha256/<hex> or sha1/<hex>, so a file is fetched once whatever
  // its URL; a kept file is checked again when read.
  std::function<Result<std::string>(const std::string& url, std::uint64_t max_bytes)> fetch;
  std::string download_dir;
};

// Why a document has no source to show, most telling last when several roots were tried.
enum class SourceMiss : std::uint8_t {
  kNone,
  kNoEmbeddedSource,  // the PDB embeds none, and no --source-root / --fetch-sources was given
  kNoRootMatched,     // --source-root given, but no PREFIX starts the document path
  kNoChecksum,        // the PDB records no SHA-1/SHA-256 checksum to verify a file against
  kDownloadFailed,    // --fetch-sources: the download failed or its hash differs
  kFileMissing,       // a root matched, but DIR holds no file at the mapped path
  kFileUnreadable,    // a root matched, the file is there but not read (refused, too large, ...)
  kHashMismatch,      // the file was read, and its hash is not the PDB's checksum
  kLineBeyondEnd,     // the source has fewer lines than the frame's line
  kCount
};
// The machine-readable name (--json "context_missing"; serve's X-Ilmap-No-Context):
// "no_embedded_source", "no_source_root_matched", "no_checksum", "download_failed",
// "file_missing", "file_unreadable", "hash_mismatch", "line_beyond_end".
const char* source_miss_name(SourceMiss m) noexcept;

// Frames asked for context that got none, by reason: how many frames and documents, and the
// first document's path and detail (what the summary line names).
struct SourceMissStats {
  struct PerReason {
    std::uint64_t frames = 0, documents = 0;
    std::string first_path, first_detail;
  };
  std::array<PerReason, std::size_t(SourceMiss::kCount)> by_reason{};
  std::uint64_t frames() const {
    std::uint64_t n = 0;
    for (const PerReason& r : by_reason) n += r.frames;
    return n;
  }
};

class SourceProvider {
 public:
  explicit SourceProvider(SourceOptions options = {});
  // The source of `document` of `cache`, or nullptr when there is none to trust. The result
  // lives as long as the provider.
  const SourceLines* find(const Cache& cache, std::uint32_t document);
  // The same for one frame at `line` (1-based): nullptr also when the source has no such line.
  // Each call is one frame: a frame without context is counted in miss_stats() under its reason
  // and `why` (may be null) is set to it (kNone when there is context).
  const SourceLines* find_line(const Cache& cache, std::uint32_t document, std::uint32_t line,
                               SourceMiss* why = nullptr);
  const SourceMissStats& miss_stats() const { return stats_; }
  // One line per reason (frames counted by find_line), the reasons in SourceMiss order, each
  // naming the first document and what to do (docs/symbolicate.md); "" when every frame asked
  // had context. `lead` starts each line ("ilmap symbolicate: ").
  std::string miss_summary(std::string_view lead) const;

 private:
  struct Found {
    std::unique_ptr<SourceLines> lines;
    SourceMiss why = SourceMiss::kNone;
    std::string detail;   // the file tried, the roots tried: for the summary
    bool counted = false;  // among the documents of its reason in stats_
  };
  Found& lookup(const Cache& cache, std::uint32_t document);
  // A root's verdict worse (more telling) than the one so far replaces it.
  static void worse(Found& f, SourceMiss why, std::string detail);
  bool from_root(const SourceRoot& root, std::string_view path, const DocumentChecksum& sum, std::string& text,
                 Found& f);
  bool from_url(std::string_view url, std::string_view path, const DocumentChecksum& sum, std::string& text,
                Found& f);
  bool read_regular(const std::string& file, std::string& text, const std::function<void(const std::string&)>& note);
  struct KeyHash {
    std::size_t operator()(const std::pair<const Cache*, std::uint32_t>& k) const noexcept {
      return std::hash<const void*>()(k.first) ^ (std::size_t{k.second} * 0x9E3779B97F4A7C15ull);
    }
  };
  SourceOptions options_;
  std::unordered_map<std::pair<const Cache*, std::uint32_t>, Found, KeyHash> found_;
  SourceMissStats stats_;
};

}  // namespace ilmap
