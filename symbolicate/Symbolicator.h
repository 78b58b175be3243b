// Symbolicator.h - rewrites trace text line by line: every frame TraceLine finds (anywhere in
// a line: log prefixes and suffixes stay) is resolved through a ModuleIndex and rewritten the
// way the runtime prints a frame with symbols; every other byte passes through unchanged
// (docs/symbolicate.md).
//
//   CoreCLR   "   at M(A a) in App.dll:token 0x6000001+0x5" -> "   at M(A a) in /src/F.cs:line 42"
//   Mono      "  at M (A a) [0x0001a] in <mvid>:0 "        -> "  at M (A a) [0x0001a] in /src/F.cs:42 "
//   Mono AOT  "  at M (A a) <0x7f.. + 0x5e> in <mvid#aotid>:0 " -> "  at M (A a) [0x0001a] in /src/F.cs:42 "
//             (the native offset -> IL offset by the AOT id's .msym: options.msym, docs/msym.md)
//   Android   "at NS.T.M + 0x2db(Unknown Source)"          -> "at NS.T.M(A a) in /src/F.cs:line 42"
//   PST       "   at Asm!0x0600000f!NS.T.M() +0xc"         -> "   at NS.T.M() in /src/F.cs:line 42"
// A line that is one JSON object (after a prefix, if any: a JSON log line, a Docker json-file
// record) has its string values read instead: one that holds frames (a trace as "\n   at ..."
// escapes) is symbolicated as text, re-escaped and put back at its byte range; every other
// byte of the line stays. A string that holds a JSON object line is read so too (Docker's
// "log" of a JSON logger), three levels deep at most.
// --columns appends ":COL" to the line number, --urls prints the SourceLink URL instead of the
// path when the document has one. With `json`, nothing of the text is written: one JSON object
// per frame instead (resolved or not).
//
// Memory is bounded whatever the input: lines are handled one at a time, except that a
// ProductionStackTrace block (frames, then "==========" and the MODULE lines that name their
// modules) is held until its MODULE lines are read, up to max_block_bytes / max_block_lines
// (MODULE lines included); past that the held lines go out unchanged and their frames count as
// kModuleLinesTooFar. Pieces of over-long lines (`fragment`) are never parsed, in a block or not.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <xxhash.h>

#include "symbols/MethodIl.h"
#include "symbols/ModuleIndex.h"
#include "symbolicate/MsymSource.h"
#include "symbolicate/SourceProvider.h"
#include "symbolicate/TraceLine.h"

namespace ilmap::symbolicate {

// Module resolution is the symbols layer's (symbols/ModuleIndex.h); its names are used here as
// the symbolicator's own.
using symbols::default_cache_dir;
using symbols::Miss;
using symbols::miss_name;
using symbols::ModuleAnswer;
using symbols::ModuleIndex;
using symbols::ModuleIndexOptions;
using symbols::ModuleIndexStats;
using symbols::parse_debug_id;

enum class Reason : std::uint8_t {
  kModuleNotFound,
  kPdbMismatch,
  kNoPdb,
  kBadFile,
  kBadPdbName,        // the PDB name the module records makes no valid cache key
  kNoNames,           // the module's cache has no method names (a name-only frame needs them)
  kMethodNotFound,    // no method of that name (and signature) in the module / search set
  kAmbiguous,         // several methods of that name, and they answer differently
  kNoPoint,           // the method has no sequence point at that offset (or none at all)
  kNoModuleLine,      // a PST frame whose assembly no MODULE line names
  kModuleLinesTooFar, // a PST frame whose MODULE lines came after the buffering bound
  kNoMsym,            // a Mono AOT frame without an AOT id, or no --msym-dir has its .msym
  kBadMsym,           // a Mono AOT frame whose .msym does not decode
  kCount
};
const char* reason_name(Reason r) noexcept;

struct SymbolicateOptions {
  bool columns = false, urls = false, json = false;
  // Source context (docs/text-output.md "Source context"): with a value N and `sources`, each
  // resolved frame of a text line is followed by N lines of source before and after its line
  // (--json: pre_context/context_line/post_context members). Frames inside JSON log lines get
  // none in text output: lines put after them would break the JSON lines.
  std::optional<std::uint32_t> context;
  SourceProvider* sources = nullptr;
  // Mono AOT frames (native offsets): where their .msym files are; none: they stay as they are,
  // counted kNoMsym.
  MsymSource* msym = nullptr;
  std::size_t max_context_line = 1000;  // longer source lines are cut to this many bytes
  bool color = false;                   // the frame's line of a context block in bold (ANSI)
  std::size_t max_block_bytes = std::size_t(4) << 20;
  std::size_t max_block_lines = 10000;
};

struct SymbolicateStats {
  std::uint64_t lines = 0;
  std::uint64_t frames = 0;       // frames to resolve (all formats but CoreCLR-with-line)
  std::uint64_t resolved = 0;
  std::uint64_t with_lines = 0;   // CoreCLR frames that already had a line (passed through)
  std::array<std::uint64_t, std::size_t(Reason::kCount)> unresolved{};
  // The first kNamedMissing distinct modules that were not found (file names, MVIDs), for the
  // summary; more_missing when other modules were not found either.
  static constexpr std::size_t kNamedMissing = 3;
  std::vector<std::string> missing_modules;
  bool more_missing = false;
  // Modules that resolved frames from a PDB outside the search set (ModuleAnswer::outside_pdb:
  // the absolute path the PE records), in the order first met, each once: module file name
  // (the PE's, else as the trace names it) and the PDB's path.
  std::vector<std::pair<std::string, std::string>> outside_pdbs;
};

class Symbolicator {
 public:
  // `write` receives the output in pieces (at least every 64 KiB, at flush() and at finish()).
  Symbolicator(ModuleIndex& index, SymbolicateOptions options, std::function<void(std::string_view)> write);
  ~Symbolicator();

