// SentryEvent.cpp - Sentry events and envelopes of .NET programs, symbolicated with ilmap caches
// (SentryEvent.h; Sentry RFC 0013). Every field read from the event is checked for type and
// range before use; a frame that fails a check is left untouched and counted by reason.
#include "symbolicate/SentryEvent.h"
#include "support/Ascii.h"


#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <unordered_map>

#include "symbolicate/BatchScan.h"
#include "symbolicate/EventScan.h"
#include "support/TextEscape.h"

namespace ilmap {
namespace {

using Json = nlohmann::ordered_json;
using sentry_scan::BatchScan;
using sentry_scan::EventScan;
using sentry_scan::MemberScan;
using sentry_scan::ValueRange;
constexpr std::size_t kMaxDepth = 512;
constexpr std::size_t kMaxWhyNot = 32;
constexpr std::size_t kMaxImages = 1'000'000;  // debug_meta.images located per event text

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

const char* frame_status_name(FrameStatus s) {
  switch (s) {
    case FrameStatus::kSymbolicated: return "symbolicated";
    case FrameStatus::kUnchanged: return "unchanged";
    case FrameStatus::kMalformed: return "malformed";
    case FrameStatus::kUnknownImage: return "unknown_image";
    case FrameStatus::kMissing: return "missing";
    case FrameStatus::kMissingSymbol: return "missing_symbol";
    case FrameStatus::kOverLimit: return "too_many_frames";
  }
  return "malformed";
}


// Sentry's HexValue: an unsigned JSON integer, or a string "0x<hex>" (the SDK's form) or
// "<decimal>". nullopt for anything else (negative, fractional, empty, > 64 bits).
std::optional<std::uint64_t> hex_value(const Json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) {
    const std::int64_t i = v.get<std::int64_t>();
    if (i < 0) return std::nullopt;
    return static_cast<std::uint64_t>(i);
  }
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  std::string_view t = s;
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    t.remove_prefix(2);
    base = 16;
  }
  if (t.empty() || t.size() > 20) return std::nullopt;
  std::uint64_t r = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), r, base);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return r;
}

