// SentryEvent.h - symbolicate Sentry events (and envelopes) of .NET programs with ilmap caches.
//
// Sentry RFC 0013 ("Portable PDB symbolication") and the Sentry .NET SDK: a frame of a .NET
// exception carries `function_id` (the MethodDef row of MemberInfo.MetadataToken; the SDK sends
// the row, token & 0xFFFFFF), `instruction_addr` (StackFrame.GetILOffset()) and
// `addr_mode: "rel:N"`, an index into `debug_meta.images[]`, whose entry (`type: "pe_dotnet"`)
// names the module's PDB by `debug_id` ("<guid>-<stamp hex>"), `debug_file`, `code_id` and
// `code_file`. Resolving a frame writes what the runtime would have reported with the PDB
// deployed, the way Sentry's own symbolicator does: `abs_path` (the document path), `filename`
// (its last path component), `lineno`, `colno`; plus `source_link` (the SourceLink URL) and
// `pre_context`/`context_line`/`post_context` from the sources embedded in the cache (caches
// compiled with --embed-sources).
//
// Frames are searched in `exception.values[].stacktrace`, `threads.values[].stacktrace` (both
// also in the bare-array form) and the top-level `stacktrace`. Nothing about the event is
// trusted: a frame that cannot be used (wrong types, absurd values, unknown image, no cache,
// no sequence point) is left exactly as it was and counted by reason in SentryStats; the rest
// of the event is copied unchanged: symbolicate_sentry_text keeps every byte of the input
// outside the members it writes into resolved frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ilmap/cache.h"
#include "ilmap/status.h"
#include "symbolicate/SourceProvider.h"

namespace ilmap {

// One `debug_meta.images[]` entry, its strings as the event has them (empty when absent or
// not a string).
struct SentryImage {
  std::size_t index = 0;  // position in debug_meta.images
  std::string type, debug_id, debug_file, code_id, code_file, debug_checksum;
};

// Finds the cache of an image. Asked at most once per image and event. Returns nullptr and a
// reason ("no cache for debug id ..."; "PDB id mismatch ...") when there is none; the Cache
// must outlive the symbolication call.
class SentryModuleProvider {
 public:
  virtual ~SentryModuleProvider() = default;
  virtual const Cache* find(const SentryImage& image, std::string& why_not) = 0;
};

// A provider over caches held in memory, matched by the debug id their identity records
// (case-insensitive); for tests and for callers that already know their caches.
class SentryCacheSetProvider : public SentryModuleProvider {
 public:
  void add(Cache cache);
  std::size_t size() const { return caches_.size(); }
  const Cache* find(const SentryImage& image, std::string& why_not) override;

 private:
  struct Entry {
    std::unique_ptr<Cache> cache;
    std::string debug_id;   // as the cache records it
    std::string id_key;     // debug_id in lower case without dashes (events may omit them)
    std::string pdb_name;   // file name of the PDB (lower case), from the PDB key
  };
  std::vector<Entry> caches_;
};

struct SentryOptions {
  bool source_context = true;             // pre_context/context_line/post_context when embedded
  std::uint32_t context_lines = 5;        // lines before and after (Sentry's default)
  std::size_t max_context_line = 1000;    // longer source lines are cut to this many bytes
  std::uint64_t max_source_bytes = std::uint64_t{64} << 20;  // one embedded source, inflated
  // Where the context comes from (a local checkout too: symbolicate/SourceProvider.h); nullptr:
  // the embedded sources only, read within max_source_bytes. Must outlive the call.
  SourceProvider* sources = nullptr;
  bool overwrite = false;                 // also resolve frames that already have a lineno
  std::size_t max_frames = 1'000'000;     // per event; frames past it are counted, not read
  // symbolicate_sentry_text reads its input whole and writes its output whole; the event is
  // scanned without a JSON tree (a frame or image at a time), so input and output dominate
  // (measured: an event of 200,000 frames, 52 MB, 170 MB resident in `ilmap symbolicate`).
  std::size_t max_input_bytes = std::size_t{100} << 20;
};

// Why frames were left as they were, and what was done (summed over calls).
struct SentryStats {
  std::uint64_t events = 0;            // events read (envelope items of type "event" included)
  std::uint64_t events_unreadable = 0; // envelope event items that are not a JSON object
  std::uint64_t duplicate_keys = 0;    // events copied unchanged: a key read or written twice in one object
  std::uint64_t frames = 0;            // frames seen
  std::uint64_t resolved = 0;          // frames given file and line
  std::uint64_t with_context = 0;      // of those, with source context
  std::uint64_t with_url = 0;          // of those, with a SourceLink URL
  // Left as they were:
  std::uint64_t not_an_object = 0;     // a frame that is not a JSON object
  std::uint64_t already = 0;           // had a lineno already (without overwrite)
  std::uint64_t no_function_id = 0;    // no function_id: not a managed frame the SDK could name
  std::uint64_t bad_field = 0;         // function_id/instruction_addr/addr_mode unreadable
  std::uint64_t absurd_value = 0;      // not a MethodDef token, IL offset >= 2^31, bad rel index
  std::uint64_t no_image = 0;          // no addr_mode, or an image that is not pe_dotnet
  std::uint64_t module_not_found = 0;  // the provider had no cache for the image
  std::uint64_t no_line = 0;           // the cache has no visible sequence point there
  std::uint64_t over_limit = 0;        // past max_frames
  std::map<std::string, std::uint64_t> why_not;  // provider reasons -> frames (at most 32 kept)

