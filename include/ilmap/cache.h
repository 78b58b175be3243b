// ilmap/cache.h - the cache reader: open (mmap) an ilmap cache and resolve
// (method token, IL offset) -> document, language, line and column span.
//
// Open is O(1) in the number of sequence points: header checks, FlatBuffers verification and
// a few structural checks. Lookups never throw and never read out of bounds, even on a corrupt
// cache that passed open (they then return no answer). Open does not check the payload
// checksum (that would read the whole file); `verify()` checks it and every block. Views
// returned (paths, URLs) borrow from the Cache and live as long as it.
//
// A file truncated or rewritten in place while a Cache is open never gives a wrong answer:
// every answer is the one the bytes had at open, or no answer with `changed()` true (the
// guarantee, Linux). The file is mapped only under a read lease (ilmap/mapping_guard.h): a
// writer's open or truncate waits until the lease-break handler has replaced the mapping with
// a private copy (answers go on from the bytes at open) or, when no copy can be made, marked
// the Cache changed. lookup, lookup_row, method_name, find_methods, match_documents, lines,
// lines_in, points, verify and details check `changed()` after their reads and then give no
// answer (nullopt, 0 tokens) or Errc::kIo "changed while in use". Where no lease can be taken
// (the file is open for writing elsewhere, owned by another user without CAP_LEASE, a file
// system without leases such as NFS, or a host that uses the lease signal), open reads the file
// into private memory instead, and fails with "changed while in use" if the file's size or
// times changed during that read. Views (paths, URLs) returned before `changed()` turned true
// may since show other bytes. `file_changed()` notices a replaced or rewritten file (dev,
// inode, size, times) so a long-running reader can open it again.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ilmap/mapping_guard.h"
#include "ilmap/status.h"