  // One line of input INCLUDING its terminator ("\n"; "\r\n"; none for a last line). A
  // line without "\n" that is not the last one is a fragment of an over-long line: the caller
  // passes those with `fragment` true and they go out unchanged.
  void line(std::string_view line, bool fragment = false);
  // A whole text held in memory, given to line() as `ilmap symbolicate` reads a file: lines
  // longer than kMaxLine bytes as fragments of that size (passed through unparsed), so that the
  // service and the C API answer the same bytes as the command.
  static constexpr std::size_t kMaxLine = 256 * 1024;
  void text(std::string_view text);
  // Writes what is buffered (held ProductionStackTrace lines stay held): for a live stream,
  // when no more input is waiting.
  void flush();
  // Flushes held lines and buffered output.
  void finish();
  const SymbolicateStats& stats() const { return stats_; }

 private:
  using Modules = std::unordered_map<std::string, PstModule>;
  enum class JsonLine : std::uint8_t { kNotJson, kUnchanged, kChanged };
  void handle(std::string_view line, const ParsedFrame& first, const Modules* modules, bool too_far);
  bool rewrite_frames(std::string_view body, const ParsedFrame& first, const Modules* modules, bool too_far,
                      std::string& out);
  JsonLine rewrite_json(std::string_view body, std::size_t brace, std::string& out, int depth);
  bool rewrite_text(std::string_view text, std::string& out, int depth);
  bool resolve(const ParsedFrame& f, const Modules* modules, bool too_far, std::string& out);
  void emit(std::string_view s);
  void flush_block(bool too_far);
  void hold(std::string_view line, bool fragment);
  void render_location(const LookupResult& r, bool mono_style, std::string& out);
  bool fail(const ParsedFrame& f, Reason r, std::string_view module);
  void note_outside(const Cache* c, std::string_view module);
  void json_frame(const ParsedFrame& f, std::string_view module, std::uint32_t token, const LookupResult* r,
                  std::string_view method, const char* reason, const char* chosen_by = nullptr,
                  const Cache* cache = nullptr);
  bool resolve_android(const ParsedFrame& f, std::string& out);
  bool resolve_mono(const ParsedFrame& f, std::string& out);
  void want_context(const Cache* c, const LookupResult& r);
  void append_context(std::string& out, std::string_view eol);
  const std::vector<std::uint32_t>& mono_state_machine(const Cache* c, std::string_view mono_text);

  ModuleIndex& index_;
  SymbolicateOptions opt_;
  std::function<void(std::string_view)> write_;
  SymbolicateStats stats_;
  std::string out_;
  std::string tmp_;
  std::vector<std::uint32_t> tokens_;
  // Context blocks owed to the frames of the line being rewritten, written after it.
  struct PendingContext {
    const Cache* cache;
    std::uint32_t document, line;
  };
  std::vector<PendingContext> pending_;
  bool collect_context_ = false;  // the frames rewritten now stand in a text line (not a JSON string)
  std::vector<std::uint32_t> machine_scratch_;  // Cache::lookup_frame's
  std::map<std::pair<const Cache*, std::string>, std::vector<std::uint32_t>> mono_machines_;
  // The IL of the modules (their PEs, each opened once), for Android-form overloads; and the
  // method text of the frame printed just above the current one ("" at the top of a trace: the
  // first frame after a line without frames), whose caller's call instruction it names.
  // above_callee_: the method that frame was resolved to (none: unresolved), whose very identity
  // the caller's call must name (symbols::MethodIl::may_call); resolved_: the current frame's.
  symbols::MethodIl il_;
  std::string above_;
  symbols::Callee above_callee_, resolved_;
  // The module answer of each CoreCLR module text met (a log names few modules): a frame's
  // module is one hash lookup, with no key built. Caches stay mapped while the index lives.
  struct TextHash {
    using is_transparent = void;
    // XXH3: a module text is a few bytes, hashed in a few dozen instructions (std::hash's
    // murmur is a call and a loop).
    std::size_t operator()(std::string_view s) const noexcept { return XXH3_64bits(s.data(), s.size()); }
  };
  struct ModuleMemo {
    const Cache* cache;
    Miss miss;
    bool outside;  // its PDB lies outside the search set (stats_.outside_pdbs)
  };
  std::unordered_map<std::string, ModuleMemo, TextHash, std::equal_to<>> module_memo_;
  std::vector<const Cache*> outside_seen_;  // the caches of stats_.outside_pdbs
  // PST block
  bool in_block_ = false, in_modules_ = false;
  std::string block_;
  std::vector<std::size_t> block_ends_;
  std::vector<bool> block_fragments_;  // held pieces of over-long lines: they go out unparsed
  Modules modules_;
  std::uint64_t line_no_ = 0, block_first_line_ = 0;
};

}  // namespace ilmap::symbolicate