  // Adds another run's counts (the reasons map keeps its bound).
  void add(const SentryStats& other);
  std::uint64_t left() const {
    return not_an_object + already + no_function_id + bad_field + absurd_value + no_image +
           module_not_found + no_line + over_limit;
  }
  // "sentry: 12 frames in 2 events: 10 resolved (10 with source context); 2 left: 2 module not
  // found" and one line per provider reason (escaped with escape_text: it quotes the event).
  std::string summary() const;
};

// Resolves the frames of one event object in place. Never throws; a non-object `event` is
// left alone (counted in events_unreadable).
void symbolicate_sentry_event(nlohmann::ordered_json& event, SentryModuleProvider& provider,
                              const SentryOptions& options, SentryStats& stats);

// The whole input text: one event JSON object, or a Sentry envelope (a header line, then items:
// an item header line and its payload, `length` bytes when the header gives a length, else one
// line). The output is the input with, in each resolved frame, the members written
// (`filename`, `abs_path`, `lineno`, `colno`, ...: new values in place of old ones, new members
// after the frame's last one; `colno` removed when there is no column) and, in an envelope,
// the `length` of a rewritten item updated: every other byte is kept (numbers, escapes, white
// space, key order). An event in which a key read or written on the way to its frames appears
// twice in one object (`exception`, `values`, `stacktrace`, `frames`, `debug_meta`, `images`,
// a frame's or an image's fields) is copied unchanged and counted in `duplicate_keys`: JSON
// readers differ on which occurrence counts. Errors (nothing is written to `output` then):
// kMalformed when the text is neither (naming the line) or an item header has `length` or
// `type` twice, kTruncated when an item's length runs past the end, kTooLarge for JSON nested
// deeper than 512 levels or input over max_input_bytes.
Status symbolicate_sentry_text(std::string_view input, std::string& output,
                               SentryModuleProvider& provider, const SentryOptions& options,
                               SentryStats& stats);

// A batch request in the shape of Sentry symbolicator's /symbolicate: a JSON object
// {"stacktraces": [{"frames": [FRAME, ...]}, ...], "modules": [MODULE, ...]}, FRAME as in an
// event (function_id, instruction_addr, addr_mode "rel:N" naming modules[N]) and MODULE as a
// debug_meta image (type "pe_dotnet", debug_id, debug_file, ...). The answer is
// {"status": "completed", "stacktraces": [...], "modules": [...]}: every frame in its place,
// resolved ones filled in as in an event, each with "status" (symbolicated, missing (no cache
// for its module), missing_symbol (no sequence point there), unknown_image, malformed,
// unchanged (a lineno already, without overwrite), too_many_frames), and each module with
// "status" (found, missing, unused, malformed). Other members are kept. Errors (nothing
// written): kMalformed when the request is not such an object (saying which part), kTooLarge
// over max_input_bytes or nested deeper than 512 levels.
// The request is read without a JSON tree (symbolicate/BatchScan.h), a frame or a module at a
// time, and the answer written as it goes: memory is the request, the answer and a few bytes
// per module (docs/serve.md gives the measured figure).
Status symbolicate_batch(std::string_view request, std::string& response, SentryModuleProvider& provider,
                         const SentryOptions& options, SentryStats& stats);
// The same answer through a nlohmann tree of the whole request (the first implementation: about
// 120 bytes of memory per `{}` of the request). Kept as the reference that tests and the fuzz
// target hold symbolicate_batch to, byte for byte; not for serving.
Status symbolicate_batch_tree(std::string_view request, std::string& response, SentryModuleProvider& provider,
                              const SentryOptions& options, SentryStats& stats);
// True when `text` is a JSON object with a top-level "stacktraces" member (read without building
// a tree): a batch request rather than an event.
bool looks_like_batch_request(std::string_view text) noexcept;

// Sets `pre_context` (the `around` lines before `line`, fewer at the start), `context_line` and
// `post_context` (the `around` lines after) of `frame` from `source`, each line cut to
// `max_line_bytes`. `line` is 1-based and at most source.count(). Also what `ilmap symbolicate
// --json --context N` writes into its frame objects.
void add_source_context(nlohmann::ordered_json& frame, const SourceLines& source, std::uint32_t line,
                        std::uint32_t around, std::size_t max_line_bytes);

// True when the first byte that is not white space is '{': the input may be for the Sentry
// mode; sentry_start tells by its first line.
bool looks_like_sentry_json(std::string_view input) noexcept;

// What the first line of an input that starts with '{' says it is: a Sentry event (a JSON
// object with frames where symbolicate_sentry_text reads them: `exception` or `threads` with
// `stacktrace.frames`, or a top-level `stacktrace`), an envelope (a header: a JSON object with
// no key but `event_id`, `dsn`, `sdk`, `sent_at`, `trace`), the start of a JSON text that goes
// on past the line (a pretty-printed event), or anything else: a JSON log line, text.
enum class SentryStart : std::uint8_t { kEvent, kEnvelope, kIncomplete, kOther };
SentryStart sentry_start(std::string_view first_line);

// The first line of `text` that is not blank (it may lack its end): what sentry_start reads.
std::string_view first_line(std::string_view text) noexcept;

}  // namespace ilmap
