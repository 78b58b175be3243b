// EventSymbolicator.h - the frames of one Sentry event or batch request resolved against its
// images (internal to symbolicate/: SentryEvent.cpp's entry points drive it). Every member of a
// frame and an image is checked for type and range before use; a frame that fails a check is
// left as it was and counted in SentryStats by reason (SentryEvent.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "ilmap/cache.h"
#include "symbolicate/BatchScan.h"
#include "symbolicate/EventScan.h"
#include "symbolicate/SentryEvent.h"
#include "symbolicate/SourceProvider.h"

namespace ilmap::sentry_scan {

inline constexpr std::size_t kMaxWhyNot = 32;  // distinct reasons a SentryStats keeps

// What became of one frame: the "status" a batch answer gives it (the names of Sentry's
// symbolicator where it has one).
enum class FrameStatus : std::uint8_t {
  kSymbolicated,   // given file and line
  kUnchanged,      // had a line already (and overwrite is off)
  kMalformed,      // not an object, no function_id, an unreadable or absurd field
  kUnknownImage,   // no image-relative address, or an image that is no pe_dotnet object
  kMissing,        // no cache for the image (the reason is in the stats)
  kMissingSymbol,  // the cache has no sequence point there
  kOverLimit,      // past max_frames
};

// The last component of a path with either separator ("C:\\src\\A.cs" and "/src/A.cs" give "A.cs").
inline std::string_view last_component(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Sentry's HexValue: an unsigned JSON integer, or a string "0x<hex>" (the SDK's form) or
// "<decimal>". nullopt for anything else (negative, fractional, empty, > 64 bits).
std::optional<std::uint64_t> hex_value(const nlohmann::ordered_json& v);

class EventSymbolicator {
 public:
  using Json = nlohmann::ordered_json;

  EventSymbolicator(SentryModuleProvider& provider, const SentryOptions& options, SentryStats& stats);

  void event(Json& event);

  enum class TextEvent { kNotJson, kNotObject, kDone };

  // The same for an event's text: its frames and images are located in one pass (EventScan);
  // each frame is parsed alone and, when resolved, its new members are spliced into the text,
  // so every other byte of the event is kept as it was (numbers, escapes, white space, key
  // order). An event with duplicate keys on the paths read is copied unchanged.
  TextEvent event_text(std::string_view text, std::string& out);

  // A batch request (symbolicate_batch): the frames of each of request["stacktraces"] resolved
  // against request["modules"] as an event's against its debug_meta.images, each frame given
  // "status", each module "status" (found, missing, unused, malformed).
  void batch(Json& request);

  // The same from the request's text (symbolicate_batch), without a tree: `scan` has checked
  // it; one frame at a time is read (FieldScan: only the members frame() reads) and written
  // (CompactWriter, with the members frame() set), then one module at a time. The answer is
  // the one batch() and dump() give, byte for byte.
  void batch_text(std::string_view text, const BatchScan& scan, std::string& out);

 private:
  using MemberEdits = sentry_scan::MemberEdits;

  const char* module_status(std::size_t i) const;

  std::size_t image_count() const;
  Json image_json(std::size_t index) const;

  struct ImageCache {
    bool asked = false;
    bool usable = false;  // a pe_dotnet object
    const Cache* cache = nullptr;
    std::string why_not;
  };

  void stacktrace(Json& st);

  FrameStatus frame(Json& f);

  ImageCache& image(std::size_t index);

  // Sets the members of a resolved frame (and records them in edits_, for batch_text).
  void write(Json& f, const Cache& cache, const LookupResult& r);

  SentryModuleProvider& provider_;
  const SentryOptions& options_;
  SentryStats& stats_;
  const Json* image_list_ = nullptr;                      // the DOM's debug_meta.images
  std::string_view image_text_;                           // or the event's text
  const std::vector<ValueRange>* image_ranges_ = nullptr; // and the images in it
  const std::vector<std::uint32_t>* module_begins_ = nullptr;  // or a batch request's modules
  MemberEdits* edits_ = nullptr;                          // batch_text: what write() sets
  std::size_t frames_in_event_ = 0;
  std::unordered_map<std::size_t, ImageCache> images_;
  std::vector<std::uint32_t> machine_scratch_;  // Cache::lookup_frame's
  std::unique_ptr<SourceProvider> own_sources_;  // embedded sources only, when the caller gives none
  SourceProvider* sources_ = nullptr;
};

}  // namespace ilmap::sentry_scan