namespace ilmap {

enum class Language : std::uint8_t { kUnknown = 0, kCSharp = 1, kVisualBasic = 2, kFSharp = 3, kOther = 4 };
const char* language_label(Language l) noexcept;  // "C#", "VB", "F#", "unknown", "other"

struct LookupResult {
  std::string_view file;        // document path, verbatim (borrowed from the cache)
  std::string_view source_url;  // SourceLink URL, empty when the document is not mapped
  Language language = Language::kUnknown;
  std::uint32_t document = 0;   // 0-based document index
  std::uint32_t il_offset = 0;  // IL offset of the sequence point that answered
  std::uint32_t line = 0, column = 0, end_line = 0, end_column = 0;
};

// A document's checksum as the PDB's Document table records it (SPEC.md 3.4). The hash views
// borrow from the Cache.
enum class DocumentHashAlgorithm : std::uint8_t { kNone = 0, kSha1 = 1, kSha256 = 2, kOther = 3 };
struct DocumentChecksum {
  DocumentHashAlgorithm algorithm = DocumentHashAlgorithm::kNone;
  std::span<const std::uint8_t> hash;
};

struct CachePoint {
  std::uint32_t il_offset = 0;
  std::uint32_t start_line = 0, start_column = 0, end_line = 0, end_column = 0;
  std::uint32_t document = 0;  // 0-based
  bool hidden = false;
};

// A method's name as the runtimes print a stack frame (caches compiled with the PE known;
// SPEC.md 3.6). Views borrow from the Cache.
struct MethodNameView {
  std::string_view coreclr;   // "NS.C.M(Int32 x)": CoreCLR's text, state-machine rewrite applied
  std::string_view mono;      // "NS.C.M (System.Int32 x)": Mono's text
  std::uint32_t kickoff = 0;  // state machine: the MethodDef token CoreCLR prints instead, else 0
  bool iterator = false;      // kickoff is an iterator: CoreCLR's text ends in "+Name()"
  bool bad_signature = false; // the signature did not decode: "(<bad signature>)"
};

// A stack frame's answer (Cache::lookup_frame, SPEC.md 6.4).
struct FrameAnswer {
  std::optional<LookupResult> result;
  std::uint32_t state_machine_method = 0;  // the state machine's method that answered, else 0
};

// One binding of a source line (SPEC.md 6.2): a method and the IL offset and span of its
// sequence point, from the reverse line index (SPEC.md 3.7).
struct LineMatch {
  std::uint32_t token = 0;      // MethodDef token 0x06RRRRRR
  std::uint32_t il_offset = 0;
  std::uint32_t document = 0;   // 0-based document index
  std::uint32_t line = 0, column = 0, end_line = 0, end_column = 0;
};

// Which methods a source line binds (SPEC.md 6.2): kDebugger, netcoredbg's choice (one method,
// or the constructors that share a field initializer); kAllMethods, every method whose code
// starts on the line bound to (ilmap 0.2.0's rule; `ilmap lines --all-methods`).
enum class LineRule : std::uint8_t { kDebugger = 0, kAllMethods = 1 };

// What a cache says it was compiled from (SPEC.md 3.2 Identity). Views borrow from the Cache.
// Fields the cache does not record are empty (strings, spans, vectors), zero or nullopt.
struct CacheIdentity {
  // A CodeView (RSDS) entry of the PE the cache was compiled with (SPEC.md 3.2).
  struct CodeView {
    std::array<std::uint8_t, 16> guid{};  // as stored in the PE (#GUID byte order)
    std::uint32_t age = 0;
    std::uint32_t stamp = 0;  // the PE's TimeDateStamp recorded with the entry
    std::string_view path;    // the PDB path the entry names
    bool portable = false;    // the entry's version marks a Portable PDB
  };
  std::optional<std::array<std::uint8_t, 20>> pdb_id;  // #Pdb id (GUID + stamp); nullopt unless 20 bytes
  std::string_view pdb_key;           // SSQP key of the PDB
  std::string_view debug_id;          // "<guid>-<stamp hex>"
  std::uint32_t entry_point = 0;
  std::string_view pe_name;           // set when compiled with the PE known
  std::uint32_t pe_timestamp = 0, pe_size_of_image = 0;
  std::string_view pe_key, code_id;
  std::optional<std::array<std::uint8_t, 16>> mvid;  // the PE's MVID (#GUID byte order)
  std::vector<CodeView> codeview;
  std::vector<std::string_view> pdb_checksums;       // "SHA256:<hex>" as the PE records them
  std::span<const std::uint8_t> pdb_sha256;          // 32 bytes when recorded
  std::uint64_t source_xxh3 = 0, source_size = 0;    // of the input compiled
  std::string_view source_name;       // file name of the input (no directories)
  std::string_view compiler_version;  // "ilmap <version>/format <major>.<minor>"
  bool holds_embedded_sources = false;
  bool package_source_urls = false;   // some URLs came from a NuGet package's sources
};

struct CacheHeaderInfo {
  std::uint16_t version_major = 0, version_minor = 0;
  std::uint64_t payload_size = 0;
  std::uint64_t payload_xxh3 = 0;
};

struct CacheOpenOptions {
  // Read the file into private memory instead of mapping it: nothing another program does to
  // the file afterwards can reach the Cache (costs reading the whole file at open). Such an open
  // installs no signal handler, takes no lease and keeps no descriptor (docs/library.md "In a
  // host process"). Also what open does when it cannot take a read lease on the file.
  bool read_into_memory = false;
};

class Cache {
 public:
  // Maps `path` read-only (falls back to reading it) and validates it. Anything but a regular
  // file (a FIFO, a device, a directory) is refused without reading it; the 32-byte header is
  // read and checked before anything is mapped.
  static Result<Cache> open(const std::string& path, const CacheOpenOptions& options = {});
  // Copies `bytes` into an aligned buffer owned by the Cache and validates it.
  static Result<Cache> from_bytes(std::span<const std::uint8_t> bytes);

  Cache(Cache&&) noexcept;
  Cache& operator=(Cache&&) noexcept;
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;
  ~Cache();

  // The normative lookup rule (SPEC.md section 6). `token` must be a MethodDef token
  // (0x06RRRRRR); anything else gives no answer. IL offsets are signed 32-bit in the runtime
  // (StackFrame.GetILOffset() returns -1, OFFSET_UNKNOWN, when it has none): an offset of
  // 0x80000000 or more (-1 included) gives no answer.
  std::optional<LookupResult> lookup(std::uint32_t token, std::uint32_t il_offset) const noexcept;
  // Same, by MethodDebugInformation row number (1-based).
  std::optional<LookupResult> lookup_row(std::uint32_t rid, std::uint32_t il_offset) const noexcept;