std::string string_field(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string_view last_component(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

class EventSymbolicator {
 public:
  EventSymbolicator(SentryModuleProvider& provider, const SentryOptions& options, SentryStats& stats)
      : provider_(provider), options_(options), stats_(stats) {
    if (!options.sources) {
      SourceOptions source_options;
      source_options.max_source_bytes = options.max_source_bytes;
      own_sources_ = std::make_unique<SourceProvider>(std::move(source_options));
    }
    sources_ = options.sources ? options.sources : own_sources_.get();
  }

  void event(Json& event) {
    if (!event.is_object()) {
      ++stats_.events_unreadable;
      return;
    }
    ++stats_.events;
    images_.clear();
    frames_in_event_ = 0;
    const Json* meta = nullptr;
    if (auto it = event.find("debug_meta"); it != event.end() && it->is_object()) meta = &*it;
    image_list_ = nullptr;
    image_text_ = {};
    image_ranges_ = nullptr;
    if (meta)
      if (auto it = meta->find("images"); it != meta->end() && it->is_array()) image_list_ = &*it;
    for (const char* key : {"exception", "threads"}) {
      auto it = event.find(key);
      if (it == event.end()) continue;
      Json* values = &*it;
      if (it->is_object()) {
        auto v = it->find("values");
        if (v == it->end()) continue;
        values = &*v;
      }
      if (!values->is_array()) continue;
      for (Json& value : *values)
        if (value.is_object())
          if (auto st = value.find("stacktrace"); st != value.end()) stacktrace(*st);
    }
    if (auto st = event.find("stacktrace"); st != event.end()) stacktrace(*st);
  }

  enum class TextEvent { kNotJson, kNotObject, kDone };

  // The same for an event's text: its frames and images are located in one pass (EventScan);
  // each frame is parsed alone and, when resolved, its new members are spliced into the text,
  // so every other byte of the event is kept as it was (numbers, escapes, white space, key
  // order). An event with duplicate keys on the paths read is copied unchanged.
  TextEvent event_text(std::string_view text, std::string& out) {
    EventScan scan(options_.max_frames, kMaxImages);
    if (!scan.scan(text)) return TextEvent::kNotJson;
    if (!scan.object) return TextEvent::kNotObject;
    ++stats_.events;
    if (scan.duplicate) {
      ++stats_.duplicate_keys;
      out.append(text);
      return TextEvent::kDone;
    }
    images_.clear();
    frames_in_event_ = 0;
    image_list_ = nullptr;
    image_text_ = text;
    image_ranges_ = &scan.images;
    std::size_t copied = 0;
    for (const ValueRange& r : scan.frames) {
      if (!r.object) {
        Json not_an_object;
        frame(not_an_object);
        continue;
      }
      const std::string_view original = text.substr(r.begin, r.end - r.begin);
      Json f = Json::parse(original);
      const std::uint64_t resolved = stats_.resolved;
      frame(f);
      if (stats_.resolved == resolved) continue;
      out.append(text.substr(copied, r.begin - copied));
      sentry_scan::splice_object(original, Json::parse(original), f, out);
      copied = r.end;
    }
    image_ranges_ = nullptr;
    stats_.frames += scan.frames_past_limit;
    stats_.over_limit += scan.frames_past_limit;
    out.append(text.substr(copied));
    return TextEvent::kDone;
  }

  // A batch request (symbolicate_batch): the frames of each of request["stacktraces"] resolved
  // against request["modules"] as an event's against its debug_meta.images, each frame given
  // "status", each module "status" (found, missing, unused, malformed).
  void batch(Json& request) {
    ++stats_.events;
    images_.clear();
    frames_in_event_ = 0;
    image_text_ = {};
    image_ranges_ = nullptr;
    Json& modules = request["modules"];
    image_list_ = &modules;
    for (Json& st : request["stacktraces"]) {
      if (!st.is_object()) continue;
      auto frames = st.find("frames");
      if (frames == st.end() || !frames->is_array()) continue;
      for (Json& f : *frames) {
        const FrameStatus status = frame(f);
        if (f.is_object()) f["status"] = frame_status_name(status);
      }
    }
    image_list_ = nullptr;
    for (std::size_t i = 0; i < modules.size(); ++i) {
      Json& m = modules[i];
      if (!m.is_object()) continue;
      m["status"] = module_status(i);
    }
  }

  // The same from the request's text (symbolicate_batch), without a tree: `scan` has checked
  // it; one frame at a time is read (FieldScan: only the members frame() reads) and written
  // (CompactWriter, with the members frame() set), then one module at a time. The answer is
  // the one batch() and dump() give, byte for byte.
  void batch_text(std::string_view text, const BatchScan& scan, std::string& out) {
    ++stats_.events;
    images_.clear();
    frames_in_event_ = 0;
    image_list_ = nullptr;
    image_ranges_ = nullptr;
    image_text_ = text;
    module_begins_ = &scan.module_begins;
    const auto& dups = scan.duplicates;
    using sentry_scan::ArrayWalk;
    using sentry_scan::CompactWriter;
    using sentry_scan::FieldScan;
    static const std::vector<std::string_view> frame_keys{"lineno", "function_id", "instruction_addr", "addr_mode"};
    FieldScan fields(frame_keys);
    MemberEdits edits;
    const std::function<void(std::size_t)> each_frame = [&](std::size_t begin) {
      if (out.back() != '[') out.push_back(',');
      fields.run(text, begin);
      edits.clear();
      edits_ = &edits;
      const FrameStatus status = frame(fields.fields);
      edits_ = nullptr;
      if (fields.fields.is_object()) edits.emplace_back("status", frame_status_name(status));
      CompactWriter w(text, dups, out);
      w.edits = &edits;
      w.write(begin);
    };
    const std::function<void(std::size_t)> frames = [&](std::size_t begin) {
      out.push_back('[');
      ArrayWalk().run(text, begin, each_frame);
      out.push_back(']');
    };
    const std::function<void(std::size_t)> each_stacktrace = [&](std::size_t begin) {
      if (out.back() != '[') out.push_back(',');
      CompactWriter w(text, dups, out);
      w.frames = &frames;
      w.write(begin);
    };
    out += "{\"status\":\"completed\",\"stacktraces\":[";
    ArrayWalk().run(text, sentry_scan::skip_separator(text, scan.stacktraces.key_end, ':'), each_stacktrace);
    out += "],\"modules\":[";
    for (std::size_t i = 0; i < scan.module_begins.size(); ++i) {
      if (i > 0) out.push_back(',');
      CompactWriter w(text, dups, out);
      edits.clear();
      if (text[scan.module_begins[i]] == '{') edits.emplace_back("status", module_status(i));
      w.edits = &edits;
      w.write(scan.module_begins[i]);
    }
    out += "]}";
    module_begins_ = nullptr;
  }

 private:
  using MemberEdits = sentry_scan::MemberEdits;

  const char* module_status(std::size_t i) const {
    const auto it = images_.find(i);
    return it == images_.end() ? "unused" : !it->second.usable ? "malformed" : it->second.cache ? "found" : "missing";
  }

  std::size_t image_count() const {
    if (image_ranges_) return image_ranges_->size();
    if (module_begins_) return module_begins_->size();
    return image_list_ ? image_list_->size() : 0;
  }
  Json image_json(std::size_t index) const {
    if (module_begins_) {
      static const std::vector<std::string_view> keys{"type", "debug_id", "debug_file", "code_id", "code_file", "debug_checksum"};
      sentry_scan::FieldScan fields(keys);
      fields.run(image_text_, (*module_begins_)[index]);
      return std::move(fields.fields);
    }
    if (!image_ranges_) return (*image_list_)[index];
    const ValueRange& r = (*image_ranges_)[index];
    return r.object ? Json::parse(image_text_.substr(r.begin, r.end - r.begin)) : Json();
  }

  struct ImageCache {
    bool asked = false;
    bool usable = false;  // a pe_dotnet object
    const Cache* cache = nullptr;
    std::string why_not;
  };

  void stacktrace(Json& st) {
    if (!st.is_object()) return;
    auto frames = st.find("frames");
    if (frames == st.end() || !frames->is_array()) return;
    for (Json& f : *frames) frame(f);
  }

  FrameStatus frame(Json& f) {
    ++stats_.frames;
    if (++frames_in_event_ > options_.max_frames) {
      ++stats_.over_limit;
      return FrameStatus::kOverLimit;
    }
    if (!f.is_object()) {
      ++stats_.not_an_object;
      return FrameStatus::kMalformed;
    }
    if (auto ln = f.find("lineno"); !options_.overwrite && ln != f.end() && !ln->is_null()) {
      ++stats_.already;
      return FrameStatus::kUnchanged;
    }
    auto fid = f.find("function_id");
    if (fid == f.end() || fid->is_null()) {
      ++stats_.no_function_id;
      return FrameStatus::kMalformed;
    }
    auto addr = f.find("instruction_addr");
    auto mode = f.find("addr_mode");
    if (mode == f.end() || mode->is_null()) {
      ++stats_.no_image;
      return FrameStatus::kUnknownImage;
    }
    const std::optional<std::uint64_t> id = hex_value(*fid);
    const std::optional<std::uint64_t> il = addr == f.end() ? std::nullopt : hex_value(*addr);
    if (!id || !il || !mode->is_string()) {
      ++stats_.bad_field;
      return FrameStatus::kMalformed;
    }
    const std::string& m = mode->get_ref<const std::string&>();
    std::size_t index = 0;
    if (m.size() < 5 || m.compare(0, 4, "rel:") != 0) {
      ++stats_.no_image;  // "abs" or another mode: not an image-relative .NET frame
      return FrameStatus::kUnknownImage;
    }
    auto [p, ec] = std::from_chars(m.data() + 4, m.data() + m.size(), index, 10);
    if (ec != std::errc() || p != m.data() + m.size()) {
      ++stats_.bad_field;
      return FrameStatus::kMalformed;
    }
    // The SDK sends the row (token & 0xFFFFFF); a full MethodDef token is accepted too.
    std::uint32_t token = 0;
    if (*id != 0 && *id <= 0x00FFFFFFu) token = 0x06000000u | static_cast<std::uint32_t>(*id);
    else if ((*id >> 24) == 0x06 && (*id & 0x00FFFFFFu) != 0) token = static_cast<std::uint32_t>(*id);
    if (token == 0 || *il > 0x7FFFFFFFu || index >= image_count()) {
      ++stats_.absurd_value;
      return FrameStatus::kMalformed;
    }
    ImageCache& img = image(index);
    if (!img.usable) {
      ++stats_.no_image;
      return FrameStatus::kUnknownImage;
    }
    if (!img.cache) {
      ++stats_.module_not_found;
      if (stats_.why_not.size() < kMaxWhyNot || stats_.why_not.count(img.why_not)) ++stats_.why_not[img.why_not];
      return FrameStatus::kMissing;
    }
    // An async or iterator frame sent under its kickoff method's token: the one fallback rule
    // (SPEC.md 6.4); the SDK's `function` is not CoreCLR's text, so no printed text filters.
    const auto r = img.cache->lookup_frame(token, static_cast<std::uint32_t>(*il), {}, machine_scratch_).result;
    if (!r || r->line == 0 || img.cache->changed()) {
      ++stats_.no_line;
      return FrameStatus::kMissingSymbol;
    }
    write(f, *img.cache, *r);
    return FrameStatus::kSymbolicated;
  }

  ImageCache& image(std::size_t index) {
    ImageCache& c = images_[index];
    if (c.asked) return c;
    c.asked = true;
    const Json j = image_json(index);
    if (!j.is_object()) return c;
    SentryImage img;
    img.index = index;
    img.type = string_field(j, "type");
    if (img.type != "pe_dotnet") return c;
    c.usable = true;
    img.debug_id = string_field(j, "debug_id");
    img.debug_file = string_field(j, "debug_file");
    img.code_id = string_field(j, "code_id");
    img.code_file = string_field(j, "code_file");
    img.debug_checksum = string_field(j, "debug_checksum");
    c.cache = provider_.find(img, c.why_not);
    if (!c.cache && c.why_not.empty()) c.why_not = "no cache for debug id " + img.debug_id;
    return c;
  }

  // Sets the members of a resolved frame (and records them in edits_, for batch_text).
  void write(Json& f, const Cache& cache, const LookupResult& r) {
    ++stats_.resolved;
    const auto set = [&](const std::string& key, Json v) {
      if (edits_) edits_->emplace_back(key, v);
      f[key] = std::move(v);
    };
    const std::string path(r.file);
    set("filename", std::string(last_component(path)));
    set("abs_path", path);
    set("lineno", r.line);
    if (r.column != 0) {
      set("colno", r.column);
    } else {
      if (edits_) edits_->emplace_back("colno", std::nullopt);
      f.erase("colno");
    }
    if (!r.source_url.empty()) {
      set("source_link", std::string(r.source_url));
      ++stats_.with_url;
    }
    if (!options_.source_context) return;
    const SourceLines* src = sources_->find_line(cache, r.document, r.line);
    if (!src) return;
    Json context = Json::object();
    add_source_context(context, *src, r.line, options_.context_lines, options_.max_context_line);
    for (auto& [key, value] : context.items()) set(key, std::move(value));
    ++stats_.with_context;
  }

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

// Deepest nesting of arrays and objects in JSON text (strings skipped), so that parsing and
// writing (recursive in nlohmann) stay within a bounded stack.
std::size_t json_depth(std::string_view s) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

std::size_t line_number_at(std::string_view s, std::size_t pos) {
  return static_cast<std::size_t>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(std::min(pos, s.size())), '\n')) + 1;
}

// One line from `pos` (without its LF); pos moves past the LF.
std::string_view take_line(std::string_view s, std::size_t& pos) {
  const std::size_t nl = s.find('\n', pos);
  const std::size_t end = nl == std::string_view::npos ? s.size() : nl;
  std::string_view line = s.substr(pos, end - pos);
  pos = nl == std::string_view::npos ? s.size() : nl + 1;
  return line;
}

Status envelope(std::string_view in, std::string& out, EventSymbolicator& sym, SentryStats& stats) {
  std::size_t pos = 0;
  const std::string_view header = take_line(in, pos);
  if (!Json::accept(header) || !Json::parse(header).is_object()) {
    // Not an envelope: say where the text stops being JSON (the parser's own message quotes
    // the input, which may hold anything, so only its position is used).
    std::size_t at = 0;
    try {
      const Json whole = Json::parse(in);  // throws: accept(in) failed
      (void)whole;
    } catch (const Json::parse_error& e) {
      at = e.byte == 0 ? 0 : e.byte - 1;
    }
    const std::size_t line = line_number_at(in, at);
    const std::size_t nl = at == 0 ? std::string_view::npos : in.rfind('\n', at - 1);
    const std::size_t column = nl == std::string_view::npos ? at + 1 : at - nl;
    return {Errc::kMalformed, format("line %zu, column %zu: not JSON; the input is neither a Sentry event (one JSON "
                                     "object) nor an envelope (a header line, then items)", line, column)};
  }
  out.append(header);
  if (pos <= in.size() && pos > header.size()) out.push_back('\n');
  std::size_t item = 0;
  MemberScan header_members;
  while (pos < in.size()) {
    const std::size_t header_pos = pos;
    std::string_view ih = take_line(in, pos);
    const bool header_lf = pos > header_pos + ih.size();
    if (ih.empty() || ih == "\r") {  // blank lines between items are allowed
      out.append(ih);
      if (header_lf) out.push_back('\n');
      continue;
    }
    ++item;
    auto line = [&] { return line_number_at(in, header_pos); };  // for messages only
    Json h;
    if (json_depth(ih) > kMaxDepth || !Json::accept(ih) || !(h = Json::parse(ih)).is_object() || !header_members.run(ih))
      return {Errc::kMalformed, format("line %zu: envelope item %zu: header is not a JSON object", line(), item)};
    // A header with `length` or `type` twice is ambiguous: readers differ on which one counts.
    const MemberScan::Member* length_member = nullptr;
    std::size_t lengths = 0, types = 0;
    for (const MemberScan::Member& m : header_members.members) {
      if (m.key == "length") ++lengths, length_member = &m;
      if (m.key == "type") ++types;
    }
    if (lengths > 1 || types > 1)
      return {Errc::kMalformed, format("line %zu: envelope item %zu: header has `%s` twice", line(), item,
                                       lengths > 1 ? "length" : "type")};
    std::string_view payload;
    bool payload_lf = false;
    auto len = h.find("length");
    if (len != h.end() && !len->is_null()) {
      const std::optional<std::uint64_t> n = hex_value(*len);
      if (!n || !len->is_number())
        return {Errc::kMalformed, format("line %zu: envelope item %zu: length is not a number", line(), item)};
      if (*n > in.size() - pos)
        return {Errc::kTruncated, format("line %zu: envelope item %zu: length %llu runs past the end of the input", line(), item,
                                         static_cast<unsigned long long>(*n))};
      payload = in.substr(pos, static_cast<std::size_t>(*n));
      pos += payload.size();
      if (pos < in.size() && in[pos] == '\n') {
        payload_lf = true;
        ++pos;
      }
    } else {
      const std::size_t before = pos;
      payload = take_line(in, pos);
      payload_lf = pos > before + payload.size();
    }
    // The payload, with its resolved frames spliced in (a payload without `length` ends at LF,
    // and what is spliced in holds no LF, so it stays one line).
    std::string rewritten;
    bool changed = false;
    if (h.find("type") != h.end() && h["type"] == "event") {
      if (json_depth(payload) <= kMaxDepth && sym.event_text(payload, rewritten) == EventSymbolicator::TextEvent::kDone)
        changed = rewritten != payload;
      else
        ++stats.events_unreadable;
    }
    if (changed && len != h.end() && !len->is_null()) {
      out.append(ih.substr(0, length_member->value_begin));
      out += std::to_string(rewritten.size());
      out.append(ih.substr(length_member->value_end));
    } else {
      out.append(ih);
    }
    if (header_lf) out.push_back('\n');
    if (changed) out += rewritten;
    else out.append(payload);
    if (payload_lf) out.push_back('\n');
  }
  return {};
}

}  // namespace

