// EventSymbolicator.cpp - the frames of Sentry events and batch requests resolved against their
// images (EventSymbolicator.h).
#include "symbolicate/EventSymbolicator.h"

#include <charconv>
#include <functional>
#include <optional>

namespace ilmap::sentry_scan {
namespace {

using Json = EventSymbolicator::Json;
constexpr std::size_t kMaxImages = 1'000'000;  // debug_meta.images located per event text

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

std::string string_field(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

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

EventSymbolicator::EventSymbolicator(SentryModuleProvider& provider, const SentryOptions& options, SentryStats& stats)
    : provider_(provider), options_(options), stats_(stats) {
  if (!options.sources) {
    SourceOptions source_options;
    source_options.max_source_bytes = options.max_source_bytes;
    own_sources_ = std::make_unique<SourceProvider>(std::move(source_options));
  }
  sources_ = options.sources ? options.sources : own_sources_.get();
}

void EventSymbolicator::event(Json& event) {
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

EventSymbolicator::TextEvent EventSymbolicator::event_text(std::string_view text, std::string& out) {
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

void EventSymbolicator::batch(Json& request) {
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

void EventSymbolicator::batch_text(std::string_view text, const BatchScan& scan, std::string& out) {
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

const char* EventSymbolicator::module_status(std::size_t i) const {
  const auto it = images_.find(i);
  return it == images_.end() ? "unused" : !it->second.usable ? "malformed" : it->second.cache ? "found" : "missing";
}

std::size_t EventSymbolicator::image_count() const {
  if (image_ranges_) return image_ranges_->size();
  if (module_begins_) return module_begins_->size();
  return image_list_ ? image_list_->size() : 0;
}

EventSymbolicator::Json EventSymbolicator::image_json(std::size_t index) const {
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

void EventSymbolicator::stacktrace(Json& st) {
  if (!st.is_object()) return;
  auto frames = st.find("frames");
  if (frames == st.end() || !frames->is_array()) return;
  for (Json& f : *frames) frame(f);
}

FrameStatus EventSymbolicator::frame(Json& f) {
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

EventSymbolicator::ImageCache& EventSymbolicator::image(std::size_t index) {
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

void EventSymbolicator::write(Json& f, const Cache& cache, const LookupResult& r) {
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

}  // namespace ilmap::sentry_scan