  std::uint32_t method_count() const noexcept;    // MethodDebugInformation rows
  std::uint32_t document_count() const noexcept;
  std::string_view document_path(std::uint32_t index) const noexcept;
  std::string_view document_source_url(std::uint32_t index) const noexcept;
  Language document_language(std::uint32_t index) const noexcept;
  // Whether the document strings (paths, URLs) can be read: ok, or why `strings_zstd` does not
  // unpack (SPEC.md 3.8; kMalformed, kTooLarge), in which case document_path and
  // document_source_url answer "" and lookups give no answer. Unpacks them if that has not
  // happened yet, as the first lookup would.
  Status document_strings_status() const;
  std::uint64_t point_count() const noexcept;
  std::uint64_t hidden_count() const noexcept;

  // Method names (SPEC.md 3.6; absent from caches compiled without the PE).
  bool has_method_names() const noexcept;
  std::uint32_t method_name_count() const noexcept;  // MethodDef rows of the PE; 0 without names
  // Ok without names or when their packed parts unpack (SPEC.md 3.6, 3.8); else why not
  // (kMalformed, kTooLarge): method_name then answers nothing and find_methods finds nothing.
  Status method_names_status() const;
  // The names of a MethodDef token; nullopt without names, for another table's token, a row out
  // of range, or a text range outside the section's string bytes (a corrupt cache).
  std::optional<MethodNameView> method_name(std::uint32_t token) const noexcept;
  // Name lookup (SPEC.md 6.1): the tokens, ascending and distinct, of the methods whose full
  // name ("NS.Outer`1.Inner.M": declaring type with '.' for '+', '.', method name; no generic
  // arguments or parameters) is `full_name`, state-machine methods also under their kickoff
  // method's name. Replaces `tokens`; returns their count (0 without names).
  std::size_t find_methods(std::string_view full_name, std::vector<std::uint32_t>& tokens) const;
  // The methods of the state machine of async or iterator method `kickoff` (its MoveNext, and
  // lambdas and local functions the compiler moved into it): the tokens, ascending, whose
  // MethodNameView::kickoff is `kickoff`. CoreCLR prints a state machine's frame under its
  // kickoff method's token with MoveNext's IL offset. Replaces `tokens`; returns their count (0
  // without names, for a method that is no kickoff method, or for a state-machine method).
  std::size_t state_machine_methods(std::uint32_t kickoff, std::vector<std::uint32_t>& tokens) const;
  // The answer to a stack frame that printed `token` and `il_offset` (SPEC.md 6.4): the
  // lookup's; else, for an async or iterator method's token (CoreCLR prints its state machine's
  // frames under it, with MoveNext's IL offset), the answer of its state machine's methods, the
  // first in token order that has one, when all that have one agree on the document path, start
  // line and start column. `printed`, the method text the frame printed ("NS.C.M(Int32 n)+MoveNext()"
  // for an iterator's MoveNext; empty when the frame gave none), keeps only the state machine's
  // methods whose CoreCLR text it is. The one rule every entry point applies (`ilmap lookup`,
  // symbolicate, serve, Sentry events, ilmap_locate_frame); `scratch` is reused between calls.
  FrameAnswer lookup_frame(std::uint32_t token, std::uint32_t il_offset, std::string_view printed,
                           std::vector<std::uint32_t>& scratch) const;
  // Module MVID (#GUID byte order), from the names section or else the PE identity.
  std::optional<std::array<std::uint8_t, 16>> mvid() const noexcept;
  std::string_view assembly_name() const noexcept;  // empty without names or Assembly row
  std::string_view module_name() const noexcept;    // empty without names

  // --- Reverse line lookup (SPEC.md 3.7, 6.2, 6.3; reader/LineIndex.cpp) ---
  // Every cache that opens holds the line index (open refuses one without it).
  // The documents a path names (SPEC.md 6.3): exact path, the other separator style, or a
  // relative path ("./" and "../" resolved) that is a path suffix on a component boundary
  // ("Program.cs", "Sub/Program.cs"); of several suffix matches, the shortest path (netcoredbg's
  // choice). Replaces `documents` with their indexes (several only when the PDB lists one path
  // several times). kNotFound when nothing matches, kUsage for an empty path.
  Status match_documents(std::string_view path, std::vector<std::uint32_t>& documents) const;
  // The breakpoint bindings of `line` (and `column`, 0 = none) of a document (SPEC.md 6.2),
  // ordered by token then IL offset; replaces `out`. kDebugger: the first query of a document
  // set builds its methods' ranges, O(n log n) in its points, and the cache keeps them (one set per
  // distinct path; thread-safe); later queries walk them, O(log n) plus the points of the methods
  // bound; kAllMethods: O(log n) plus the points of
  // the line bound to. No binding (no code at or after the line): ok with `out` empty. A packed
  // index (SPEC.md 3.8) is unpacked by the first call; a frame that does not unpack: kMalformed
  // (or kTooLarge) naming lines.index_zstd.
  Status lines(std::string_view path, std::uint32_t line, std::uint32_t column, std::vector<LineMatch>& out,
               LineRule rule = LineRule::kDebugger) const;
  // Same, for documents already matched (indexes from match_documents).
  Status lines_in(std::span<const std::uint32_t> documents, std::uint32_t line, std::uint32_t column,
                  std::vector<LineMatch>& out, LineRule rule = LineRule::kDebugger) const;