void add_source_context(nlohmann::ordered_json& frame, const SourceLines& source, std::uint32_t line,
                        std::uint32_t around, std::size_t max_line_bytes) {
  const auto text = [&](std::size_t i) { return std::string(source.line(i).substr(0, max_line_bytes)); };
  const std::size_t at = line - 1;
  Json pre = Json::array(), post = Json::array();
  for (std::size_t i = at >= around ? at - around : 0; i < at; ++i) pre.push_back(text(i));
  for (std::size_t i = at + 1; i < source.count() && i <= at + around; ++i) post.push_back(text(i));
  frame["pre_context"] = std::move(pre);
  frame["context_line"] = text(at);
  frame["post_context"] = std::move(post);
}

bool looks_like_sentry_json(std::string_view input) noexcept {
  for (char c : input) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

SentryStart sentry_start(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  EventScan scan(1, 0);
  if (!scan.scan(line)) return scan.cut_short() ? SentryStart::kIncomplete : SentryStart::kOther;
  if (!scan.object) return SentryStart::kOther;
  if (!scan.frames.empty() || scan.frames_past_limit > 0) return SentryStart::kEvent;
  MemberScan members;
  if (!members.run(line)) return SentryStart::kOther;
  for (const MemberScan::Member& m : members.members)
    if (m.key != "event_id" && m.key != "dsn" && m.key != "sdk" && m.key != "sent_at" && m.key != "trace")
      return SentryStart::kOther;
  return SentryStart::kEnvelope;
}

void symbolicate_sentry_event(nlohmann::ordered_json& event, SentryModuleProvider& provider,
                              const SentryOptions& options, SentryStats& stats) {
  try {
    EventSymbolicator(provider, options, stats).event(event);
  } catch (const std::exception&) {  // only bad_alloc can get here: every access is type-checked
    ++stats.events_unreadable;
  }
}

Status symbolicate_sentry_text(std::string_view input, std::string& output, SentryModuleProvider& provider,
                               const SentryOptions& options, SentryStats& stats) {
  if (input.size() > options.max_input_bytes)
    return {Errc::kTooLarge, format("Sentry input of %zu bytes (the limit is %zu)", input.size(), options.max_input_bytes)};
  if (!looks_like_sentry_json(input))
    return {Errc::kMalformed, "line 1: a Sentry event or envelope starts with '{'"};
  const std::size_t depth = json_depth(input);
  if (depth > kMaxDepth)
    return {Errc::kTooLarge, format("JSON nested %zu levels deep (the limit is %zu)", depth, kMaxDepth)};
  EventSymbolicator sym(provider, options, stats);
  std::string out;
  try {
    // One event (its text starts with '{', so when it is JSON it is an object), else an envelope.
    if (sym.event_text(input, out) == EventSymbolicator::TextEvent::kNotJson) {
      out.clear();
      if (Status s = envelope(input, out, sym, stats); !s) return s;
    }
  } catch (const std::exception& e) {  // allocation failure; nlohmann errors are ruled out above
    return {Errc::kTooLarge, std::string("Sentry input: ") + e.what()};
  }
  output = std::move(out);
  return {};
}

namespace {
// Reads keys without building a tree: stops at a top-level "stacktraces".
struct TopLevelKeys : nlohmann::json_sax<Json> {
  int depth = 0;
  bool batch = false;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth <= int(kMaxDepth); }
  bool key(string_t& k) override {
    if (depth == 1 && k == "stacktraces") batch = true;
    return !batch;
  }
  bool end_object() override { return --depth, true; }
  bool start_array(std::size_t) override { return ++depth <= int(kMaxDepth); }
  bool end_array() override { return --depth, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};
}  // namespace

bool looks_like_batch_request(std::string_view text) noexcept {
  if (!looks_like_sentry_json(text)) return false;
  TopLevelKeys keys;
  try {
    (void)Json::sax_parse(text, &keys);
  } catch (const std::exception&) {
    return false;
  }
  return keys.batch;
}

Status symbolicate_batch(std::string_view request, std::string& response, SentryModuleProvider& provider,
                         const SentryOptions& options, SentryStats& stats) {
  if (request.size() > options.max_input_bytes || request.size() > std::numeric_limits<std::uint32_t>::max())
    return {Errc::kTooLarge, format("batch request of %zu bytes (the limit is %zu)", request.size(),
                                    std::min<std::size_t>(options.max_input_bytes, std::numeric_limits<std::uint32_t>::max()))};
  const std::size_t depth = json_depth(request);
  if (depth > kMaxDepth)
    return {Errc::kTooLarge, format("JSON nested %zu levels deep (the limit is %zu)", depth, kMaxDepth)};
  try {
    BatchScan scan;
    if (!scan.run(request)) return {Errc::kMalformed, "the batch request is not JSON"};
    if (!scan.object) return {Errc::kMalformed, "the batch request is not a JSON object"};
    for (const auto& [key, member] : {std::pair{"stacktraces", &scan.stacktraces}, std::pair{"modules", &scan.modules}}) {
      if (!member->present) return {Errc::kMalformed, format("the batch request has no \"%s\"", key)};
      if (!member->array) return {Errc::kMalformed, format("\"%s\" of the batch request is not an array", key)};
    }
    if (scan.bad_stacktrace != BatchScan::kNone)
      return {Errc::kMalformed, format("stacktraces[%zu] of the batch request is not an object with a \"frames\" array",
                                       scan.bad_stacktrace)};
    std::string out;
    EventSymbolicator(provider, options, stats).batch_text(request, scan, out);
    response = std::move(out);
  } catch (const std::exception& e) {  // allocation failure: the text is checked whole before it is read again
    return {Errc::kTooLarge, std::string("batch request: ") + e.what()};
  }
  return {};
}

Status symbolicate_batch_tree(std::string_view request, std::string& response, SentryModuleProvider& provider,
                         const SentryOptions& options, SentryStats& stats) {
  if (request.size() > options.max_input_bytes)
    return {Errc::kTooLarge, format("batch request of %zu bytes (the limit is %zu)", request.size(), options.max_input_bytes)};
  const std::size_t depth = json_depth(request);
  if (depth > kMaxDepth)
    return {Errc::kTooLarge, format("JSON nested %zu levels deep (the limit is %zu)", depth, kMaxDepth)};
  Json req = Json::parse(request, nullptr, false);
  if (req.is_discarded()) return {Errc::kMalformed, "the batch request is not JSON"};
  if (!req.is_object()) return {Errc::kMalformed, "the batch request is not a JSON object"};
  for (const char* key : {"stacktraces", "modules"}) {
    const auto it = req.find(key);
    if (it == req.end()) return {Errc::kMalformed, format("the batch request has no \"%s\"", key)};
    if (!it->is_array()) return {Errc::kMalformed, format("\"%s\" of the batch request is not an array", key)};
  }
  for (std::size_t i = 0; i < req["stacktraces"].size(); ++i) {
    const Json& st = req["stacktraces"][i];
    const auto frames = st.is_object() ? st.find("frames") : st.end();
    if (!st.is_object() || frames == st.end() || !frames->is_array())
      return {Errc::kMalformed, format("stacktraces[%zu] of the batch request is not an object with a \"frames\" array", i)};
  }
  try {
    EventSymbolicator(provider, options, stats).batch(req);
    Json out = Json::object();
    out["status"] = "completed";
    out["stacktraces"] = std::move(req["stacktraces"]);
    out["modules"] = std::move(req["modules"]);
    response = out.dump(-1, ' ', false, Json::error_handler_t::replace);
  } catch (const std::exception& e) {  // allocation failure: every access is type-checked
    return {Errc::kTooLarge, std::string("batch request: ") + e.what()};
  }
  return {};
}

namespace {
// A debug id compared as Sentry compares it: case and dashes do not matter
// ("6C544A86-3CCB-...-D4ED59C0" and "6c544a863ccb...d4ed59c0" name one PDB).
std::string debug_id_key(std::string_view id) {
  std::string k;
  for (char c : id)
    if (c != '-') k += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  return k;
}
}  // namespace

void SentryCacheSetProvider::add(Cache cache) {
  Entry e;
  e.cache = std::make_unique<Cache>(std::move(cache));
  const CacheIdentity id = e.cache->identity();
  e.debug_id = id.debug_id;
  e.id_key = debug_id_key(id.debug_id);
  e.pdb_name = ascii_lower(id.pdb_key.substr(0, id.pdb_key.find('/')));
  caches_.push_back(std::move(e));
}

const Cache* SentryCacheSetProvider::find(const SentryImage& image, std::string& why_not) {
  const std::string want = debug_id_key(image.debug_id);
  const std::string name = ascii_lower(last_component(image.debug_file));
  std::string other;
  for (const Entry& e : caches_) {
    if (!want.empty() && e.id_key == want) return e.cache.get();
    if (!name.empty() && e.pdb_name == name && other.empty()) other = e.debug_id;
  }
  if (!other.empty())
    why_not = "PDB id mismatch: " + std::string(last_component(image.debug_file)) + " has debug id " + other +
              ", the event wants " + image.debug_id;
  else
    why_not = "no cache for " + (name.empty() ? std::string("an image") : std::string(last_component(image.debug_file))) +
              " (debug id " + (image.debug_id.empty() ? std::string("missing") : image.debug_id) + ")";
  return nullptr;
}

void SentryStats::add(const SentryStats& o) {
  events += o.events, events_unreadable += o.events_unreadable, duplicate_keys += o.duplicate_keys, frames += o.frames;
  resolved += o.resolved, with_context += o.with_context, with_url += o.with_url;
  not_an_object += o.not_an_object, already += o.already, no_function_id += o.no_function_id;
  bad_field += o.bad_field, absurd_value += o.absurd_value, no_image += o.no_image;
  module_not_found += o.module_not_found, no_line += o.no_line, over_limit += o.over_limit;
  for (const auto& [why, n] : o.why_not)
    if (auto it = why_not.find(why); it != why_not.end())
      it->second += n;
    else if (why_not.size() < kMaxWhyNot)
      why_not.emplace(why, n);
}

std::string SentryStats::summary() const {
  std::string s = format("sentry: %llu frames in %llu events: %llu resolved (%llu with source context, %llu with a URL)",
                         static_cast<unsigned long long>(frames), static_cast<unsigned long long>(events),
                         static_cast<unsigned long long>(resolved), static_cast<unsigned long long>(with_context),
                         static_cast<unsigned long long>(with_url));
  const std::pair<const char*, std::uint64_t> reasons[] = {
      {"module not found", module_not_found}, {"no line at that offset", no_line},
      {"without function_id", no_function_id}, {"with a line already", already},
      {"without a pe_dotnet image", no_image}, {"with unreadable fields", bad_field},
      {"with absurd values", absurd_value}, {"not objects", not_an_object},
      {"past the frame limit", over_limit}};
  if (left() != 0) {
    s += format("; %llu left:", static_cast<unsigned long long>(left()));
    bool first = true;
    for (const auto& [what, n] : reasons) {
      if (n == 0) continue;
      s += format("%s %llu %s", first ? "" : ",", static_cast<unsigned long long>(n), what);
      first = false;
    }
  }
  if (events_unreadable != 0)
    s += format("; %llu event items not JSON objects (copied unchanged)", static_cast<unsigned long long>(events_unreadable));
  if (duplicate_keys != 0)
    s += format("; %llu events with duplicate keys (copied unchanged)", static_cast<unsigned long long>(duplicate_keys));
  s.push_back('\n');
  for (const auto& [why, n] : why_not)
    s += format("sentry:   %s (%llu frames)\n", escape_text(why).c_str(), static_cast<unsigned long long>(n));
  return s;
}

std::string_view first_line(std::string_view text) noexcept {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  text.remove_prefix(first);
  return text.substr(0, text.find('\n'));
}

}  // namespace ilmap