  // Points of method row `rid` in PDB order (hidden ones included), appended to `out`.
  Status points(std::uint32_t rid, std::vector<CachePoint>& out) const;
  // Checksum of the payload and a full structural check of every section. `points`, `verify`
  // and `details` fail with Errc::kIo ("changed while in use") when changed() is true after
  // their reads.
  Status verify() const;

  // True once the file changed under the mapping in a way the Cache could not shield it from
  // (the lease-break copy failed, or the SIGBUS guard replaced a page): the calls listed at
  // the top give no answers from then on. Always false for a Cache read into memory.
  bool changed() const noexcept;
  // The error the calls above give once changed() is true: kIo "<path>: cache file changed while
  // in use (truncated or rewritten in place)".
  Status changed_status() const;
  // The same error for the cache file at `path` (for a caller whose Cache is gone).
  static Status changed_status(const std::string& path);
  // True when `path` (as given to open) now names a different file or the file's size or
  // modification/change time differ from those at open. False for from_bytes and when stat
  // fails (a deleted file leaves the open Cache intact).
  bool file_changed() const noexcept;

  CacheHeaderInfo header() const noexcept;
  std::span<const std::uint8_t> bytes() const noexcept;
  // The identity section (SPEC.md 3.2): what the cache was compiled from.
  CacheIdentity identity() const;
  // The text of document `document`'s embedded source (SPEC.md 3.4; caches compiled with
  // --embed-sources), unpacked and at most `max_bytes` long: kNotFound when the document has
  // none, kTooLarge over the cap, kMalformed when it does not unpack, kIo when the file changed.
  Result<std::string> embedded_source(std::uint32_t document, std::uint64_t max_bytes = std::uint64_t(64) << 20) const;
  // The size of that text, without unpacking it (the same errors but kTooLarge).
  Result<std::uint64_t> embedded_source_size(std::uint32_t document) const;
  // The checksum the PDB records for document `document` (SPEC.md 3.4 DocumentDetails), so a
  // source file found elsewhere can be shown only when it is the file compiled. The hash bytes
  // are as stored (their length is not checked against the algorithm; compare both). Algorithm
  // kNone with no bytes when the document has none or is out of range; the details section's
  // errors (kMalformed, kIo when the file changed) otherwise.
  Result<DocumentChecksum> document_checksum(std::uint32_t document) const;
  // Bytes used by the method directory and the point blocks.
  std::uint64_t point_section_bytes() const noexcept;

 private:
  struct Impl;
  friend struct CacheRaw;        // reader/RawCache.h: the generated FlatBuffers view, for dump and info
  friend struct CacheInternals;  // reader/CacheImpl.h: the reader's own files
  explicit Cache(std::unique_ptr<Impl> impl);
  const void* root() const noexcept;
  Result<const void*> details() const;
  Status points_unchecked(std::uint32_t rid, std::vector<CachePoint>& out) const;
  Status match_documents_unchecked(std::string_view path, std::vector<std::uint32_t>& documents) const;
  Status lines_in_unchecked(std::span<const std::uint32_t> documents, std::uint32_t line, std::uint32_t column,
                            std::vector<LineMatch>& out, LineRule rule) const;
  Status verify_unchecked() const;
  Status verify_line_index() const;  // verify step 12 (reader/LineIndex.cpp)
  // LineIndex.index_zstd unpacked (once, on first use); empty when the index is stored as is.
  Status packed_line_index(std::span<const std::uint8_t>& out) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ilmap
